"""Canned Placement answers for unit tests of the Placement driver.

``FakeAdapter`` stands where a keystoneauth1 Adapter would: it answers
from a table of (method, path) -> (status, body) and records what was
sent. The real service is exercised in the functional tests.
"""

import json
import types

import requests

ENDPOINT = 'http://placement.test'

# the spec's topology (alloc-candidates-in-tree), fixed UUIDs
CN1 = '11111111-1111-4111-8111-111111111111'
CN2 = '22222222-2222-4222-8222-222222222222'
NUMA1_1 = '11111111-1111-4111-8111-1111111111a1'
NUMA1_2 = '11111111-1111-4111-8111-1111111111a2'
NUMA2_1 = '22222222-2222-4222-8222-2222222222a1'
SS1 = '55555555-5555-4555-8555-555555555551'
SS2 = '55555555-5555-4555-8555-555555555552'
AGG = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'


def version_document(max_version: str = '1.39') -> dict:
    return {'versions': [{'id': 'v1.0', 'max_version': max_version,
                          'min_version': '1.0', 'status': 'CURRENT'}]}


def error_body(status: int, detail: str, code: str | None = None) -> dict:
    # webob's generic explanation, a blank line, then the detail
    return {'errors': [{'status': status, 'title': 'Error',
                        'detail': f'Generic explanation.\n\n {detail}  ',
                        'code': code, 'request_id': 'req-1'}]}


def summary(root: str, parent: str | None = None, traits: tuple = (),
            **resources: tuple[int, int]) -> dict:
    """A provider summary; resources as NAME=(capacity, used)."""
    return {'resources': {rc: {'capacity': cap, 'used': used}
                          for rc, (cap, used) in resources.items()},
            'traits': list(traits), 'parent_provider_uuid': parent,
            'root_provider_uuid': root}


def allocation_request(mappings: dict | None = None,
                       **by_provider: dict) -> dict:
    """One allocation request; keyword = provider UUID, value = amounts."""
    body = {'allocations': {rp: {'resources': amounts}
                            for rp, amounts in by_provider.items()}}
    if mappings is not None:
        body['mappings'] = mappings
    return body


def candidates_body(requests_: list[dict], summaries: dict) -> dict:
    return {'allocation_requests': requests_,
            'provider_summaries': summaries}


def response(status: int, body: object = None) -> requests.Response:
    resp = requests.Response()
    resp.status_code = status
    if body is not None:
        resp._content = json.dumps(body).encode()
        resp.headers['Content-Type'] = 'application/json'
    else:
        resp._content = b''
    return resp


class FakeAdapter:
    """Answers requests from ``routes``: (method, path) -> (status, body).

    A value may also be a list, answered in turn (the last one repeats),
    or an exception instance, raised.
    """

    def __init__(self, routes: dict | None = None,
                 max_version: str = '1.39') -> None:
        self.routes = {('GET', '/'): (200, version_document(max_version))}
        self.routes.update(routes or {})
        self.sent = []

    def request(self, url, method, **kwargs):
        self.sent.append(types.SimpleNamespace(
            method=method, path=url, microversion=kwargs.get('microversion'),
            params=kwargs.get('params'), json=kwargs.get('json')))
        answer = self.routes[(method, url)]
        if isinstance(answer, list):
            answer = answer.pop(0) if len(answer) > 1 else answer[0]
        if isinstance(answer, Exception):
            raise answer
        return response(*answer)

    def get_endpoint(self):
        return ENDPOINT

    def paths(self, method: str | None = None) -> list[str]:
        return [s.path for s in self.sent
                if method is None or s.method == method]
