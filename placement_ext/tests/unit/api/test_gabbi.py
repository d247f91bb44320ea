"""Declarative API tests (as OpenStack Placement writes them): every
YAML file of ``gabbits/`` is a sequence of HTTP requests and expected
answers, run in-process against the application its fixture builds."""

import os

from gabbi import driver

from placement_ext.tests.unit.api import gabbi_fixtures

GABBITS = os.path.join(os.path.dirname(__file__), 'gabbits')


def load_tests(loader, tests, pattern):  # noqa: ANN001, ANN201 (unittest)
    return driver.build_tests(GABBITS, loader, host=None,
                              intercept=gabbi_fixtures.current_app,
                              fixture_module=gabbi_fixtures,
                              test_loader_name=__name__)
