"""The HTTP layer of ``placement-ext-nfvo`` and ``placement-ext-homing-api``.

On WebOb, as OpenStack Placement is. One place for what both APIs must do
the same way:

- routing: a path pattern and its methods; ``404`` for an unknown path,
  ``405`` with ``Allow`` for a known path and another method;
- a request id (oslo.middleware's ``RequestId``): answered in the
  ``x-openstack-request-id`` header and carried, as oslo.log's
  ``request_id``, by every log line written for the request;
- the order of work on a request: the body size is checked first
  (oslo.middleware's ``RequestBodySizeLimiter``: the declared length, or
  a chunked body read no further than the limit), then the caller's
  credentials, then the route's handler, so an unauthenticated caller
  can make us neither read nor keep a large body (the server,
  :class:`placement_ext.api.server.HttpServer`, has already bounded
  time, connections and the body size on the wire);
- the body read and decoded once (:func:`read_json`, :func:`read_form`),
  with the API's size limit; JSON nested too deeply is a ``400``;
- credentials compared as bytes in constant time, whatever characters
  the caller sends (:func:`same_secret`);
- one exception-to-status map, :data:`STATUS`, and one error formatter,
  :func:`error_response`.

The status of our errors (:data:`STATUS`, first match wins):

- ``InvalidInput`` 400, ``GrantRefused`` 403, ``NotFound`` 404,
  ``Conflict`` 409;
- ``ServiceUnavailable`` 503: a service we need cannot be reached; the
  caller may try again later;
- ``ServiceError`` 502 Bad Gateway: a service we depend on answered with
  an error, or with something that is not its API (an HTML page for
  JSON). Not 500: nothing is wrong in this process and its log has no
  traceback to read. Not 503: nothing says that trying again will help.
  502 is what HTTP gives a server whose own upstream answered badly;
- anything else 500, its traceback logged, no detail in the answer.

Error bodies have one of three styles, by what the caller's
specification expects: ``problem`` (SOL 013 ProblemDetails, RFC 7807),
``has`` (ONAP OOF-HAS ``{"error": {...}}``) and ``oauth`` (RFC 6749
section 5.2).
"""

import base64
import binascii
import hmac
import json
import re
import urllib.parse
from collections.abc import Callable
from collections.abc import Iterable

import webob
import webob.dec
import webob.exc
from oslo_config import cfg
from oslo_log import log as logging
from oslo_middleware import request_id
from oslo_middleware import sizelimit

from placement_ext import context as pe_context
from placement_ext import errors
from placement_ext import exception
from placement_ext.schemas import validate

LOG = logging.getLogger(__name__)

STATUS: tuple[tuple[type, int], ...] = (
    (exception.InvalidInput, 400),
    (exception.GrantRefused, 403),
    (exception.NotFound, 404),
    (exception.Conflict, 409),
    (exception.ServiceUnavailable, 503),
    (exception.ServiceError, 502),
)

PROBLEM, HAS, OAUTH = 'problem', 'has', 'oauth'
_DIGITS = re.compile(r'^[0-9]{1,20}$')


class ApiError(Exception):
    """An error answer: status, title and detail, and optionally a
    stable ``code``, the request ``field`` at fault, extra headers and
    the body ``style`` (default: the API's)."""

    def __init__(self, status: int, detail: str, *, title: str | None = None,
                 code: str | None = None, field: str | None = None,
                 headers: Iterable[tuple[str, str]] = (),
                 style: str | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail = status, exception.shorten(detail)
        self.title = title or webob.Response(status=status).status[4:]
        self.code = code or f'placement_ext.http.{status}'
        self.field, self.headers = field, list(headers)
        self.style = style

    @classmethod
    def of(cls, exc: exception.PlacementExtError) -> 'ApiError':
        status = next((code for kind, code in STATUS
                       if isinstance(exc, kind)), 500)
        return cls(status, exc.detail, title=exc.title, code=exc.code,
                   field=getattr(exc, 'field', None))


def error_response(error: ApiError, style: str) -> webob.Response:
    """The one error formatter: ``error`` as a response in ``style``."""
    style = error.style or style
    if style == PROBLEM:
        body = {'status': error.status, 'title': error.title,
                'detail': error.detail}
        content_type = 'application/problem+json'
    elif style == OAUTH:
        body = {'error': error.code, 'error_description': error.detail}
        content_type = 'application/json'
    else:
        body = {'error': {'code': error.code, 'title': error.title,
                          'message': error.detail}}
        if error.field:
            body['error']['field'] = error.field
        content_type = 'application/json'
    return json_response(error.status, body, content_type, error.headers)


def json_response(status: int, body: object,
                  content_type: str = 'application/json',
                  headers: Iterable[tuple[str, str]] = ()) -> webob.Response:
    response = webob.Response(status=status, content_type=content_type,
                              charset=None, body=json.dumps(body).encode())
    for name, value in headers:
        response.headers[name] = value
    return response


Handler = Callable[..., webob.Response]


class Route:
    """A path pattern (its named groups become keyword arguments of the
    handler) and a handler per method. ``public`` routes are answered
    without the API's credentials (they check their own); ``max_body``
    is their body limit when smaller than the API's."""

    def __init__(self, pattern: str, public: bool = False,
                 max_body: int | None = None, **methods: Handler) -> None:
        self.pattern = re.compile(pattern)
        self.methods = methods
        self.public = public
        self.max_body = max_body


class Api:
    """A WSGI application made of :class:`Route` objects.

    :param style: the error body style of this API.
    :param max_body: the largest request body accepted, in bytes.
    """

    name = 'API'

    def __init__(self, routes: list[Route], *, style: str,
                 max_body: int) -> None:
        self.routes = routes
        self.style = style
        self.max_body = max_body
        # the middleware, outermost first: the request id, then our
        # handling (size limit, credentials, handler, error body); the
        # size limit runs inside it, per route, so that its 413 has the
        # API's error style and comes before the credentials are checked
        self._app = request_id.RequestId(self._handle)

    def authenticate(self, request: webob.Request) -> None:
        """:raises ApiError: 401 when the caller's credentials are not
        good (default: every caller is)."""

    def __call__(self, environ: dict, start_response: Callable) -> object:
        return self._app(environ, start_response)

    @webob.dec.wsgify
    def _handle(self, request: webob.Request) -> webob.Response:
        # this thread's current context: oslo.log writes its request id
        # on every line logged for the request
        pe_context.RequestContext(
            request_id=request.environ.get(request_id.ENV_REQUEST_ID),
            global_request_id=request.environ.get(request_id.GLOBAL_REQ_ID),
            overwrite=True)
        response = self._answer(request)
        # the access log line (the server writes none)
        LOG.info('%(client)s "%(method)s %(path)s" %(status)s', {
            'client': request.client_addr, 'method': request.method,
            # escaped: a path may hold newlines or any byte
            'path': exception.shorten(
                ascii(request.environ.get('PATH_INFO', ''))[1:-1], 300),
            'status': response.status_int})
        return response

    def _answer(self, request: webob.Request) -> webob.Response:
        try:
            route, args = self._route(request)
            handler = route.methods.get(request.method)
            if handler is None:
                allowed = ', '.join(sorted(route.methods))
                raise ApiError(405, f'{request.method} is not allowed here; '
                                    f'use {allowed}',
                               code='placement_ext.method_not_allowed',
                               headers=[('Allow', allowed)])
            return handler(request, **args)
        except ApiError as error:
            return error_response(error, self.style)
        except exception.PlacementExtError as exc:
            return error_response(ApiError.of(exc), self.style)
        except Exception:
            LOG.exception('%s request %s %s failed', self.name,
                          request.method, request.path_info)
            return error_response(ApiError(
                500, f'unexpected error; see the {self.name} log',
                code=errors.INTERNAL), self.style)

    def _route(self, request: webob.Request) -> tuple[Route, dict]:
        """The route of the request, once its declared body size is
        within the route's limit and its caller authenticated (unless
        the route is public), in that order."""
        try:
            path = request.path_info or '/'
        except UnicodeDecodeError:  # WSGI gives the path as latin-1
            raise ApiError(400, 'the path is not UTF-8 text', field='path',
                           code=errors.INVALID_INPUT)
        for route in self.routes:
            match = route.pattern.match(path)
            if match:
                body_length(request, route.max_body or self.max_body)
                if not route.public:
                    self.authenticate(request)
                return route, match.groupdict()
        body_length(request, self.max_body)
        self.authenticate(request)
        raise ApiError(404, f'no resource {path}',
                       code=errors.NOT_FOUND)


def body_length(request: webob.Request, limit: int) -> int | None:
    """The declared body length; None when the body is chunked (it is
    then read through oslo.middleware's ``LimitingReader``).

    :raises ApiError: 400 for a Content-Length that is not a number of
        bytes, 413 above ``limit``.
    """
    declared = request.environ.get('CONTENT_LENGTH') or None
    if declared is not None and not _DIGITS.match(declared):
        raise ApiError(400, 'Content-Length must be a number of bytes',
                       field='Content-Length', code=errors.INVALID_INPUT)
    chunked = declared is None and 'chunked' in request.headers.get(
        'Transfer-Encoding', '').lower()
    if chunked:
        # a body without a length is empty to webob unless the server
        # says its input ends (waitress does); a chunked one does end
        request.is_body_readable = True
    if request.get_response(_size_limiter(limit)).status_int == 413:
        raise too_large(limit)
    if declared is None:
        return None if chunked else 0
    return int(declared)


def _size_limiter(limit: int) -> sizelimit.RequestBodySizeLimiter:
    """oslo.middleware's size limit of ``limit`` bytes in front of an
    application that accepts; on a ConfigOpts of its own, as the limit
    is a per-API (and per-route) value, not a process-wide option."""
    limiter = _LIMITERS.get(limit)
    if limiter is None:
        conf = cfg.ConfigOpts()
        limiter = sizelimit.RequestBodySizeLimiter(_accepted, conf)
        conf.set_override('max_request_body_size', limit,
                          group='oslo_middleware')
        limiter = _LIMITERS.setdefault(limit, limiter)
    return limiter


@webob.dec.wsgify
def _accepted(request: webob.Request) -> webob.Response:
    return webob.Response(status=204)


# one limiter per limit in use (a few: each API's and its routes')
_LIMITERS: dict[int, sizelimit.RequestBodySizeLimiter] = {}


def too_large(limit: int) -> ApiError:
    return ApiError(413, f'the body must be at most {limit} bytes',
                    code='placement_ext.input.too_large', field='body')


def read_body(request: webob.Request, limit: int) -> bytes:
    """The request body, never more than ``limit`` bytes read.

    :raises ApiError: 413 when the body is larger.
    """
    length = body_length(request, limit)
    stream = request.environ['wsgi.input']
    try:
        if length is None:  # chunked: one byte past the limit at most
            return stream.read(limit + 1)
        return stream.read(length) if length else b''
    except webob.exc.HTTPRequestEntityTooLarge:
        raise too_large(limit)


def read_json(request: webob.Request, limit: int,
              what: str = 'body') -> object:
    """The body as JSON, no deeper than ``validate.MAX_DEPTH`` levels.

    :raises InvalidInput: not JSON, not UTF-8 or nested too deeply.
    """
    raw = read_body(request, limit)
    try:
        document = json.loads(raw)
    except RecursionError:
        raise exception.InvalidInput(
            field=what, reason=f'is nested too deeply (at most '
                               f'{validate.MAX_DEPTH} levels of objects '
                               f'and arrays are accepted)')
    except ValueError as exc:  # UnicodeDecodeError is a ValueError
        raise exception.InvalidInput(field=what, reason=f'is not JSON: {exc}')
    validate.check_document(document, what)
    return document


def read_form(request: webob.Request, limit: int) -> dict[str, bytes]:
    """An ``application/x-www-form-urlencoded`` body: the first value of
    each field, as bytes (a secret may be in any encoding)."""
    raw = read_body(request, limit)
    form = {}
    for pair in raw.split(b'&'):
        name, _, value = pair.partition(b'=')
        form.setdefault(unquote(name).decode('utf-8', 'replace'),
                        unquote(value))
    return form


def unquote(raw: bytes) -> bytes:
    """A form-urlencoded value, decoded to its bytes."""
    return urllib.parse.unquote_to_bytes(raw.replace(b'+', b' '))


def basic_credentials(request: webob.Request
                      ) -> tuple[bytes, bytes] | None:
    """``(user, password)`` of an HTTP Basic ``Authorization``, as bytes;
    None when there is none or it cannot be decoded."""
    scheme, _, encoded = request.headers.get('Authorization', '') \
        .partition(' ')
    if scheme.lower() != 'basic':
        return None
    try:
        raw = base64.b64decode(encoded.strip(), validate=True)
    except (binascii.Error, ValueError):  # ValueError: not ASCII
        return None
    user, colon, password = raw.partition(b':')
    return (user, password) if colon else None


def same_secret(given: bytes | str, wanted: str) -> bool:
    """Whether ``given`` is ``wanted``, in constant time, compared as
    UTF-8 bytes: ``hmac.compare_digest`` refuses non-ASCII text."""
    if isinstance(given, str):
        given = given.encode('utf-8', 'surrogatepass')
    return hmac.compare_digest(given, wanted.encode('utf-8'))


def url(request: webob.Request, path: str) -> str:
    """An absolute URL of ``path`` under this application."""
    return request.application_url + path
