"""Tacker's VIM connection info (``vimConnectionInfo``) as a session.

Tacker keeps an OpenStack VIM as ``interfaceInfo.endpoint`` (Keystone
v3) and ``accessInfo`` ``username``, ``password``, ``project``,
``projectDomain``, ``userDomain`` and ``region``; both the infra driver
and the management driver reach the VIM's services through this one
helper.
"""

import collections
import hashlib
import hmac
import json
import secrets
import threading
from collections.abc import Mapping

from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3 as ks_v3

from placement_ext import exception

DEFAULT_DOMAIN = 'Default'
_ACCESS_KEYS = ('username', 'password', 'project', 'projectDomain',
                'userDomain')


def vim_session(interface: Mapping, access: Mapping,
                timeout: float | None = None) -> ks_session.Session:
    """A Keystone session with the VIM's credentials, as Tacker's own
    Heat and Nova clients use them (domains default to ``Default``).

    :raises InvalidInput: the endpoint or a credential is missing.
    """
    auth = ks_v3.Password(
        auth_url=required(interface, 'endpoint', 'interfaceInfo'),
        username=required(access, 'username', 'accessInfo'),
        password=required(access, 'password', 'accessInfo'),
        project_name=required(access, 'project', 'accessInfo'),
        project_domain_name=access.get('projectDomain') or DEFAULT_DOMAIN,
        user_domain_name=access.get('userDomain') or DEFAULT_DOMAIN)
    return ks_session.Session(auth=auth, timeout=timeout)


class Sessions:
    """:func:`vim_session`, one per VIM credentials, kept for the life of
    their owner (tacker-conductor's :class:`~placement_ext.adapters.
    tacker.driver.Runtime`): its token is kept, so a zone reselection does
    not wait for Keystone before its first call (keystoneauth renews it
    when it expires).

    The sessions are keyed by a keyed hash of the credentials (HMAC with
    a key of this object's own), so no password is kept as a key, nor one
    that could be checked against a guess outside this process.
    """

    MAX = 32

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)
        self._lock = threading.Lock()
        self._sessions: collections.OrderedDict[
            str, ks_session.Session] = collections.OrderedDict()

    def get(self, interface: Mapping, access: Mapping,
            timeout: float | None = None) -> ks_session.Session:
        """The VIM's session (see :func:`vim_session`).

        :raises InvalidInput: the endpoint or a credential is missing.
        """
        key = self.key(interface, access, timeout)
        with self._lock:
            if key in self._sessions:
                self._sessions.move_to_end(key)
                return self._sessions[key]
        session = vim_session(interface, access, timeout)
        with self._lock:
            session = self._sessions.setdefault(key, session)
            while len(self._sessions) > self.MAX:
                self._sessions.popitem(last=False)
        return session

    def key(self, interface: Mapping, access: Mapping,
            timeout: float | None) -> str:
        """The credentials' keyed hash."""
        parts = [interface.get('endpoint'), timeout,
                 *(access.get(name) for name in _ACCESS_KEYS)]
        return hmac.new(self._key, json.dumps(parts).encode(),
                        hashlib.sha256).hexdigest()


def required(holder: Mapping, key: str, where: str) -> str:
    """``holder[key]``, which a VIM must have."""
    if not holder.get(key):
        raise exception.InvalidInput(field=f'vimConnectionInfo {where}',
                                     reason=f'{key} is required')
    return holder[key]
