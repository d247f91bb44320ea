"""placement_ext inside blazar-manager: the instance reservation plugin.

Only :mod:`~placement_ext.adapters.blazar.plugin` imports blazar; it is
loaded by blazar-manager through the ``blazar.resource.plugins`` entry
point ``placement_ext.instance.plugin``.
"""
