"""VNFM side: the GrantRequest of an INSTANTIATE, scale-out or HEAL."""

import testtools

from placement_ext import exception
from placement_ext.decision import grant_constraints as gc
from placement_ext.decision import grant_request_builder as builder
from placement_ext.sol import grant_request
from placement_ext.sol import vnfd as vnfd_mod

VDU = {'type': vnfd_mod.VDU_COMPUTE}


def rule(kind, targets, scope='zone', **properties):
    return {'type': kind, 'targets': targets,
            'properties': {'scope': scope, **properties}}


# VDU1 (2 at instantiation) and VDU2 (1) in one placement group whose
# VNFCs must be on different hosts; VDU1's VNFCs in different zones.
VNFD = vnfd_mod.parse({'topology_template': {
    'substitution_mappings': {'properties': {'flavour_id': 'simple'}},
    'node_templates': {'VNF': {'properties': {'descriptor_id': 'vnfd-1'}},
                       'VDU1': VDU, 'VDU2': VDU},
    'groups': {'pg': {'type': gc.PLACEMENT_GROUP,
                      'members': ['VDU1', 'VDU2']}},
    'policies': [
        {'delta': {'type': vnfd_mod.VDU_INITIAL_DELTA, 'targets': ['VDU1'],
                   'properties': {'initial_delta': {
                       'number_of_instances': 2}}}},
        {'hosts': rule(gc.ANTI_AFFINITY_RULE, ['pg'], 'nfvi_node')},
        {'zones': rule(gc.ANTI_AFFINITY_RULE, ['VDU1'])}]}})

EXISTING = (builder.Vnfc('VDU1-0', 'VDU1', 'srv-0', 'vim-1'),
            builder.Vnfc('VDU1-1', 'VDU1', 'srv-1', 'vim-1'),
            builder.Vnfc('VDU2-0', 'VDU2', 'srv-2', 'vim-1'))


def grant(name):
    return {'idType': 'GRANT', 'resourceId': name}


def res_mgmt(name):
    return {'idType': 'RES_MGMT', 'resourceId': name,
            'vimConnectionId': 'vim-1'}


def compute(name, vdu):
    return {'id': name, 'type': 'COMPUTE', 'resourceTemplateId': vdu}


class TestBuild(testtools.TestCase):

    def build(self, operation, **kwargs):
        built = builder.build(VNFD, operation, 'inst-1', **kwargs)
        document = built.request.to_dict()
        # what `grant evaluate --request` reads
        self.assertEqual(built.request, grant_request.parse(document))
        return document, built.skipped

    def test_instantiate_expands_the_placement_group(self):
        document, skipped = self.build('INSTANTIATE')
        op_occ = document['vnfLcmOpOccId']
        self.assertEqual({
            'vnfInstanceId': 'inst-1', 'vnfLcmOpOccId': op_occ,
            'vnfdId': 'vnfd-1', 'flavourId': 'simple',
            'operation': 'INSTANTIATE', 'isAutomaticInvocation': False,
            '_links': {
                'vnfLcmOpOcc': {
                    'href': f'/vnflcm/v2/vnf_lcm_op_occs/{op_occ}'},
                'vnfInstance': {'href': '/vnflcm/v2/vnf_instances/inst-1'}},
            'addResources': [compute('VDU1-0', 'VDU1'),
                             compute('VDU1-1', 'VDU1'),
                             compute('VDU2-0', 'VDU2')],
            'placementConstraints': [
                {'affinityOrAntiAffinity': 'ANTI_AFFINITY',
                 'scope': 'NFVI_NODE', 'fallbackBestEffort': False,
                 'resource': [grant('VDU1-0'), grant('VDU1-1'),
                              grant('VDU2-0')]},
                {'affinityOrAntiAffinity': 'ANTI_AFFINITY', 'scope': 'ZONE',
                 'fallbackBestEffort': False,
                 'resource': [grant('VDU1-0'), grant('VDU1-1')]}],
        }, document)
        self.assertEqual((), skipped)

    def test_instantiate_with_explicit_counts_and_ids(self):
        document, _ = self.build('INSTANTIATE', add={'VDU2': 2},
                                 vnfd_id='vnfd-9', flavour_id='big',
                                 vnf_lcm_op_occ_id='op-1')
        self.assertEqual([compute('VDU2-0', 'VDU2'),
                          compute('VDU2-1', 'VDU2')],
                         document['addResources'])
        self.assertEqual(('vnfd-9', 'big', 'op-1'), (
            document['vnfdId'], document['flavourId'],
            document['vnfLcmOpOccId']))
        self.assertEqual('/vnflcm/v2/vnf_lcm_op_occs/op-1',
                         document['_links']['vnfLcmOpOcc']['href'])

    def test_op_occ_id_is_repeatable_per_instance_and_operation(self):
        def op_occ(instance, operation, **kwargs):
            return builder.build(VNFD, operation, instance, **kwargs
                                 ).request.vnf_lcm_op_occ_id

        first = op_occ('inst-1', 'INSTANTIATE')
        self.assertEqual(first, op_occ('inst-1', 'INSTANTIATE'))
        self.assertNotEqual(first, op_occ('inst-2', 'INSTANTIATE'))
        self.assertNotEqual(first, op_occ('inst-1', 'SCALE',
                                          add={'VDU1': 1}))

    def test_scale_out_references_existing_vnfcs_as_res_mgmt(self):
        document, skipped = self.build('SCALE', add={'VDU1': 1},
                                       existing=EXISTING)
        self.assertEqual([compute('VDU1-2', 'VDU1')],
                         document['addResources'])
        self.assertNotIn('removeResources', document)
        hosts, zones = document['placementConstraints']
        self.assertEqual([grant('VDU1-2'), res_mgmt('srv-0'),
                          res_mgmt('srv-1'), res_mgmt('srv-2')],
                         hosts['resource'])
        self.assertEqual([grant('VDU1-2'), res_mgmt('srv-0'),
                          res_mgmt('srv-1')], zones['resource'])
        self.assertEqual('simple', document['flavourId'])

    def test_scale_out_numbers_after_the_highest_index(self):
        existing = (builder.Vnfc('VDU1-3', 'VDU1', 'srv-3'),
                    builder.Vnfc('VDU1-0', 'VDU1', 'srv-0'),
                    builder.Vnfc('web', 'VDU1', 'srv-9'))
        document, _ = self.build('SCALE', add={'VDU1': 2, 'VDU2': 1},
                                 existing=existing)
        self.assertEqual(['VDU1-4', 'VDU1-5', 'VDU2-0'],
                         [r['id'] for r in document['addResources']])

    def test_heal_recreates_and_keeps_the_others(self):
        # Tacker sends no constraints for heal; we do
        document, _ = self.build('HEAL', existing=EXISTING,
                                 heal=['VDU1-1'])
        self.assertEqual([compute('VDU1-1', 'VDU1')],
                         document['addResources'])
        self.assertEqual([{'id': 'srv-1', 'type': 'COMPUTE',
                           'resourceTemplateId': 'VDU1',
                           'resource': {'resourceId': 'srv-1',
                                        'vimConnectionId': 'vim-1'}}],
                         document['removeResources'])
        hosts, zones = document['placementConstraints']
        self.assertEqual([grant('VDU1-1'), res_mgmt('srv-0'),
                          res_mgmt('srv-2')], hosts['resource'])
        self.assertEqual([grant('VDU1-1'), res_mgmt('srv-0')],
                         zones['resource'])

    def test_whole_vnf_heal_recreates_every_vnfc(self):
        document, _ = self.build('HEAL', existing=EXISTING)
        self.assertEqual(['VDU1-0', 'VDU1-1', 'VDU2-0'],
                         [r['id'] for r in document['addResources']])
        self.assertEqual(['srv-0', 'srv-1', 'srv-2'],
                         [r['id'] for r in document['removeResources']])
        hosts = document['placementConstraints'][0]['resource']
        self.assertEqual({'GRANT'}, {ref['idType'] for ref in hosts})

    def test_fallback_default_and_per_policy_override(self):
        def fallbacks(**kwargs):
            document, _ = self.build('INSTANTIATE', **kwargs)
            return [c['fallbackBestEffort']
                    for c in document['placementConstraints']]

        self.assertEqual([False, False], fallbacks())
        self.assertEqual([True, True], fallbacks(
            default_fallback_best_effort=True))
        self.assertEqual([True, False], fallbacks(
            default_fallback_best_effort=True,
            fallback_best_effort={'zones': False}))
        self.assertEqual([False, True], fallbacks(
            fallback_best_effort={'zones': True}))

    def test_policies_without_constraint_are_reported(self):
        document, skipped = self.build('SCALE', add={'VDU2': 1},
                                       existing=EXISTING[2:])
        self.assertEqual([grant('VDU2-1'), res_mgmt('srv-2')],
                         document['placementConstraints'][0]['resource'])
        self.assertEqual([('zones', 'no new VNFC of VDU1 in this operation')],
                         [(s.name, s.reason) for s in skipped])
        document, skipped = self.build('SCALE', add={'VDU2': 1})
        self.assertNotIn('placementConstraints', document)
        self.assertEqual(['hosts', 'zones'], [s.name for s in skipped])


class TestBadInput(testtools.TestCase):

    def _error(self, operation, vnfd=VNFD, **kwargs):
        exc = self.assertRaises(exception.InvalidInput, builder.build,
                                vnfd, operation, 'inst-1', **kwargs)
        return exc.field, exc.reason

    def _field(self, operation, **kwargs):
        return self._error(operation, **kwargs)[0]

    def test_operation_and_its_arguments(self):
        self.assertEqual(('operation', "'TERMINATE' is not one of "
                          'INSTANTIATE, SCALE, HEAL'),
                         self._error('TERMINATE'))
        self.assertEqual('add', self._field('HEAL', add={'VDU1': 1},
                                            existing=EXISTING))
        self.assertEqual(('heal', 'only for HEAL, not SCALE'), self._error(
            'SCALE', add={'VDU1': 1}, existing=EXISTING, heal=['VDU1-0']))
        self.assertEqual('existing', self._field('INSTANTIATE',
                                                 existing=EXISTING))
        self.assertEqual('existing', self._field('HEAL', heal=['VDU1-0']))
        self.assertEqual(('add', 'SCALE needs at least one VDU to add '
                                 'VNFCs to'),
                         self._error('SCALE', existing=EXISTING))

    def test_add(self):
        self.assertEqual(('add.VDU9', "'VDU9' is not a VDU of the VNFD "
                                      '(VDU1, VDU2)'),
                         self._error('INSTANTIATE', add={'VDU9': 1}))
        for count in (0, -1, True, '1'):
            self.assertEqual('add.VDU1', self._field(
                'SCALE', add={'VDU1': count}))
        nothing = vnfd_mod.parse({'topology_template': {
            'node_templates': {'VDU1': VDU}, 'policies': [{'d': {
                'type': vnfd_mod.VDU_INITIAL_DELTA, 'targets': ['VDU1'],
                'properties': {'initial_delta': {
                    'number_of_instances': 0}}}}]}})
        self.assertEqual('add', self._error(
            'INSTANTIATE', vnfd=nothing, vnfd_id='v', flavour_id='f')[0])

    def test_heal(self):
        self.assertEqual(('heal', "'VDU3-0' is not an existing VNFC "
                                  '(VDU1-0, VDU1-1, VDU2-0)'),
                         self._error('HEAL', existing=EXISTING,
                                     heal=['VDU3-0']))
        self.assertEqual(('heal', "'VDU1-0' is given twice"), self._error(
            'HEAL', existing=EXISTING, heal=['VDU1-0', 'VDU1-0']))

    def test_existing_of_an_unknown_vdu(self):
        self.assertEqual('existing[1].vduId', self._field(
            'SCALE', add={'VDU1': 1},
            existing=(EXISTING[0], builder.Vnfc('X-0', 'X', 'srv-9'))))

    def test_override_of_an_unknown_policy(self):
        self.assertEqual(
            ('fallback_best_effort.delta', 'no AffinityRule or '
             'AntiAffinityRule of that name in the VNFD (hosts, zones)'),
            self._error('INSTANTIATE', fallback_best_effort={'delta': True}))

    def test_ids_the_vnfd_does_not_give(self):
        bare = vnfd_mod.parse({'topology_template': {
            'node_templates': {'VDU1': VDU}}})
        self.assertEqual('vnfd_id', self._error(
            'INSTANTIATE', vnfd=bare, flavour_id='f')[0])
        self.assertEqual('flavour_id', self._error(
            'INSTANTIATE', vnfd=bare, vnfd_id='v')[0])
        # flavourId is only required for INSTANTIATE
        built = builder.build(bare, 'SCALE', 'inst-1', vnfd_id='v',
                              add={'VDU1': 1})
        self.assertIsNone(built.request.flavour_id)

    def test_the_output_is_checked_as_a_receiver_would(self):
        # a VIM id equal to a VNFC name: two resource definitions 'VDU1-0'
        clash = (builder.Vnfc('VDU1-0', 'VDU1', 'VDU1-0'),)
        self.assertEqual('removeResources[0].id', self._field(
            'HEAL', existing=clash))


class TestVnfcsFrom(testtools.TestCase):

    def test_vnfcs(self):
        self.assertEqual((
            builder.Vnfc('VDU1-0', 'VDU1', 'srv-0', 'vim-1'),
            builder.Vnfc('VDU1-1', 'VDU1', 'srv-1', None, 'rp-1')),
            builder.vnfcs_from([
                {'vnfcId': 'VDU1-0', 'vduId': 'VDU1', 'resourceId': 'srv-0',
                 'vimConnectionId': 'vim-1'},
                {'vnfcId': 'VDU1-1', 'vduId': 'VDU1', 'resourceId': 'srv-1',
                 'resourceProviderId': 'rp-1'}]))
        self.assertEqual((), builder.vnfcs_from([]))

    def test_bad_documents(self):
        def error(data):
            exc = self.assertRaises(exception.InvalidInput,
                                    builder.vnfcs_from, data)
            return exc.field, exc.reason

        good = {'vnfcId': 'VDU1-0', 'vduId': 'VDU1', 'resourceId': 'srv-0'}
        self.assertEqual('existing', error({'vnfcs': []})[0])
        self.assertEqual(('existing[0].vduId', 'is required'), error(
            [{'vnfcId': 'VDU1-0', 'resourceId': 'srv-0'}]))
        self.assertEqual(('existing[0].zone', 'is not allowed here'),
                         error([dict(good, zone='AZ-1')]))
        self.assertEqual(('existing[0].resourceId', 'must not be empty'),
                         error([dict(good, resourceId='')]))
        self.assertEqual(
            ('existing[1].vnfcId', "'VDU1-0' is already existing[0]'s"),
            error([good, dict(good, resourceId='srv-1')]))
        self.assertEqual('existing[1].resourceId',
                         error([good, dict(good, vnfcId='VDU1-1')])[0])


IDS = {'vnfd_id': 'vnfd-1', 'flavour_id': 'simple'}


class TestCounts(testtools.TestCase):
    """Counts are bounded by the VDU's max_number_of_instances and by
    MAX_NEW_VNFCS (a count of 10**7 used to run for ever)."""

    def vnfd(self, max_instances=None, initial=1):
        vdu = {'type': vnfd_mod.VDU_COMPUTE}
        if max_instances is not None:
            vdu['properties'] = {'vdu_profile': {
                'max_number_of_instances': max_instances}}
        return vnfd_mod.parse({'topology_template': {
            'node_templates': {'VDU1': vdu},
            'policies': [{'delta': {
                'type': vnfd_mod.VDU_INITIAL_DELTA, 'targets': ['VDU1'],
                'properties': {'initial_delta': {
                    'number_of_instances': initial}}}}]}})

    def test_scale_out_beyond_max_number_of_instances(self):
        existing = (builder.Vnfc('VDU1-0', 'VDU1', 'srv-0', 'vim-1'),)
        vnfd = self.vnfd(max_instances=3)
        builder.build(vnfd, builder.SCALE, 'i', add={'VDU1': 2}, **IDS,
                      existing=existing)
        exc = self.assertRaises(exception.InvalidInput, builder.build, vnfd,
                                builder.SCALE, 'i', add={'VDU1': 3}, **IDS,
                                existing=existing)
        self.assertEqual('add.VDU1', exc.field)
        self.assertIn('1 existing + 3 new VNFCs exceed the VDU\'s '
                      'max_number_of_instances 3', exc.reason)

    def test_initial_delta_beyond_max_number_of_instances(self):
        exc = self.assertRaises(exception.InvalidInput, self.vnfd,
                                max_instances=1, initial=2)
        self.assertIn('vdu_profile', exc.field)

    def test_huge_counts_are_refused_before_any_work(self):
        for kwargs in ({'add': {'VDU1': 10**7}}, {}):
            vnfd = self.vnfd(initial=10**7 if not kwargs else 1)
            exc = self.assertRaises(exception.InvalidInput, builder.build,
                                    vnfd, builder.INSTANTIATE, 'i',
                                    **IDS, **kwargs)
            self.assertIn(str(builder.MAX_NEW_VNFCS), exc.reason)

    def test_integer_node_template_name_is_refused(self):
        # YAML reads "1:" as an int key; re.escape crashed on it
        exc = self.assertRaises(exception.InvalidInput, vnfd_mod.parse,
                                {'topology_template': {'node_templates': {
                                    1: {'type': vnfd_mod.VDU_COMPUTE}}}})
        self.assertEqual('node_templates.1', exc.field)
        self.assertIn('must be a non-empty string', exc.reason)
