"""Sphinx configuration of placement_ext's documentation.

Built by ``tox -e docs`` (and ``./run tests``) with ``sphinx-build -W``:
a warning fails the build. The configuration reference is generated from
our options (``oslo_config.sphinxext``), so it cannot drift from them.
"""

project = 'placement_ext'
copyright = 'placement_ext contributors'  # noqa: A001
author = 'placement_ext contributors'

extensions = [
    'oslo_config.sphinxext',
    'oslo_config.sphinxconfiggen',
]

# The sample configuration file, generated at build time from the same
# generator configuration as etc/tacker.conf.sample.
config_generator_config_file = [
    ('../../etc/oslo-config-generator/placement_ext.conf',
     '_static/placement_ext'),
]

master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
exclude_patterns = ['_build']
templates_path = []
html_static_path = ['_static']
html_theme = 'alabaster'
pygments_style = 'sphinx'
# the pages are written as prose with literal file names, not as API
# cross-references: no automatic role for `text`
default_role = None
