"""ETSI NFV-SOL 003 data types as plain classes, kept apart from drivers.

One module per type family; every type has ``from_dict`` / ``to_dict``
with SOL 003's camelCase attribute names on the wire, and each top-level
document (``GrantRequest``, ``Grant``) a ``parse`` that validates a
received document (JSON Schema, then the cross-references a schema cannot
express) before building the object.
"""
