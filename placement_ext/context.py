"""The request context every placement_ext call carries.

A subclass of oslo.context's ``RequestContext``, so oslo.log prints its
``request_id`` on every log line written while it is current, and an
RPC call keeps the caller's request id on the server side (see
:class:`placement_ext.rpc.RequestContextSerializer`).
"""

from collections.abc import Callable
from typing import TypeVar

from oslo_config import cfg
from oslo_context import context

# names oslo.context's from_dict() reads but its to_dict() leaves out;
# we send them too, so a context crosses RPC without losing them
_NAME_FIELDS = ('user_name', 'project_name', 'domain_name',
                'user_domain_name', 'project_domain_name')


class RequestContext(context.RequestContext):
    """Security and tracing context of one request.

    ``config`` is the ConfigOpts of the process that handles the request;
    it is local and never serialized: the receiving side sets its own.
    """

    def __init__(self, *args: object, config: cfg.ConfigOpts | None = None,
                 **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.config = config

    def to_dict(self) -> dict:
        values = super().to_dict()
        for name in _NAME_FIELDS:
            values[name] = getattr(self, name)
        return values


def get_admin_context(config: cfg.ConfigOpts | None = None,
                      overwrite: bool = False) -> RequestContext:
    """Return an admin context with a fresh request id.

    For work no user asked for (service start-up, periodic tasks, the
    operator CLI). ``overwrite=True`` also makes it this thread's current
    context, so every log line that follows carries its request id.
    """
    return RequestContext(is_admin=True, config=config, overwrite=overwrite)


T = TypeVar('T')


def carried(func: Callable[[], T]) -> Callable[[], T]:
    """``func``, to run in another thread under the context current in
    this one: the lines it logs keep the request's id."""
    current = context.get_current()

    def run() -> T:
        if current is not None:
            current.update_store()
        return func()

    return run
