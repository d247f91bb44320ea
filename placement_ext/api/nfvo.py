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

Tokens and Grants are kept in the database (``objects.nfvo``): any
process of placement-ext-nfvo behind a load balancer serves any of them,
and a restart loses none.

Every error body is a SOL 013 ProblemDetails (``application/problem+json``)
except the token endpoint's, which are RFC 6749's. Request handling only
(HTTP in ``api.wsgi``): the Grant is
:func:`placement_ext.decision.grant_evaluator.evaluate` on the cloud view
the caller's ``decide`` builds.
"""

import uuid
from collections.abc import Callable

import webob
from oslo_log import log as logging

from placement_ext.api import wsgi
from placement_ext.objects import nfvo as nfvo_obj
from placement_ext.sol import grant_request

LOG = logging.getLogger(__name__)

GRANTS = '/grant/v1/grants'
_PACKAGES = '/vnfpkgm/v2/onboarded_vnf_packages'
# a token request is a few form fields; anyone may send one
TOKEN_MAX_BODY = 8 * 1024

# decide(request, grant_id, grant_href) -> the Grant (a dict);
# raises GrantRefused with the evaluator's reason.
Decide = Callable[[grant_request.GrantRequest, str, str], dict]


class NfvoApp(wsgi.Api):
    """WSGI application of the NFVO interfaces.

    :param packages: :class:`placement_ext.drivers.vnfpkgm.VnfPackages`.
    :param database: where tokens and Grants are kept.
    """

    name = 'NFVO'

    def __init__(self, decide: Decide, packages: object, database: object,
                 *, client_id: str, client_secret: str,
                 token_lifetime: int = 3600,
                 max_body: int = 16 * 1024 * 1024) -> None:
        super().__init__([
            wsgi.Route(r'^/token$', public=True, max_body=TOKEN_MAX_BODY,
                       POST=self._token),
            wsgi.Route(f'^{GRANTS}$', POST=self._grant),
            wsgi.Route(f'^{GRANTS}/(?P<grant_id>[A-Za-z0-9-]{{1,64}})$',
                       GET=self._show_grant),
            wsgi.Route(f'^{_PACKAGES}/(?P<vnfd_id>[A-Za-z0-9._-]{{1,255}})'
                       f'(?P<part>/package_content|/vnfd)?$',
                       GET=self._package),
        ], style=wsgi.PROBLEM, max_body=max_body)
        self._decide = decide
        self._packages = packages
        self._database = database
        self._client = (client_id, client_secret)
        self._lifetime = token_lifetime

    # -- OAuth 2.0 ------------------------------------------------------

    def _token(self, request: webob.Request) -> webob.Response:
        form = wsgi.read_form(request, TOKEN_MAX_BODY)
        if form.get('grant_type') != b'client_credentials':
            raise wsgi.ApiError(400, 'grant_type must be client_credentials',
                                code='unsupported_grant_type',
                                style=wsgi.OAUTH)
        client = self._client_of(request, form)
        if client is None or not (
                wsgi.same_secret(client[0], self._client[0])
                & wsgi.same_secret(client[1], self._client[1])):
            raise wsgi.ApiError(
                401, 'unknown client or wrong secret',
                code='invalid_client', style=wsgi.OAUTH,
                headers=[('WWW-Authenticate',
                          'Basic realm="placement-ext-nfvo"')])
        token = nfvo_obj.issue_token(self._database, self._client[0],
                                     self._lifetime)
        return wsgi.json_response(200, {
            'access_token': token, 'token_type': 'Bearer',
            'expires_in': self._lifetime})

    @staticmethod
    def _client_of(request: webob.Request, form: dict[str, bytes]
                   ) -> tuple[bytes, bytes] | None:
        basic = wsgi.basic_credentials(request)
        if basic is not None:
            # RFC 6749 2.3.1: both are form-urlencoded inside Basic
            return tuple(wsgi.unquote(part) for part in basic)
        if 'client_id' in form:
            return form['client_id'], form.get('client_secret', b'')
        return None

    def authenticate(self, request: webob.Request) -> None:
        scheme, _, token = request.headers.get('Authorization', '') \
            .partition(' ')
        if scheme != 'Bearer' or not nfvo_obj.token_valid(
                self._database, token.strip()):
            raise wsgi.ApiError(401, 'a valid OAuth 2.0 bearer token is '
                                     'required (POST /token)')

    # -- Grant ----------------------------------------------------------

    def _grant(self, request: webob.Request) -> webob.Response:
        document = wsgi.read_json(request, self.max_body)
        parsed = grant_request.parse(document)
        grant_id = str(uuid.uuid4())
        grant = self._decide(parsed, grant_id, f'{GRANTS}/{grant_id}')
        nfvo_obj.save_grant(self._database, grant_id, document, grant)
        LOG.info('Grant %(id)s for %(op)s of VNF %(vnf)s', {
            'id': grant_id, 'op': parsed.operation,
            'vnf': parsed.vnf_instance_id})
        return wsgi.json_response(201, grant, headers=[
            ('Location', f'{GRANTS}/{grant_id}')])

    def _show_grant(self, request: webob.Request,
                    grant_id: str) -> webob.Response:
        return wsgi.json_response(200, nfvo_obj.get_grant(self._database,
                                                          grant_id))

    # -- packages -------------------------------------------------------

    def _package(self, request: webob.Request, vnfd_id: str,
                 part: str | None) -> webob.Response:
        if part:
            read = self._packages.content if part == '/package_content' \
                else self._packages.vnfd
            return webob.Response(status=200, body=read(vnfd_id),
                                  content_type='application/zip')
        info = dict(self._packages.info(vnfd_id))
        base = f'{_PACKAGES}/{vnfd_id}'
        info['_links'] = {
            'self': {'href': base}, 'vnfd': {'href': f'{base}/vnfd'},
            'packageContent': {'href': f'{base}/package_content'}}
        return wsgi.json_response(200, info)
