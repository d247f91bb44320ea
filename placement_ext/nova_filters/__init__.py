"""Nova scheduler filters shipped by placement_ext.

Modules here run inside nova-scheduler (Nova's own Python environment):
they import Nova, and nothing from placement_ext but this package's
pure :mod:`placement_ext.nova_filters.rules`.
"""
