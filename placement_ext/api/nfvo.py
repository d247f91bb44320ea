"""SOL 003 NFVO interfaces of placement-ext-nfvo, for a VNFM such as
Tacker (``[v2_nfvo] use_external_nfvo``):

- ``POST /token``: OAuth 2.0 client credentials (HTTP Basic, or the
  ``client_id``/``client_secret`` form fields) -> a bearer token;
- ``POST /grant/v1/grants``: a GrantRequest -> ``201`` and the Grant our
  evaluator decides (``Location``: ``/grant/v1/grants/{id}``), ``403``
  when it refuses; ``GET /grant/v1/grants/{id}`` shows a Grant given;
- ``GET /vnfpkgm/v2/onboarded_vnf_packages/{vnfdId}`` and its
  ``/package_content`` and ``/vnfd``: the package reads a VNFM makes of
  its NFVO, answered from Tacker's own package API.

Every error body is a SOL 013 ProblemDetails (``application/problem+json``)
except the token endpoint's, which are RFC 6749's. Request handling only:
the Grant is :func:`placement_ext.decision.grant_evaluator.evaluate` on
the cloud view the caller's ``decide`` builds.
"""

import base64
import binascii
import hmac
import json
import re
import secrets
import threading
import time
import urllib.parse
import uuid
from collections.abc import Callable

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.sol import grant_request

LOG = logging.getLogger(__name__)

MAX_BODY = 16 * 1024 * 1024
GRANTS = '/grant/v1/grants'
_GRANT = re.compile(r'^/grant/v1/grants/(?P<id>[A-Za-z0-9-]{1,64})$')
_PACKAGE = re.compile(r'^/vnfpkgm/v2/onboarded_vnf_packages/'
                      r'(?P<vnfd>[A-Za-z0-9._-]{1,255})'
                      r'(?P<part>/package_content|/vnfd)?$')
_KEEP_GRANTS = 1000
_STATUS_TEXT = {200: 'OK', 201: 'Created', 400: 'Bad Request',
                401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
                405: 'Method Not Allowed', 413: 'Payload Too Large',
                500: 'Internal Server Error', 503: 'Service Unavailable'}
_HTTP_STATUS = ((exception.GrantRefused, 403), (exception.InvalidInput, 400),
                (exception.NotFound, 404),
                (exception.ServiceUnavailable, 503),
                (exception.ServiceError, 503))

# decide(request, grant_id, grant_href) -> the Grant (a dict);
# raises GrantRefused with the evaluator's reason.
Decide = Callable[[grant_request.GrantRequest, str, str], dict]


class _Reply(Exception):
    def __init__(self, status: int, body: object,
                 content_type: str = 'application/json',
                 headers: tuple = ()) -> None:
        super().__init__(status)
        self.status, self.body = status, body
        self.content_type, self.headers = content_type, list(headers)


def problem(status: int, detail: str, title: str | None = None) -> _Reply:
    return _Reply(status, {'status': status, 'detail': detail,
                           'title': title or _STATUS_TEXT[status]},
                  'application/problem+json')


class NfvoApp:
    """WSGI application of the NFVO interfaces.

    :param packages: :class:`placement_ext.drivers.vnfpkgm.VnfPackages`.
    """

    def __init__(self, decide: Decide, packages: object, *, client_id: str,
                 client_secret: str, token_lifetime: int = 3600,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._decide = decide
        self._packages = packages
        self._client = (client_id, client_secret)
        self._lifetime = token_lifetime
        self._clock = clock
        self._tokens: dict[str, float] = {}
        self._grants: dict[str, dict] = {}
        self._lock = threading.Lock()

    def __call__(self, environ: dict, start_response: Callable) -> list:
        try:
            reply = self._route(environ)
        except _Reply as replied:
            reply = replied
        except exception.PlacementExtError as exc:
            status = next((code for kind, code in _HTTP_STATUS
                           if isinstance(exc, kind)), 500)
            reply = problem(status, exc.detail, exc.title)
        except Exception:
            LOG.exception('NFVO request failed')
            reply = problem(500, 'unexpected error; see the NFVO log')
        body = reply.body if isinstance(reply.body, bytes) else \
            json.dumps(reply.body).encode()
        start_response(f'{reply.status} {_STATUS_TEXT[reply.status]}', [
            ('Content-Type', reply.content_type),
            ('Content-Length', str(len(body))), *reply.headers])
        return [body]

    def _route(self, environ: dict) -> _Reply:
        method, path = environ['REQUEST_METHOD'], environ['PATH_INFO']
        if path == '/token':
            _allow(method, 'POST')
            return self._token(environ)
        self._authorize(environ)
        if path == GRANTS:
            _allow(method, 'POST')
            return self._grant(environ)
        match = _GRANT.match(path)
        if match:
            _allow(method, 'GET')
            with self._lock:
                grant = self._grants.get(match['id'])
            if grant is None:
                raise problem(404, f'no Grant {match["id"]}')
            return _Reply(200, grant)
        match = _PACKAGE.match(path)
        if match:
            _allow(method, 'GET')
            return self._package(match['vnfd'], match['part'])
        raise problem(404, f'no resource {path}')

    # -- OAuth 2.0 ------------------------------------------------------

    def _token(self, environ: dict) -> _Reply:
        form = urllib.parse.parse_qs(_body(environ).decode(errors='replace'))
        if form.get('grant_type') != ['client_credentials']:
            raise _Reply(400, {'error': 'unsupported_grant_type'})
        client = _basic(environ) or (form.get('client_id', [''])[0],
                                     form.get('client_secret', [''])[0])
        if not all(hmac.compare_digest(given, wanted) for given, wanted
                   in zip(client, self._client, strict=True)):
            raise _Reply(401, {'error': 'invalid_client'}, headers=[
                ('WWW-Authenticate', 'Basic realm="placement-ext-nfvo"')])
        token = secrets.token_urlsafe(32)
        with self._lock:
            now = self._clock()
            self._tokens = {t: exp for t, exp in self._tokens.items()
                            if exp > now}
            self._tokens[token] = now + self._lifetime
        return _Reply(200, {'access_token': token, 'token_type': 'Bearer',
                            'expires_in': self._lifetime})

    def _authorize(self, environ: dict) -> None:
        header = environ.get('HTTP_AUTHORIZATION', '')
        token = header[7:] if header.startswith('Bearer ') else ''
        with self._lock:
            expires = self._tokens.get(token, 0)
        if expires <= self._clock():
            raise problem(401, 'a valid OAuth 2.0 bearer token is required '
                               '(POST /token)')

    # -- Grant ----------------------------------------------------------

    def _grant(self, environ: dict) -> _Reply:
        try:
            data = json.loads(_body(environ))
        except ValueError as exc:
            raise problem(400, f'the body is not JSON: {exc}')
        request = grant_request.parse(data)
        grant_id = str(uuid.uuid4())
        grant = self._decide(request, grant_id, f'{GRANTS}/{grant_id}')
        with self._lock:
            self._grants[grant_id] = grant
            while len(self._grants) > _KEEP_GRANTS:
                self._grants.pop(next(iter(self._grants)))
        LOG.info('Grant %(id)s for %(op)s of VNF %(vnf)s', {
            'id': grant_id, 'op': request.operation,
            'vnf': request.vnf_instance_id})
        return _Reply(201, grant, headers=[('Location',
                                            f'{GRANTS}/{grant_id}')])

    # -- packages -------------------------------------------------------

    def _package(self, vnfd_id: str, part: str | None) -> _Reply:
        if part == '/package_content':
            return _Reply(200, self._packages.content(vnfd_id),
                          'application/zip')
        if part == '/vnfd':
            return _Reply(200, self._packages.vnfd(vnfd_id),
                          'application/zip')
        info = dict(self._packages.info(vnfd_id))
        base = f'/vnfpkgm/v2/onboarded_vnf_packages/{vnfd_id}'
        info['_links'] = {
            'self': {'href': base}, 'vnfd': {'href': f'{base}/vnfd'},
            'packageContent': {'href': f'{base}/package_content'}}
        return _Reply(200, info)


def _allow(method: str, allowed: str) -> None:
    if method != allowed:
        raise _Reply(405, {'status': 405, 'title': 'Method Not Allowed',
                           'detail': f'use {allowed}'},
                     'application/problem+json', [('Allow', allowed)])


def _body(environ: dict) -> bytes:
    try:
        length = int(environ.get('CONTENT_LENGTH') or 0)
    except ValueError:
        length = 0
    if length > MAX_BODY:
        raise problem(413, f'the body is larger than {MAX_BODY} bytes')
    return environ['wsgi.input'].read(length) if length else b''


def _basic(environ: dict) -> tuple[str, str] | None:
    header = environ.get('HTTP_AUTHORIZATION', '')
    if not header.startswith('Basic '):
        return None
    try:
        user, _, password = base64.b64decode(header[6:]).decode().partition(
            ':')
    except (binascii.Error, UnicodeDecodeError):
        return None
    return urllib.parse.unquote(user), urllib.parse.unquote(password)
