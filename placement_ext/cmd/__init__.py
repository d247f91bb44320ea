"""Console-script entry points (``placement-ext-conductor``, ...).

Importing oslo.messaging imports oslo.service, whose eventlet backend
prints eventlet deprecation warnings at every start. We never use
eventlet (RPC runs on the threading executor), so the entry points drop
those warnings. The filter is installed here because Python runs a
package's ``__init__`` before any module under it, hence before the
entry point modules import oslo.messaging; library modules leave the
process's warning filters alone.
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
