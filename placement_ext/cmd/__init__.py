"""Console-script entry points (``placement-ext-conductor``, ...).

Importing this package installs the entry points' warning filters
(:mod:`placement_ext.vocabulary.warning_filters`): Python runs a package's
``__init__`` before any module under it, hence before the entry point
modules import oslo.messaging.
"""

from placement_ext.vocabulary import warning_filters  # noqa: F401
