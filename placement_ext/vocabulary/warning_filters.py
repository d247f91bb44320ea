"""Warning filters of our entry points, installed when this is imported.

Importing oslo.messaging imports oslo.service, whose eventlet backend
prints eventlet deprecation warnings at every start. We never use
eventlet (RPC runs on the threading executor), so the entry points drop
those warnings: the console scripts (``placement_ext.cmd``'s
``__init__``, which Python runs before any module under it), the
``placement-ext`` CLI, the demo and the alembic environment each import
this module before anything imports oslo.messaging. Library modules do
not import it: they leave the process's warning filters alone.
"""

import warnings


def silence_eventlet_warnings() -> None:
    # eventlet's EventletDeprecationWarning is not a DeprecationWarning,
    # so the default filters show it; match it by its message
    warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
    warnings.filterwarnings(
        'ignore', category=DeprecationWarning,
        module=r'oslo_service\.|oslo_utils\.eventletutils|eventlet')


silence_eventlet_warnings()
