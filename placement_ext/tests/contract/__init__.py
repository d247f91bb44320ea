"""Contract tests: our Tacker driver and Blazar plugins against one
installed release of Tacker or Blazar.

Run in that release's venv (the minicloud addon's, ``minicloud addon
venvs NAME``), with the standard library's runner only::

    <venv>/bin/python -m unittest placement_ext.tests.contract.test_tacker

``./run tests`` and ``tox -e contract`` run them on every supported
release. A test whose service is not installed is skipped.
"""
