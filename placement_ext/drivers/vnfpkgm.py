"""Tacker's VNF package API (v1), read for placement-ext-nfvo.

Tacker, with an external NFVO, reads onboarded packages from that NFVO
(``/vnfpkgm/v2/onboarded_vnf_packages/{vnfdId}``); our NFVO has no
package store of its own and answers from the packages onboarded in
Tacker (``/vnfpkgm/v1/vnf_packages``), found by their ``vnfdId``.
"""

from keystoneauth1 import adapter as ks_adapter
from keystoneauth1 import exceptions as ks_exc

from placement_ext import exception

_PACKAGES = '/vnfpkgm/v1/vnf_packages'


class VnfPackages:
    """Read-only access to Tacker's onboarded VNF packages."""

    def __init__(self, adapter: ks_adapter.Adapter) -> None:
        self._adapter = adapter

    def info(self, vnfd_id: str) -> dict:
        """The package's VnfPkgInfo, found by VNFD id.

        :raises NotFound: no ONBOARDED package has that VNFD.
        """
        packages = _json_list(self._get(_PACKAGES, 'list VNF packages',
                                        params={'filter':
                                                f'(eq,vnfdId,{vnfd_id})'}),
                              'list VNF packages')
        for package in packages:
            if package.get('vnfdId') == vnfd_id and \
                    package.get('onboardingState') == 'ONBOARDED':
                return package
        raise exception.NotFound(kind='onboarded VNF package', id=vnfd_id)

    def content(self, vnfd_id: str) -> bytes:
        """The package's CSAR (zip)."""
        package = self.info(vnfd_id)
        return _zip(self._get(f'{_PACKAGES}/{package["id"]}/package_content',
                              'fetch VNF package content',
                              headers={'Accept': 'application/zip'}),
                    'fetch VNF package content')

    def vnfd(self, vnfd_id: str) -> bytes:
        """The package's VNFD files (zip)."""
        package = self.info(vnfd_id)
        return _zip(self._get(f'{_PACKAGES}/{package["id"]}/vnfd',
                              'fetch VNFD',
                              headers={'Accept': 'application/zip'}),
                    'fetch VNFD')

    def _get(self, path: str, what: str, **kwargs: object) -> object:
        try:
            return self._adapter.get(path, **kwargs)
        except ks_exc.NotFound:
            raise exception.NotFound(kind='VNF package', id=path)
        except (ks_exc.ConnectFailure, ks_exc.ConnectTimeout,
                ks_exc.EndpointNotFound, ks_exc.DiscoveryFailure) as exc:
            raise exception.ServiceUnavailable(service='tacker',
                                               reason=f'{what}: {exc}')
        except ks_exc.HttpError as exc:
            raise exception.ServiceError(service='tacker',
                                         reason=f'{what}: {exc}')


def _json_list(response: object, what: str) -> list[dict]:
    """The JSON list of objects Tacker answered.

    :raises ServiceError: anything else (an HTML login page, a proxy's
        error page answered with 200).
    """
    try:
        document = response.json()
    except ValueError:
        document = None
    if not isinstance(document, list) or not all(
            isinstance(item, dict) for item in document):
        kind = response.headers.get('Content-Type', 'no content type')
        raise exception.ServiceError(
            service='tacker',
            reason=f'{what}: the answer is not a JSON list of objects '
                   f'({kind})')
    return document


def _zip(response: object, what: str) -> bytes:
    """The zip file Tacker answered.

    :raises ServiceError: anything else (an HTML page answered with 200
        is Tacker's or its proxy's fault, not the package's).
    """
    if not response.content.startswith(b'PK'):
        kind = response.headers.get('Content-Type', 'no content type')
        raise exception.ServiceError(
            service='tacker', reason=f'{what}: the answer is not a zip '
                                     f'file ({kind})')
    return response.content
