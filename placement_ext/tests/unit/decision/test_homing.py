"""Cloud selection: ONAP's worked example, every intent, every drop
reason, ties and the cost model."""

import math

import testtools

from placement_ext import exception
from placement_ext.decision import homing
from placement_ext.schemas import homing as schema
from placement_ext.schemas import validate

KM_PER_DEGREE = math.pi * homing.EARTH_RADIUS_KM / 180
CUSTOMER = (0.0, 0.0)
OPENSTACK = frozenset({'OpenStack', 'VMware VIO'})
CAPABILITIES = homing.Capabilities(high_availability=OPENSTACK,
                                   isolation=OPENSTACK)


def region(name, km=100.0, cloud_type='OpenStack', owner='Owner', **kw):
    """A region ``km`` north of the customer."""
    return homing.Region(owner, name, cloud_type, km / KM_PER_DEGREE, 0.0,
                         **kw)


def policy(cost=True, **intent):
    return {'content': {'cloud-cost-evaluation': cost,
                        'cloud-deployment-intent': intent}}


def intent_of(document, allowed=(25, 50)):
    validate.validate(schema.CLOUD_SELECTION_POLICY, document, 'policy')
    return homing.parse_intent(document, allowed)


def room(instances=10):
    return lambda _region: homing.Capacity(instances,
                                           f'{instances} fit')


def select(intent, candidates, *, capacity=None, costs=None, **kw):
    return homing.select(
        intent, candidates, customer=CUSTOMER,
        demand=kw.pop('demand', homing.Demand(1)),
        capabilities=CAPABILITIES,
        costs=costs or homing.CostModel(),
        capacity=capacity or room(), **kw)


class TestPolicySchema(testtools.TestCase):
    """ONAP's four examples, with its sets made JSON arrays."""

    def test_the_seeds_examples_are_valid(self):
        burstable = {schema.ISOLATION: schema.BURSTABLE_QOS,
                     schema.OVERSUBSCRIPTION: 25}
        for intent in (
                dict(burstable, **{schema.CLOUD_TYPES: ['VMware VIO']}),
                {schema.ISOLATION: schema.GUARANTEED_QOS},
                dict(burstable, **{schema.CLOUD_TYPES: ['VMware VIO',
                                                        'Azure'],
                                   schema.HIGH_AVAILABILITY: True}),
                {schema.HIGH_AVAILABILITY: True,
                 schema.ISOLATION: schema.GUARANTEED_QOS}):
            document = policy(**intent)
            document.update(service='cloudSelectionPolicy',
                            resources=['vgw'], policyScope=['vCPE', 'US'])
            intent_of(document)

    def test_typed_fields_are_checked(self):
        for intent, field in (
                ({schema.CLOUD_TYPES: 'OpenStack'}, schema.CLOUD_TYPES),
                ({schema.HIGH_AVAILABILITY: 'yes'},
                 schema.HIGH_AVAILABILITY),
                ({schema.ISOLATION: 'Best effort'}, schema.ISOLATION),
                ({schema.ISOLATION: schema.BURSTABLE_QOS,
                  schema.OVERSUBSCRIPTION: 2.5}, schema.OVERSUBSCRIPTION),
                ({'Infrastructure HA': True}, 'Infrastructure HA')):
            error = self.assertRaises(exception.InvalidInput, intent_of,
                                      policy(**intent))
            self.assertIn(field, error.field)

    def test_cost_evaluation_and_intent_are_required(self):
        error = self.assertRaises(
            exception.InvalidInput, intent_of,
            {'content': {'cloud-deployment-intent': {}}})
        self.assertEqual('content.cloud-cost-evaluation', error.field)


class TestParseIntent(testtools.TestCase):

    def test_burstable_needs_an_allowed_percentage(self):
        error = self.assertRaises(
            exception.InvalidInput, intent_of,
            policy(**{schema.ISOLATION: schema.BURSTABLE_QOS}))
        self.assertIn('required with Burstable QoS', error.reason)
        error = self.assertRaises(
            exception.InvalidInput, intent_of,
            policy(**{schema.ISOLATION: schema.BURSTABLE_QOS,
                      schema.OVERSUBSCRIPTION: 30}))
        self.assertIn('30 is not one of', error.reason)
        self.assertIn('25, 50', error.reason)

    def test_a_percentage_without_burstable_is_refused(self):
        error = self.assertRaises(
            exception.InvalidInput, intent_of,
            policy(**{schema.ISOLATION: schema.GUARANTEED_QOS,
                      schema.OVERSUBSCRIPTION: 25}))
        self.assertIn('only allowed with Burstable QoS', error.reason)

    def test_features(self):
        intent = intent_of(policy(**{
            schema.HIGH_AVAILABILITY: True,
            schema.ISOLATION: schema.BURSTABLE_QOS,
            schema.OVERSUBSCRIPTION: 50,
            schema.CLOUD_TYPES: ['OpenStack']}))
        self.assertEqual(('high_availability', 'burstable_qos'),
                         intent.features)
        self.assertEqual(50, intent.oversubscription)
        self.assertEqual(frozenset({'OpenStack'}), intent.cloud_types)
        self.assertEqual((), intent_of(policy()).features)


class TestWorkedExample(testtools.TestCase):
    """ONAP OOF homing example, step 6a: wd=1, wc=2; candidate 3 ($50,
    190 km) wins with 290 against 300 and 380."""

    def test_candidate_3_is_picked_with_value_290(self):
        costs = homing.CostModel(instance_costs={
            ('Owner', 'one', 'x1'): 100, ('Owner', 'two', 'x1'): 150,
            ('Owner', 'three', 'x1'): 50})
        selection = select(
            intent_of(policy()),
            [region('one', 100), region('two', 80), region('three', 190)],
            costs=costs, weights=homing.Weights(distance=1, cost=2),
            demand=homing.Demand(1, instance_type='x1'))
        values = {r.region.region_id: r.value for r in selection.ranked}
        self.assertEqual(['three', 'one', 'two'],
                         [r.region.region_id for r in selection.ranked])
        for name, value in (('one', 300), ('two', 380), ('three', 290)):
            self.assertAlmostEqual(value, values[name], places=6)
        self.assertEqual('instance type x1 costs 50',
                         selection.best.cost.basis)


class TestSelect(testtools.TestCase):

    def test_distance_only_without_cost_evaluation(self):
        costs = homing.CostModel(cloud_types={'OpenStack': 1000})
        selection = select(intent_of(policy(cost=False)),
                           [region('far', 300), region('near', 10)],
                           costs=costs)
        self.assertEqual('near', selection.best.region.region_id)
        self.assertIsNone(selection.best.cost)
        self.assertNotIn('cost', selection.best.to_dict())

    def test_zero_distance_weight_minimises_cost(self):
        costs = homing.CostModel(instance_costs={
            ('Owner', 'far', 'x'): 1, ('Owner', 'near', 'x'): 9})
        selection = select(intent_of(policy()),
                           [region('far', 900), region('near', 1)],
                           costs=costs, demand=homing.Demand(
                               1, instance_type='x'),
                           weights=homing.Weights(distance=0, cost=1))
        self.assertEqual('far', selection.best.region.region_id)

    def test_ties_go_to_the_nearer_then_cheaper_then_name(self):
        costs = homing.CostModel(instance_costs={
            ('Owner', 'a', 'x'): 50, ('Owner', 'b', 'x'): 0,
            ('Owner', 'c', 'x'): 0, ('Owner', 'd', 'x'): 0})
        # a: 0 km + 50 = 50; b, c, d: 50 km + 0 = 50
        candidates = [region('d', 50), region('a', 0), region('c', 50),
                      region('b', 50)]
        for order in (candidates, candidates[::-1]):
            selection = select(intent_of(policy()), order, costs=costs,
                               demand=homing.Demand(1, instance_type='x'))
            self.assertEqual(['a', 'b', 'c', 'd'],
                             [r.region.region_id for r in selection.ranked])

    def test_vim_ids_and_cloud_types_filter(self):
        intent = intent_of(policy(**{
            schema.VIM_IDS: ['Owner_one', 'Owner_two'],
            schema.CLOUD_TYPES: ['OpenStack']}))
        selection = select(intent, [
            region('one'), region('two', cloud_type='Azure'),
            region('three')])
        self.assertEqual(['one'],
                         [r.region.region_id for r in selection.ranked])
        reasons = {d.region.region_id: d.reason for d in selection.dropped}
        self.assertIn('cloud type Azure is not in', reasons['two'])
        self.assertIn('VIM id Owner_three is not in', reasons['three'])

    def test_a_cloud_type_that_cannot_realise_the_intent_is_dropped(self):
        intent = intent_of(policy(**{
            schema.HIGH_AVAILABILITY: True,
            schema.ISOLATION: schema.GUARANTEED_QOS}))
        selection = select(intent, [region('k8s', cloud_type='Kubernetes'),
                                    region('os')])
        self.assertEqual('os', selection.best.region.region_id)
        reason = selection.dropped[0].reason
        self.assertIn('cannot realise ' + schema.HIGH_AVAILABILITY, reason)
        self.assertIn('Guaranteed QoS', reason)

    def test_distance_limit(self):
        selection = select(intent_of(policy()),
                           [region('far', 2000), region('near', 10)],
                           max_distance_km=1500)
        self.assertEqual('near', selection.best.region.region_id)
        self.assertIn('more than the 1500 km allowed',
                      selection.dropped[0].reason)

    def test_capacity_is_asked_only_for_regions_that_passed(self):
        asked = []

        def capacity(candidate):
            asked.append(candidate.region_id)
            return homing.Capacity(1 if candidate.region_id == 'small'
                                   else 5, 'from Placement')

        selection = select(
            intent_of(policy(**{schema.CLOUD_TYPES: ['OpenStack']})),
            [region('small'), region('azure', cloud_type='Azure'),
             region('big', 500)],
            capacity=capacity, demand=homing.Demand(2))
        self.assertEqual(['small', 'big'], asked)
        self.assertEqual('big', selection.best.region.region_id)
        self.assertEqual('capacity: 2 instance(s) needed, from Placement',
                         selection.dropped[0].reason)

    def test_unknown_capacity_drops_and_unlimited_passes(self):
        def capacity(candidate):
            if candidate.region_id == 'public':
                return homing.Capacity(None, 'public cloud',
                                       unlimited=True)
            return homing.Capacity(None, 'Placement unreachable')

        selection = select(intent_of(policy()),
                           [region('private'),
                            region('public', 900, cloud_type='Azure')],
                           capacity=capacity)
        self.assertEqual('public', selection.best.region.region_id)
        self.assertIn('Placement unreachable', selection.dropped[0].reason)

    def test_no_region_names_every_reason(self):
        selection = select(intent_of(policy(**{
            schema.CLOUD_TYPES: ['Azure']})), [region('a'), region('b')])
        self.assertIsNone(selection.best)
        error = self.assertRaises(exception.NoRegion,
                                  selection.require_best)
        self.assertIn('Owner_a: cloud type OpenStack', error.detail)
        self.assertIn('Owner_b: cloud type OpenStack', error.detail)
        self.assertIsNone(selection.to_dict()['selected'])

    def test_duplicate_candidates_are_refused(self):
        error = self.assertRaises(exception.InvalidInput, select,
                                  intent_of(policy()),
                                  [region('a'), region('a')])
        self.assertEqual('candidates[1]', error.field)

    def test_zones_of_one_region_are_distinct_candidates(self):
        selection = select(intent_of(policy()), [
            region('r', 10, availability_zone='AZ-1'),
            region('r', 20, availability_zone='AZ-2')])
        self.assertEqual(['Owner_r/AZ-1', 'Owner_r/AZ-2'],
                         [r.region.name for r in selection.ranked])
        self.assertEqual('AZ-1', selection.to_dict()['selected']['region'][
            'availability_zone'])


class TestGreatCircle(testtools.TestCase):

    def test_known_distances(self):
        self.assertAlmostEqual(0.0, homing.great_circle_km(1, 2, 1, 2))
        # Paris - London, about 344 km
        self.assertAlmostEqual(
            343.5, homing.great_circle_km(48.8566, 2.3522, 51.5074,
                                          -0.1278), delta=1)
        # antipodes: half the circumference
        self.assertAlmostEqual(math.pi * homing.EARTH_RADIUS_KM,
                               homing.great_circle_km(0, 0, 0, 180))


class TestCostModel(testtools.TestCase):
    DOCUMENT = {
        'cloud_types': {'Azure': 120, 'OpenStack': 40},
        'instance_types': [
            {'cloud_owner': 'Azure', 'instance_type': 'generic'},
            {'cloud_owner': 'Azure', 'service': 'vCPE', 'vnfc': 'vgw',
             'instance_type': 'x1'}],
        'instance_costs': [
            {'cloud_owner': 'Azure', 'region_id': '5',
             'instance_type': 'x1', 'cost': 100},
            {'cloud_owner': 'Azure', 'region_id': '10',
             'instance_type': 'x1', 'cost': 120}],
        'feature_groups': [
            {'feature': 'burstable_qos', 'cost': -15},
            {'cloud_type': 'Azure', 'feature': 'high_availability',
             'cost': 30}],
    }

    def setUp(self):
        super().setUp()
        validate.validate(schema.COST_CONFIG, self.DOCUMENT, 'cost_file')
        self.model = homing.CostModel.from_document(self.DOCUMENT, 7)

    def test_instance_type_by_service_vnfc_and_owner(self):
        vgw = homing.Intent(cost_evaluation=True, vnfc='vgw')
        for region_id, amount in (('5', 100), ('10', 120), ('7', 120)):
            cost = self.model.cost(region(region_id, owner='Azure',
                                          cloud_type='Azure'),
                                   vgw, service='vCPE')
            self.assertEqual(amount, cost.amount)
        self.assertEqual('x1', self.model.instance_type('Azure', 'vCPE',
                                                        'vgw'))
        self.assertEqual('generic', self.model.instance_type(
            'Azure', 'vDNS', 'vgw'))
        self.assertIsNone(self.model.instance_type('Other', 'vCPE', 'vgw'))

    def test_fixed_cost_per_cloud_type_then_default(self):
        intent = homing.Intent(cost_evaluation=True)
        self.assertEqual(40, self.model.cost(region('r'), intent).amount)
        self.assertEqual(7, self.model.cost(
            region('r', cloud_type='GCP'), intent).amount)

    def test_feature_groups_add_costs_and_discounts(self):
        intent = homing.Intent(
            cost_evaluation=True, high_availability=True,
            isolation=schema.BURSTABLE_QOS, oversubscription=25)
        on_azure = self.model.cost(region('7', owner='Azure',
                                          cloud_type='Azure'), intent)
        self.assertEqual(120 - 15 + 30, on_azure.amount)
        self.assertIn('burstable_qos -15', on_azure.basis)
        self.assertIn('high_availability +30', on_azure.basis)
        self.assertEqual(40 - 15,
                         self.model.cost(region('r'), intent).amount)

    def test_a_bad_cost_file_names_the_field(self):
        error = self.assertRaises(
            exception.InvalidInput, validate.validate, schema.COST_CONFIG,
            {'feature_groups': [{'feature': 'speed', 'cost': 1}]},
            'cost_file')
        self.assertEqual('feature_groups[0].feature', error.field)


class TestQuota(testtools.TestCase):

    def test_the_tightest_limit_counts(self):
        usage = {'cores': (20, 14), 'ram': (51200, 0), 'instances': (10, 1)}
        self.assertEqual(3, homing.instances_within_quota(usage, 2, 2048))
        self.assertEqual(1, homing.instances_within_quota(
            dict(usage, ram=(4096, 2048)), 2, 2048))

    def test_unlimited_and_exhausted(self):
        self.assertIsNone(homing.instances_within_quota(
            {'cores': (-1, 5), 'ram': (-1, 0)}, 2, 512))
        self.assertEqual(0, homing.instances_within_quota(
            {'instances': (10, 12)}, 1, 1))
