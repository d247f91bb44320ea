"""keystoneauth1 sessions and adapters from a service's option group.

Every driver reaches its service the same way: the ``[heat]``, ``[nova]``
or ``[placement]`` group carries keystoneauth1's standard session, auth
and adapter options, loaded here once per driver.
"""

import contextlib
from collections.abc import Iterator

from keystoneauth1 import adapter as ks_adapter
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import session as ks_session
from oslo_config import cfg

from placement_ext import exception


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


@contextlib.contextmanager
def transport_errors(service: str, call: str) -> Iterator[None]:
    """keystoneauth1's failures to reach ``service`` as our errors.

    An unreachable service, or an identity service that cannot be
    discovered, is ServiceUnavailable; any other failure of the request
    itself (SSL, rejected credentials, auth plugin, ...) a ServiceError;
    both name ``call``. HTTP error statuses are the caller's
    (``raise_exc=False``), or the python-*client's own exceptions.
    """
    try:
        yield
    except (ks_exc.ConnectionError, ks_exc.DiscoveryFailure) as exc:
        # DiscoveryFailure: the identity service (auth_url) did not
        # answer with its versions, so no token could be had
        raise exception.ServiceUnavailable(service=service,
                                           reason=f'{call}: {exc}')
    except ks_exc.ClientException as exc:
        raise exception.ServiceError(service=service,
                                     reason=f'{call}: {exc}')
