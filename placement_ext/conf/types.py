"""Option types of our own, for values oslo.config cannot check itself."""

import re

from oslo_config import types


class Regex(types.String):
    """A string that must compile as a Python regular expression.

    oslo.config calls the type when the value is first read, so a bad
    pattern in the configuration file is refused with the option's name
    and the compiler's reason instead of failing later in the middle of an
    operation. A pattern that matches every text (empty, ``.*``) is
    refused too: it would classify everything alike.
    """

    def __init__(self, type_name: str = 'regular expression') -> None:
        super().__init__(type_name=type_name)

    def __call__(self, value: str) -> str:
        value = super().__call__(value)
        try:
            pattern = re.compile(value)
        except re.error as exc:
            raise ValueError(f'not a valid regular expression: {exc}')
        if pattern.search('') is not None:
            # an empty value, or '.*': every text would match, so the
            # option would no longer tell one case from another
            raise ValueError(f'{value!r} matches every text, even an empty '
                             f'one; give a pattern that must be found')
        return value

    def _formatter(self, value: str) -> str:
        return value
