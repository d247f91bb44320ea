"""NFVO driver: the Grant interface of ETSI NFV-SOL 003 (v3.3.1).

``POST {endpoint}/grant/v1/grants`` with a GrantRequest. The NFVO answers
``201 Created`` with the Grant (synchronous), or ``202 Accepted`` with a
``Location`` to poll until it answers ``200``/``201`` with the Grant
(asynchronous); ``403 Forbidden`` with ProblemDetails is a refusal. Tacker
accepts only the synchronous form; both are SOL 003.

The ``[nfvo]`` group gives the endpoint (``endpoint_override``) and the
keystoneauth1 auth plugin (``none``, ``http_basic``, ``password``, or
``oauth2_client_credentials`` from :mod:`placement_ext.drivers.oauth2`).
"""

import time
from collections.abc import Callable
from typing import NoReturn

import requests
from keystoneauth1 import adapter as ks_adapter
from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import exception
from placement_ext import polling
from placement_ext.drivers import keystone
from placement_ext.sol import grant as grant_mod

LOG = logging.getLogger(__name__)
SERVICE = 'NFVO'
GRANTS = '/grant/v1/grants'


class NfvoDriver:
    """Requests Grants; one instance per conductor."""

    def __init__(self, adapter: ks_adapter.Adapter, api_version: str,
                 timeout_s: float, poll_interval_s: float = 2.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._adapter = adapter
        self._headers = {'Version': api_version, 'Accept': 'application/json'}
        self._timeout_s = timeout_s
        self._poll_interval_s = poll_interval_s
        self._sleep = sleep

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> 'NfvoDriver':
        opts = conf.nfvo
        return cls(keystone.load_adapter(conf, 'nfvo'),
                   opts.grant_api_version, opts.grant_timeout)

    def grant(self, grant_request: dict) -> grant_mod.Grant:
        """Send a GrantRequest; return the validated Grant.

        :raises GrantRefused: the NFVO refused (403), with its detail.
        :raises ServiceError: any other answer, or no Grant in time.
        :raises ServiceUnavailable: the NFVO cannot be reached.
        """
        resp = self._send('POST', GRANTS, json=grant_request)
        if resp.status_code == 202:
            resp = self._poll(resp.headers.get('Location'))
        elif resp.status_code != 201:
            self._refuse(resp, f'POST {GRANTS}')
        try:
            return grant_mod.parse(resp.json())
        except (ValueError, exception.InvalidInput) as exc:
            raise exception.ServiceError(
                service=SERVICE, reason=f'its Grant is not valid: {exc}')

    def _poll(self, location: str | None) -> requests.Response:
        if not location:
            raise exception.ServiceError(
                service=SERVICE, reason='202 Accepted without a Location')

        def granted() -> requests.Response | None:
            resp = self._send('GET', location)
            if resp.status_code in (200, 201):
                return resp
            if resp.status_code != 202:
                self._refuse(resp, f'GET {location}')
            return None

        resp = polling.until(granted, timeout=self._timeout_s,
                             interval=self._poll_interval_s,
                             sleep=self._sleep)
        if resp is None:
            raise exception.ServiceError(
                service=SERVICE,
                reason=f'no Grant at {location} after '
                       f'{self._timeout_s:g} s ([nfvo] grant_timeout)')
        return resp

    def _send(self, method: str, path: str, **kwargs: object
              ) -> requests.Response:
        with keystone.transport_errors(SERVICE, f'{method} {path}'):
            return self._adapter.request(path, method, raise_exc=False,
                                         headers=self._headers, **kwargs)

    @staticmethod
    def _refuse(resp: requests.Response, call: str) -> NoReturn:
        detail = _problem_detail(resp)
        if resp.status_code == 403:
            raise exception.GrantRefused(reason=f'the NFVO says: {detail}')
        raise exception.ServiceError(
            service=SERVICE,
            reason=f'{call} returned HTTP {resp.status_code}: {detail}')


def _problem_detail(resp: requests.Response) -> str:
    """ProblemDetails ``detail`` (or ``title``), else the body's text."""
    try:
        problem = resp.json()
        return str(problem.get('detail') or problem['title'])
    except (ValueError, KeyError, TypeError, AttributeError):
        return ' '.join(resp.text.split())[:500] or resp.reason or ''
