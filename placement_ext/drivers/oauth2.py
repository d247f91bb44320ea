"""OAuth 2.0 client credentials (RFC 6749 4.4) as a keystoneauth1 plugin.

An external NFVO (Tacker's ``[v2_nfvo] use_external_nfvo``, ETSI SOL 013)
wants a bearer token from its own token endpoint, not a Keystone token;
keystoneauth1's OAuth 2.0 plugins all end at Keystone. This plugin gets
the token with ``grant_type=client_credentials`` (client id and secret
in HTTP Basic, as Tacker's client sends them), keeps it until shortly
before ``expires_in`` (until a 401 when the endpoint gives none), and
drops it when the service answers 401 (the Session then asks again
once). Select it in a service group with::

    [nfvo]
    auth_type = oauth2_client_credentials
    token_endpoint = https://nfvo.example.org/token
    client_id = vnfm
    client_secret = ...
"""

import threading
import time
from collections.abc import Callable

from keystoneauth1 import loading
from keystoneauth1 import plugin
from keystoneauth1 import session as ks_session

from placement_ext import exception

# Renew this many seconds before the token expires, so that a request
# sent just before the expiry does not arrive with a dead token.
EXPIRY_MARGIN_S = 30
SERVICE = 'OAuth 2.0 token endpoint'


class ClientCredentials(plugin.BaseAuthPlugin):
    """Bearer token from an OAuth 2.0 token endpoint."""

    def __init__(self, token_endpoint: str, client_id: str,
                 client_secret: str, scope: str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.token_endpoint = token_endpoint
        self.client_id = client_id
        self.client_secret = client_secret
        self.scope = scope
        self._clock = clock
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expires_at = 0.0

    def get_headers(self, session: ks_session.Session,
                    **kwargs: object) -> dict:
        return {'Authorization': f'Bearer {self._current(session)}'}

    def invalidate(self) -> bool:
        with self._lock:
            self._token = None
        return True

    def _current(self, session: ks_session.Session) -> str:
        with self._lock:
            if self._token is None or self._clock() >= self._expires_at:
                self._token, lifetime = self._fetch(session)
                self._expires_at = self._clock() + max(
                    lifetime - EXPIRY_MARGIN_S, 0)
            return self._token

    def _fetch(self, session: ks_session.Session) -> tuple[str, float]:
        data = {'grant_type': 'client_credentials'}
        if self.scope:
            data['scope'] = self.scope
        resp = session.post(self.token_endpoint, data=data,
                            authenticated=False, raise_exc=False,
                            requests_auth=(self.client_id,
                                           self.client_secret),
                            headers={'Accept': 'application/json'})
        try:
            body = resp.json() if resp.status_code == 200 else {}
            # expires_in is only RECOMMENDED: without it, keep the token
            # until the service rejects it
            return body['access_token'], float(
                body.get('expires_in', 'inf'))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise exception.ServiceError(
                service=SERVICE,
                reason=f'{self.token_endpoint} gave no access_token (HTTP '
                       f'{resp.status_code}: '
                       f'{" ".join(resp.text.split())[:200]})')


class Loader(loading.BaseLoader):
    """``auth_type = oauth2_client_credentials`` (setup.cfg entry point)."""

    @property
    def plugin_class(self) -> type:
        return ClientCredentials

    def get_options(self) -> list:
        return [
            loading.Opt('token-endpoint', required=True,
                        help='OAuth 2.0 token endpoint URL.'),
            loading.Opt('client-id', required=True,
                        help='OAuth 2.0 client identifier.'),
            loading.Opt('client-secret', required=True, secret=True,
                        help='OAuth 2.0 client secret.'),
            loading.Opt('scope', help='Scope to request (optional).'),
        ]
