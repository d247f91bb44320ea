"""The embedded real OpenStack of placement_ext's tests and demo.

Stdlib-only control code (this package, run by the ``minicloud`` script)
and code that runs inside the cloud's own venv (``runtime/``).
"""
