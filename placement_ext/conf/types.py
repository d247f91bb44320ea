"""Option types of our own, for values oslo.config cannot check itself."""

import re

from oslo_config import types


class Regex(types.String):
    """A string that must compile as a Python regular expression.

    oslo.config calls the type when the value is first read, so a bad
    pattern in the configuration file is refused with the option's name
    and the compiler's reason instead of failing later in the middle of an
    operation.
    """

    def __init__(self, type_name: str = 'regular expression') -> None:
        super().__init__(type_name=type_name)

    def __call__(self, value: str) -> str:
        value = super().__call__(value)
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f'not a valid regular expression: {exc}')
        return value

    def _formatter(self, value: str) -> str:
        return value
