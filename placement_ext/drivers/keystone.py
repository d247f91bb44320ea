"""keystoneauth1 sessions and adapters from a service's option group.

Every driver reaches its service the same way: the ``[heat]``, ``[nova]``
or ``[placement]`` group carries keystoneauth1's standard session, auth
and adapter options, loaded here once per driver.
"""

from keystoneauth1 import adapter as ks_adapter
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import session as ks_session
from oslo_config import cfg


def load_session(conf: cfg.ConfigOpts, group: str) -> ks_session.Session:
    """A Session authenticated with the group's auth plugin options."""
    auth = ks_loading.load_auth_from_conf_options(conf, group)
    return ks_loading.load_session_from_conf_options(conf, group, auth=auth)


def load_adapter(conf: cfg.ConfigOpts, group: str,
                 session: ks_session.Session | None = None
                 ) -> ks_adapter.Adapter:
    """An Adapter bound to the group's service type, interface, region."""
    session = session or load_session(conf, group)
    return ks_loading.load_adapter_from_conf_options(
        conf, group, session=session)


def adapter_kwargs(conf: cfg.ConfigOpts, group: str) -> dict:
    """The adapter options as keyword arguments for python-*client.

    python-heatclient and python-novaclient build their own Adapter from a
    Session; they take the same selection arguments under these names.
    """
    opts = conf[group]
    kwargs = {
        'service_type': opts.service_type,
        'interface': (opts.valid_interfaces or ['public'])[0],
        'region_name': opts.region_name,
    }
    if opts.endpoint_override:
        kwargs['endpoint_override'] = opts.endpoint_override
    return kwargs
