"""HTTP access to Placement: one Adapter, a negotiated microversion, errors.

Every request names its microversion explicitly: the server's default is
1.0, which hides nested providers and traits. The highest version the
server offers is read once from its version document (``GET /``) and
capped at the highest version this client was tested against, so a newer
Placement cannot change a response shape under us.

Placement's error bodies (``{"errors": [{status, title, detail, code}]}``)
are mapped onto :mod:`placement_ext.exception`: a stale generation becomes
``ConcurrentUpdate`` (reload and retry), any other 409 ``Conflict``, 404
``NotFound``, a refused connection or 503 ``ServiceUnavailable``, the rest
``ServiceError`` with Placement's detail and code.
"""

import collections

import requests
from keystoneauth1 import adapter as ks_adapter
from keystoneauth1 import discover
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import errors
from placement_ext import exception
from placement_ext.drivers import keystone

LOG = logging.getLogger(__name__)

SERVICE = 'Placement'
SERVICE_TYPE = 'placement'
# The newest microversion whose responses this client was tested against
# (openstack-placement 16.0.0). A newer server is asked for this one.
KNOWN_MAX_VERSION = (1, 39)
# Under noauth2 the token is a role name, not a secret.
NOAUTH2_ADMIN_TOKEN = 'admin'  # noqa: S105
# Placement's code for a stale resource provider or consumer generation.
CONCURRENT_UPDATE_CODE = 'placement.concurrent_update'

Version = tuple[int, int]


def version_string(version: Version) -> str:
    return discover.version_to_string(version)


def parse_version(value: str | Version, field: str = 'microversion'
                  ) -> Version:
    """'1.31' or (1, 31) as (1, 31); InvalidInput naming ``field``."""
    try:
        major, minor = discover.normalize_version_number(value)[:2]
        return int(major), int(minor)
    except (TypeError, ValueError, OverflowError):
        raise exception.InvalidInput(
            field=field, reason=f'{value!r} is not a microversion like 1.31')


class PlacementTooOld(exception.ServiceError):
    """The Placement we talk to lacks a microversion a feature needs."""

    msg_fmt = ('%(feature)s needs Placement microversion %(required)s or '
               'later, but the Placement at %(endpoint)s supports at most '
               '%(found)s.')
    title = 'Placement too old'
    code = errors.SERVICE_TOO_OLD


class PlacementClient:
    """A keystoneauth1 Adapter to Placement with versions and error mapping.

    :param adapter: an Adapter whose endpoint is the Placement API root.
    :param max_version: never use a microversion above this one, even if
        the server offers it (pin an old behaviour, or act as an old
        Placement in tests).

    ``calls`` counts the HTTP requests sent, keyed ``'<METHOD> <route>'``
    (for example ``'GET /allocation_candidates'``), for benchmarks.
    """

    def __init__(self, adapter: ks_adapter.Adapter, *,
                 max_version: str | Version | None = None) -> None:
        self._adapter = adapter
        self._cap = KNOWN_MAX_VERSION
        if max_version is not None:
            self._cap = min(self._cap, parse_version(max_version,
                                                     'max_version'))
        self._server_max: Version | None = None
        self.calls: collections.Counter = collections.Counter()

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts, group: str = 'placement'
                  ) -> 'PlacementClient':
        """A client for the ``[placement]`` keystoneauth1 options."""
        return cls(keystone.load_adapter(conf, group))

    @classmethod
    def from_session(cls, session: ks_session.Session,
                     **adapter_kwargs: object) -> 'PlacementClient':
        """A client on an existing Session (for example the caller's).

        ``adapter_kwargs`` go to the Adapter: ``region_name``,
        ``interface``, ``endpoint_override``...
        """
        return cls(ks_adapter.Adapter(session, service_type=SERVICE_TYPE,
                                      **adapter_kwargs))

    @classmethod
    def from_endpoint(cls, endpoint: str, token: str | None = None,
                      **kwargs: object) -> 'PlacementClient':
        """A client for a fixed endpoint and token, no Keystone."""
        return cls(noauth_adapter(endpoint, token), **kwargs)

    @property
    def endpoint(self) -> str:
        try:
            return self._adapter.get_endpoint() or '(unknown endpoint)'
        except ks_exc.ClientException:
            return '(unknown endpoint)'

    # -- microversions ------------------------------------------------------

    @property
    def server_max_version(self) -> Version:
        """The highest microversion the server offers (read once)."""
        if self._server_max is None:
            self._server_max = self._read_max_version()
        return self._server_max

    @property
    def max_version(self) -> Version:
        """The highest microversion this client will ask for."""
        return min(self.server_max_version, self._cap)

    def _read_max_version(self) -> Version:
        body = self.request('GET', '/', what='/').json()
        versions = body.get('versions') or [body.get('version') or {}]
        for version in versions:
            if version.get('max_version'):
                found = parse_version(version['max_version'])
                LOG.debug('Placement at %(url)s supports microversions '
                          '%(min)s to %(max)s',
                          {'url': self.endpoint,
                           'min': version.get('min_version'),
                           'max': version['max_version']})
                return found
        # a version document without microversions is Placement 1.0
        return (1, 0)

    def require(self, version: Version, feature: str) -> None:
        """Raise PlacementTooOld unless ``version`` can be used."""
        if version > self.max_version:
            raise PlacementTooOld(
                feature=feature, required=version_string(version),
                found=version_string(self.max_version),
                endpoint=self.endpoint)

    # -- requests ------------------------------------------------------------

    def request(self, method: str, path: str, *, what: str,
                microversion: Version | None = None, ok: tuple = (200,),
                kind: str = 'resource', id: str | None = None,
                **kwargs: object) -> requests.Response:
        """Send one request; return the response if its status is ``ok``.

        :param what: the route template, for ``calls`` and messages.
        :param kind: what the URL names, for NotFound/ConcurrentUpdate.
        :param id: its identifier, for the same.
        """
        self.calls[f'{method} {what}'] += 1
        if microversion is not None:
            kwargs['microversion'] = version_string(microversion)
        with keystone.transport_errors(SERVICE, f'{method} {what}'):
            resp = self._adapter.request(path, method, raise_exc=False,
                                         **kwargs)
        if resp.status_code in ok:
            return resp
        raise error_from_response(resp, f'{method} {what}', kind=kind,
                                  id=id or path)


def noauth_adapter(endpoint: str, token: str | None = None
                   ) -> ks_adapter.Adapter:
    """An Adapter sending a fixed token to a fixed endpoint.

    Placement's ``auth_strategy = noauth2`` wants ``x-auth-token``; the
    default token, ``admin``, gets the admin role there.
    """
    session = ks_session.Session(auth=token_endpoint.Token(
        endpoint, token or NOAUTH2_ADMIN_TOKEN))
    return ks_adapter.Adapter(session, service_type=SERVICE_TYPE,
                              endpoint_override=endpoint)


def error_details(resp: requests.Response) -> tuple[str | None, str]:
    """(code, detail) from a Placement error body, or (None, text)."""
    try:
        error = resp.json()['errors'][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return None, ' '.join(resp.text.split())[:500]
    # webob puts its generic explanation first and the detail last
    paragraphs = [p for p in (error.get('detail') or '').split('\n\n')
                  if p.strip()]
    detail = ' '.join(paragraphs[-1].split()) if paragraphs else \
        error.get('title', '')
    return error.get('code'), detail


def error_from_response(resp: requests.Response, call: str, *, kind: str,
                        id: str) -> exception.PlacementExtError:
    """The placement_ext exception for a Placement error response.

    The exception carries ``placement_code`` (Placement's own error code,
    or None) so callers can tell, for example, an inventory in use from a
    provider with allocations.
    """
    code, detail = error_details(resp)
    status = resp.status_code
    if status == 404:
        err = exception.NotFound(
            message=f'{kind} {id} could not be found in Placement '
                    f'({call}: {detail})', kind=kind, id=id)
    elif status == 409 and code == CONCURRENT_UPDATE_CODE:
        err = exception.ConcurrentUpdate(kind=kind, id=id)
    elif status == 409:
        err = exception.Conflict(
            reason=f'Placement refused {call}: {detail} (code {code})')
    elif status == 503:
        err = exception.ServiceUnavailable(service=SERVICE,
                                           reason=f'{call}: {detail}')
    else:
        err = exception.ServiceError(
            service=SERVICE,
            reason=f'{call} returned HTTP {status}: {detail} (code {code})')
    err.placement_code = code
    return err
