"""ONAP HAS templates in, our selection requests out; recommendations."""

import copy

import testtools

from placement_ext import exception
from placement_ext.decision import has_demand
from placement_ext.decision import has_plan
from placement_ext.decision import has_recommendations
from placement_ext.decision import homing

# csit/tests/has/data/plan_with_vim_fit.json of onap/archived-optf-has,
# with a cost term and our policy constraint added
TEMPLATE = {
    'homing_template_version': '2017-10-10',
    'parameters': {'customer_lat': 45.395968, 'customer_long': -71.135344,
                   'REQUIRED_MEM': 4, 'REQUIRED_DISK': 100},
    'locations': {'customer_loc': {
        'latitude': {'get_param': 'customer_lat'},
        'longitude': {'get_param': 'customer_long'}}},
    'demands': {'vG': [{'inventory_provider': 'aai',
                        'inventory_type': 'cloud',
                        'service_resource_id': 'vG-svc'}]},
    'constraints': {
        'constraint_vg_customer': {
            'type': 'distance_to_location', 'demands': ['vG'],
            'properties': {'distance': '< 100 km',
                           'location': 'customer_loc'}},
        'check_cloud_capacity': {
            'type': 'vim_fit', 'demands': ['vG'],
            'properties': {'controller': 'multicloud', 'request': {
                'vCPU': 10,
                'Memory': {'quantity': {'get_param': 'REQUIRED_MEM'},
                           'unit': 'GB'},
                'Storage': {'quantity': {'get_param': 'REQUIRED_DISK'},
                            'unit': 'GB'}}}}},
    'optimization': {'minimize': {'sum': [
        {'distance_between': ['customer_loc', 'vG']},
        {'product': [2, {'cloud_cost': ['vG']}]}]}},
}
POLICY = {'content': {'cloud-cost-evaluation': True,
                      'cloud-deployment-intent': {
                          'Infrastructure High Availability for VNF': True}}}


def with_changes(**changes):
    template = copy.deepcopy(TEMPLATE)
    template.update(changes)
    return template


class TestTranslate(testtools.TestCase):

    def test_the_csit_plan(self):
        (request,) = has_plan.translate(TEMPLATE)
        self.assertEqual('vG', request.name)
        self.assertEqual('vG-svc', request.service_resource_id)
        self.assertEqual({'vcpus': 10, 'memory_mb': 4096, 'disk_gb': 100},
                         request.demand)
        self.assertEqual(100, request.max_distance_km)
        self.assertEqual({'latitude': 45.395968, 'longitude': -71.135344},
                         request.customer_location)
        self.assertEqual({'distance': 1.0, 'cost': 2.0}, request.weights)
        self.assertEqual(has_demand.DEFAULT_POLICY, request.policy)
        selection = request.selection_request([{'region_id': 'r'}])
        self.assertEqual([{'region_id': 'r'}], selection['candidates'])
        self.assertEqual(100, selection['max_distance_km'])

    def test_policy_constraint_with_flavor_and_count(self):
        template = with_changes(constraints={'intent': {
            'type': 'cloud_selection_policy', 'demands': ['vG'],
            'properties': {'policy': POLICY, 'flavor': 'm1.vgw',
                           'count': 3}}})
        (request,) = has_plan.translate(template)
        self.assertEqual(POLICY, request.policy)
        self.assertEqual({'flavor': 'm1.vgw', 'count': 3}, request.demand)
        self.assertIsNone(request.max_distance_km)

    def test_generic_objective_and_miles(self):
        template = with_changes(optimization={
            'goal': 'minimize', 'operation_function': {
                'operator': 'sum', 'operands': [
                    {'function': 'distance_between', 'weight': 3,
                     'params': {'demand': 'vG',
                                'location': 'customer_loc'}},
                    {'function': 'cloud_cost', 'weight': 0.5,
                     'params': {'demand': 'vG'}}]}})
        template['constraints']['constraint_vg_customer']['properties'][
            'distance'] = '<= 10 mi'
        (request,) = has_plan.translate(template)
        self.assertEqual({'distance': 3.0, 'cost': 0.5}, request.weights)
        self.assertAlmostEqual(16.09344, request.max_distance_km)

    def test_memory_units(self):
        template = copy.deepcopy(TEMPLATE)
        fit = template['constraints']['check_cloud_capacity']['properties']
        fit['request']['Memory'] = {'quantity': 512, 'unit': 'MB'}
        fit['request']['Storage'] = 1.5   # a bare number is GB
        fit['count'] = 2
        (request,) = has_plan.translate(template)
        self.assertEqual({'vcpus': 10, 'memory_mb': 512, 'disk_gb': 2,
                          'count': 2}, request.demand)

    def test_what_we_cannot_honour_is_refused_by_name(self):
        hpa = with_changes()
        hpa['constraints']['hpa'] = {'type': 'hpa', 'demands': ['vG'],
                                     'properties': {}}
        greater = with_changes()
        greater['constraints']['constraint_vg_customer']['properties'][
            'distance'] = '> 100 km'
        score = with_changes(optimization={'minimize': {'sum': [
            {'product': [200, {'latency_between': ['customer_loc',
                                                   'vG']}]}]}})
        service = with_changes(demands={'vG': [
            {'inventory_type': 'service'}]})
        for template, field, reason in (
                (hpa, 'template.constraints.hpa.properties.evaluate',
                 'must list the VNFCs'),
                (greater, 'template.constraints.constraint_vg_customer'
                          '.properties.distance', 'upper limit'),
                (score, 'template.optimization.minimize.sum[0]',
                 "'latency_between' is not supported (supported: "
                 "distance_between, cloud_cost, hpa_score)"),
                (service, 'template.demands.vG[0].inventory_type',
                 'only cloud regions')):
            error = self.assertRaises(exception.InvalidInput,
                                      has_plan.translate, template)
            self.assertEqual(field, error.field)
            self.assertIn(reason, error.reason)

    def test_bad_references(self):
        for template, field in (
                (with_changes(parameters={}),
                 'template.locations.customer_loc.latitude'),
                (with_changes(demands={}), 'template.demands'),
                (with_changes(optimization={'minimize': {'sum': [
                    {'distance_between': ['nowhere', 'vG']}]}}),
                 'template.optimization.minimize.sum[0]'),
                (with_changes(constraints={'c': {
                    'type': 'vim_fit', 'demands': ['vX'],
                    'properties': {}}}), 'template.constraints.c.demands')):
            error = self.assertRaises(exception.InvalidInput,
                                      has_plan.translate, template)
            self.assertEqual(field, error.field)

    def test_a_demand_without_size_is_solved_unsized(self):
        # HAS's CSIT plan_with_lati_and_longi: no vim_fit, expects done
        (request,) = has_plan.translate(with_changes(constraints={}))
        self.assertFalse(request.sized)
        self.assertEqual({}, request.selection_request([])['demand'])

    def test_homing_template_version_must_be_one_has_accepts(self):
        for version in ('2016-11-01', '2017-10-10', '2018-02-01',
                        '2020-08-13'):
            has_plan.translate(with_changes(homing_template_version=version))
        for version in ('xxxx-yy-zz', None, 20171010):
            error = self.assertRaises(
                exception.InvalidInput, has_plan.translate,
                with_changes(homing_template_version=version))
            self.assertEqual('template.homing_template_version', error.field)
            self.assertIn('must be one of: 2016-11-01, 2017-10-10, '
                          '2018-02-01, 2020-08-13', error.detail)

    def test_unsupported_keys_are_refused_by_name(self):
        template = with_changes(reservation={'counter': 0, 'demands': {}})
        error = self.assertRaises(exception.InvalidInput,
                                  has_plan.translate, template)
        self.assertEqual('template.reservation', error.field)
        self.assertIn('no reservation', error.detail)
        for key in ('conflict_identifier', 'candidates', 'unique',
                    'default_attributes', 'existing_placement'):
            template = copy.deepcopy(TEMPLATE)
            template['demands']['vG'][0][key] = 'x'
            error = self.assertRaises(exception.InvalidInput,
                                      has_plan.translate, template)
            self.assertEqual(f'template.demands.vG[0].{key}', error.field)

    def test_constraint_demands_as_a_bare_string(self):
        template = copy.deepcopy(TEMPLATE)
        template['constraints']['check_cloud_capacity']['demands'] = 'vG'
        (request,) = has_plan.translate(template)
        self.assertEqual(10, request.demand['vcpus'])

    def test_candidate_inputs_of_the_demand(self):
        template = copy.deepcopy(TEMPLATE)
        template['demands']['vG'][0].update(
            region='r1', complex='DLLSTX',
            excluded_candidates=[{'inventory_type': 'cloud',
                                  'candidate_id': ['r2']},
                                 {'inventory_type': 'service',
                                  'candidate_id': ['r1']}],
            required_candidates=[{'inventory_type': 'cloud',
                                  'candidate_id': ['r1', 'r3']}],
            filtering_attributes={'cloud-owner': ['Owner']},
            passthrough_attributes={'tenant': 't1'})
        (request,) = has_plan.translate(template)
        self.assertEqual(has_demand.CandidateFilter(
            region='r1', complex='DLLSTX', excluded=frozenset({'r2'}),
            required=frozenset({'r1', 'r3'}),
            attributes={'cloud-owner': ['Owner']}), request.candidate_filter)
        self.assertEqual({'tenant': 't1'}, request.passthrough_attributes)
        template['demands']['vG'][0]['excluded_candidates'] = [
            {'inventory_type': 'cloud', 'candidate_id': 'r2'}]
        error = self.assertRaises(exception.InvalidInput,
                                  has_plan.translate, template)
        self.assertEqual(
            'template.demands.vG[0].excluded_candidates[0].candidate_id',
            error.field)


def region(region_id, **fields):
    return dict({'cloud_owner': 'Owner', 'region_id': region_id,
                 'cloud_type': 'OpenStack', 'latitude': 0, 'longitude': 0},
                **fields)


class TestCandidateFilter(testtools.TestCase):
    """Each row: the filter, then the region ids it keeps of r1..r3
    (r1: CLLI DLLSTX, version 2.5, zone z1; r2: owner Other)."""

    CANDIDATES = [
        region('r1', physical_location_id='DLLSTX',
               cloud_region_version='2.5', cloud_zone='z1'),
        region('r2', cloud_owner='Other'),
        region('r3')]

    def test_filters(self):
        cases = [
            (has_demand.CandidateFilter(), ['r1', 'r2', 'r3']),
            (has_demand.CandidateFilter(region='r2'), ['r2']),
            (has_demand.CandidateFilter(complex='DLLSTX'), ['r1']),
            (has_demand.CandidateFilter(excluded=frozenset({'r1'})),
             ['r2', 'r3']),
            (has_demand.CandidateFilter(required=frozenset({'r3'})), ['r3']),
            (has_demand.CandidateFilter(required=frozenset()), []),
            (has_demand.CandidateFilter(attributes={'cloud-owner': ['Owner']}),
             ['r1', 'r3']),
            (has_demand.CandidateFilter(
                attributes={'cloud-owner': {'any': ['Other']}}), ['r2']),
            (has_demand.CandidateFilter(
                attributes={'cloud-owner': {'not': ['Other']}}),
             ['r1', 'r3']),
            # HAS keeps a region whose attribute has no value
            (has_demand.CandidateFilter(
                attributes={'cloud-zone': ['z2']}), ['r2', 'r3']),
            # skipped as HAS does: they select A&AI services
            (has_demand.CandidateFilter(
                attributes={'model-invariant-id': ['m']}),
             ['r1', 'r2', 'r3']),
            # HAS drops a cloud region for an attribute it cannot have
            (has_demand.CandidateFilter(
                attributes={'global-customer-id': ['c']}), []),
        ]
        for candidate_filter, kept_ids in cases:
            kept, dropped = candidate_filter.split(self.CANDIDATES)
            self.assertEqual(kept_ids, [r['region_id'] for r in kept],
                             candidate_filter)
            self.assertEqual(3 - len(kept_ids), len(dropped))

    def test_reasons_name_the_input(self):
        kept, dropped = has_demand.CandidateFilter(
            excluded=frozenset({'r3'}), required=frozenset({'r1', 'r3'}),
            attributes={'cloud-zone': ['z9']}).split(self.CANDIDATES)
        self.assertEqual(
            ["filtering_attributes: cloud-zone is 'z1', not one of ['z9']",
             "not one of the demand's required_candidates",
             'excluded by the demand (excluded_candidates)'],
            [d.reason for d in dropped])


class TestRecommendations(testtools.TestCase):

    def ranked(self, name, value):
        region = homing.Region('Owner', name, 'OpenStack', 0, 0,
                               availability_zone='AZ-1',
                               physical_location_id='DLLSTX',
                               cloud_region_version='4.0')
        return homing.Ranked(region, 12.3456, homing.Cost(5, 'fixed'),
                             value, homing.Capacity(3, '3 fit'))

    def test_solutions_take_each_demands_kth_region(self):
        a = has_demand.DemandRequest('vG', 'svc-1')
        b = has_demand.DemandRequest('vDNS')
        solved = [
            (a, homing.Selection((self.ranked('r1', 1),
                                  self.ranked('r2', 2)), ())),
            (b, homing.Selection((self.ranked('r3', 1),), ()))]
        (solution,) = has_recommendations.recommendations(solved, limit=3)
        # HAS's candidate and attributes for a cloud region
        # (conductor/solver/service.py of onap/optf-has), ours under
        # "selection"
        self.assertEqual({
            'inventory_provider': 'placement_ext',
            'service_resource_id': 'svc-1',
            'candidate': {'candidate_id': 'r1', 'inventory_type': 'cloud',
                          'cloud_owner': 'Owner', 'location_type': 'att_aic',
                          'location_id': 'r1', 'is_rehome': 'false',
                          'vim-id': 'Owner_r1',
                          'availability_zone': 'AZ-1'},
            'attributes': {'physical-location-id': 'DLLSTX',
                           'cloud_owner': 'Owner', 'aic_version': '4.0'},
            'selection': {'cloud_type': 'OpenStack', 'distance_km': 12.346,
                          'net_value': 1, 'capacity': '3 fit',
                          'cost': 5}}, solution['vG'])
        self.assertEqual('r3', solution['vDNS']['candidate']['location_id'])
        self.assertEqual('', solution['vDNS']['service_resource_id'])
        self.assertEqual(2, len(has_recommendations.recommendations(
            solved[:1], 5)))
        self.assertEqual([], has_recommendations.recommendations(
            [(a, homing.Selection((), ()))], 5))
