"""Tacker's VIM connection info (``vimConnectionInfo``) as a session.

Tacker keeps an OpenStack VIM as ``interfaceInfo.endpoint`` (Keystone
v3) and ``accessInfo`` ``username``, ``password``, ``project``,
``projectDomain``, ``userDomain`` and ``region``; both the infra driver
and the management driver reach the VIM's services through this one
helper.
"""

import functools
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


def shared_session(interface: Mapping, access: Mapping,
                   timeout: float | None = None) -> ks_session.Session:
    """:func:`vim_session`, one per VIM credentials and process: its
    token is kept, so a zone reselection does not wait for Keystone
    before its first call (keystoneauth renews it when it expires)."""
    return _session(interface.get('endpoint'),
                    tuple(access.get(key) for key in _ACCESS_KEYS), timeout)


@functools.lru_cache(maxsize=32)
def _session(endpoint: str | None, access: tuple, timeout: float | None
             ) -> ks_session.Session:
    return vim_session({'endpoint': endpoint},
                       dict(zip(_ACCESS_KEYS, access, strict=True)), timeout)


def required(holder: Mapping, key: str, where: str) -> str:
    """``holder[key]``, which a VIM must have."""
    if not holder.get(key):
        raise exception.InvalidInput(field=f'vimConnectionInfo {where}',
                                     reason=f'{key} is required')
    return holder[key]
