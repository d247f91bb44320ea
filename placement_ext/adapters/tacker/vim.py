"""Tacker's VIM connection info (``vimConnectionInfo``) as a session.

Tacker keeps an OpenStack VIM as ``interfaceInfo.endpoint`` (Keystone
v3) and ``accessInfo`` ``username``, ``password``, ``project``,
``projectDomain``, ``userDomain`` and ``region``; both the infra driver
and the management driver reach the VIM's services through this one
helper.

Certificates are verified, and Heat authenticated, as Tacker's own Heat
and Nova clients do (``tacker/sol_refactored/infra_drivers/openstack/
heat_utils.py`` and ``nova_utils.py``): by ``[v2_vnfm]`` options with
Tacker's names (:class:`Tls`), not by anything in the VIM. Heat has its
session, Nova and Placement theirs; when the two settings agree they are
one session, with one token.
"""

import collections
import dataclasses
import hashlib
import hmac
import json
import secrets
import threading
from collections.abc import Mapping

from keystoneauth1 import plugin as ks_plugin
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3 as ks_v3

from placement_ext import exception

DEFAULT_DOMAIN = 'Default'
_ACCESS_KEYS = ('username', 'password', 'project', 'projectDomain',
                'userDomain')


HEAT = 'heat'
NOVA = 'nova'   # and Placement, which Tacker does not use


def _verify(verify_cert: bool, ca_cert_file: str) -> bool | str:
    """keystoneauth's ``verify`` as Tacker derives it from a pair of
    options: the CA file when verifying and one is named."""
    return (ca_cert_file or True) if verify_cert else False


@dataclasses.dataclass(frozen=True)
class Mtls:
    """Heat reached with an OAuth 2.0 token got by mutual TLS."""

    verify: bool | str
    client_cert: str


@dataclasses.dataclass(frozen=True)
class Tls:
    """How each service of the VIM is reached (Tacker's defaults: no
    certificate verified, Heat by the VIM's password)."""

    heat_verify: bool | str = False
    nova_verify: bool | str = False
    heat_mtls: Mtls | None = None

    @classmethod
    def from_conf(cls, conf: object) -> 'Tls':
        """From ``[v2_vnfm]``, as Tacker reads the same options."""
        group = conf.v2_vnfm
        mtls = Mtls(group.heat_mtls_ca_cert_file or True,
                    group.heat_mtls_client_cert_file) \
            if group.use_oauth2_mtls_for_heat else None
        return cls(_verify(group.heat_verify_cert, group.heat_ca_cert_file),
                   _verify(group.nova_verify_cert, group.nova_ca_cert_file),
                   mtls)

    def verify(self, service: str) -> bool | str:
        return self.heat_verify if service == HEAT else self.nova_verify


def vim_session(interface: Mapping, access: Mapping,
                timeout: float | None = None,
                verify: bool | str = False) -> ks_session.Session:
    """A Keystone session with the VIM's credentials, as Tacker's own
    Heat and Nova clients use them (domains default to ``Default``).

    :param verify: keystoneauth's: False, True or a CA file
        (:meth:`Tls.verify`).
    :raises InvalidInput: the endpoint or a credential is missing.
    """
    auth = ks_v3.Password(
        auth_url=required(interface, 'endpoint', 'interfaceInfo'),
        username=required(access, 'username', 'accessInfo'),
        password=required(access, 'password', 'accessInfo'),
        project_name=required(access, 'project', 'accessInfo'),
        project_domain_name=access.get('projectDomain') or DEFAULT_DOMAIN,
        user_domain_name=access.get('userDomain') or DEFAULT_DOMAIN)
    return ks_session.Session(auth=auth, timeout=timeout, verify=verify)


def mtls_session(interface: Mapping, access: Mapping, mtls: Mtls,
                 timeout: float | None = None) -> ks_session.Session:
    """Heat's session under ``[v2_vnfm] use_oauth2_mtls_for_heat``:
    Tacker's own auth plugin (a token from ``tokenEndpoint`` for client
    ``username`` on every request, Heat at ``heatEndpoint``).

    :raises InvalidInput: an endpoint or the client id is missing.
    """
    # Tacker's module, imported here: only tacker-conductor builds this
    from tacker.sol_refactored.common import http_client
    auth: ks_plugin.BaseAuthPlugin = http_client.OAuth2MtlsAuthPlugin(
        required(interface, 'heatEndpoint', 'interfaceInfo'),
        required(interface, 'tokenEndpoint', 'interfaceInfo'),
        required(access, 'username', 'accessInfo'),
        mtls.verify, mtls.client_cert)
    return ks_session.Session(auth=auth, timeout=timeout,
                              verify=mtls.verify, cert=mtls.client_cert)


class Sessions:
    """:func:`vim_session`, one per VIM credentials, kept for the life of
    their owner (tacker-conductor's :class:`~placement_ext.adapters.
    tacker.driver.Runtime`): its token is kept, so a zone reselection does
    not wait for Keystone before its first call (keystoneauth renews it
    when it expires).

    The sessions are keyed by a keyed hash of the credentials and the
    TLS settings (HMAC with a key of this object's own), so no password
    is kept as a key, nor one that could be checked against a guess
    outside this process.

    :param tls: how each service is reached (default: Tacker's defaults).
    """

    MAX = 32

    def __init__(self, tls: Tls | None = None) -> None:
        self.tls = tls or Tls()
        self._key = secrets.token_bytes(32)
        self._lock = threading.Lock()
        self._sessions: collections.OrderedDict[
            str, ks_session.Session] = collections.OrderedDict()

    def get(self, interface: Mapping, access: Mapping,
            timeout: float | None = None,
            service: str = NOVA) -> ks_session.Session:
        """The VIM's session for ``service`` (:data:`HEAT`, or
        :data:`NOVA` for Nova and Placement): :func:`mtls_session` for
        Heat under OAuth 2.0 mTLS, else :func:`vim_session`.

        :raises InvalidInput: the endpoint or a credential is missing.
        """
        mtls = self.tls.heat_mtls if service == HEAT else None
        key = self.key(interface, access, timeout, service)
        with self._lock:
            if key in self._sessions:
                self._sessions.move_to_end(key)
                return self._sessions[key]
        session = mtls_session(interface, access, mtls, timeout) if mtls \
            else vim_session(interface, access, timeout,
                             self.tls.verify(service))
        with self._lock:
            session = self._sessions.setdefault(key, session)
            while len(self._sessions) > self.MAX:
                self._sessions.popitem(last=False)
        return session

    def key(self, interface: Mapping, access: Mapping,
            timeout: float | None, service: str = NOVA) -> str:
        """The keyed hash of the credentials and how ``service`` is
        reached (Heat and Nova share a key when they agree)."""
        how = dataclasses.asdict(self.tls.heat_mtls) \
            if service == HEAT and self.tls.heat_mtls \
            else self.tls.verify(service)
        parts = [interface.get('endpoint'), interface.get('heatEndpoint'),
                 interface.get('tokenEndpoint'), timeout, how,
                 *(access.get(name) for name in _ACCESS_KEYS)]
        return hmac.new(self._key, json.dumps(parts).encode(),
                        hashlib.sha256).hexdigest()


def required(holder: Mapping, key: str, where: str) -> str:
    """``holder[key]``, which a VIM must have."""
    if not holder.get(key):
        raise exception.InvalidInput(field=f'vimConnectionInfo {where}',
                                     reason=f'{key} is required')
    return holder[key]
