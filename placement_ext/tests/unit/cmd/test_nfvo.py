"""placement-ext-nfvo sizes a Grant from the VNFD that defines its new
resources."""

import testtools

from placement_ext.cmd import nfvo as nfvo_cmd
from placement_ext.sol import grant_request

BASE = {'vnfInstanceId': 'i1', 'vnfLcmOpOccId': 'o1', 'vnfdId': 'old',
        'isAutomaticInvocation': False,
        '_links': {'vnfLcmOpOcc': {'href': 'http://vnfm/o1'},
                   'vnfInstance': {'href': 'http://vnfm/i1'}}}


class FakePackages:

    def __init__(self):
        self.read = []

    def vnfd(self, vnfd_id):
        self.read.append(vnfd_id)
        raise LookupError(vnfd_id)


class TestSizedVnfd(testtools.TestCase):

    def test_change_vnfpkg_is_sized_from_the_destination_vnfd(self):
        request = grant_request.parse({**BASE, 'operation': 'CHANGE_VNFPKG',
                                       'dstVnfdId': 'new'})
        self.assertEqual('new', nfvo_cmd.sized_vnfd(request))
        packages = FakePackages()
        decider = nfvo_cmd.GrantDecider(None, packages)
        self.assertRaises(LookupError, decider, request, 'g1', 'href')
        self.assertEqual(['new'], packages.read)

    def test_other_operations_from_the_instances_vnfd(self):
        for operation in ('INSTANTIATE', 'SCALE', 'HEAL'):
            request = grant_request.parse({**BASE, 'operation': operation,
                                           'dstVnfdId': 'new'})
            self.assertEqual('old', nfvo_cmd.sized_vnfd(request))
