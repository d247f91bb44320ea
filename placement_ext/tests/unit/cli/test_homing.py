"""``placement-ext homing select|realize`` and the selection service on
fake region clients: capacity through Placement and quota through Nova,
read once per region and zone, the worked example, bad input."""

import json

import fixtures
import oslo_messaging
import yaml
from oslo_config import cfg
from oslo_config import fixture as config_fixture

from placement_ext import conf as pe_conf
from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext.conductor import homing
from placement_ext.conductor import homing_inputs
from placement_ext.conductor import manager
from placement_ext.decision import homing as decision
from placement_ext.drivers.placement import driver as placement_driver
from placement_ext.schemas import homing as schema
from placement_ext.tests.unit.cli import test_reselection as base
from placement_ext.tests.unit.decision import test_has_hpa as hpa
from placement_ext.tests.unit.decision import test_has_plan
from placement_ext.tests.unit.decision import test_intent_realization as ir

FLAVOR = {'name': 'm1.small', 'id': 'f1', 'vcpus': 2, 'ram': 2048,
          'disk': 10}


class FakeNova:
    def __init__(self, aggregates, quota):
        self.aggregates, self.quota = aggregates, quota

    def flavors(self, extra_specs=False):
        return [dict(FLAVOR, extra_specs={})] if extra_specs else [FLAVOR]

    def zone_aggregates(self):
        return self.aggregates

    def quota_usage(self, project_id):
        return self.quota


class FakePlacement:
    def __init__(self, per_aggregate):
        self.per_aggregate = per_aggregate

    def zone_capacity(self, aggregates, resources):
        assert resources == {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 10}
        return placement_driver.ZoneCapacity(
            sum(self.per_aggregate[a] for a in aggregates), {})

    def cloud_capacity(self, resources):
        return placement_driver.ZoneCapacity(
            sum(self.per_aggregate.values()), {})


class FakeClients:
    """RegionOne: AZ-1 takes 1 more, AZ-2 takes 5; quota allows 4."""

    def __init__(self, unreachable=(), account_error=None):
        self.unreachable = unreachable
        self.account_error = account_error
        self.built = []
        self.authentications = 0

    def authenticate(self):
        self.authentications += 1
        if self.account_error:
            raise self.account_error

    def nova(self, region):
        self._check(region)
        return FakeNova({'AZ-1': ['agg1'], 'AZ-2': ['agg2']},
                        {'cores': (8, 0), 'instances': (10, 0)})

    def placement(self, region):
        self._check(region)
        return FakePlacement({'agg1': 1, 'agg2': 5})

    def project_id(self):
        return 'project-1'

    def _check(self, region):
        self.built.append(region)
        if region in self.unreachable:
            raise exception.ServiceUnavailable(service='Nova',
                                               reason='no endpoint')


def selection_request(**overrides):
    request = {
        'policy': {'content': {'cloud-cost-evaluation': False,
                               'cloud-deployment-intent': {
                                   schema.HIGH_AVAILABILITY: True}}},
        'candidates': [
            {'cloud_owner': 'Owner', 'region_id': 'RegionOne',
             'cloud_type': 'OpenStack', 'latitude': 0.0, 'longitude': 0.1,
             'availability_zone': 'AZ-1'},
            {'cloud_owner': 'Owner', 'region_id': 'RegionOne',
             'cloud_type': 'OpenStack', 'latitude': 0.0, 'longitude': 1.0,
             'availability_zone': 'AZ-2'},
            {'cloud_owner': 'Owner', 'region_id': 'RegionTwo',
             'cloud_type': 'OpenStack', 'latitude': 0.0, 'longitude': 0.0},
            {'cloud_owner': 'Azure', 'region_id': 'westeurope',
             'cloud_type': 'Azure', 'latitude': 0.0, 'longitude': 5.0},
        ],
        'customer_location': {'latitude': 0.0, 'longitude': 0.0},
        'demand': {'flavor': 'm1.small', 'count': 2},
    }
    request.update(overrides)
    return request


class ServiceTestCase(base.CliTestCase):

    def make_conf(self, **homing_opts):
        """A configuration whose overrides end with the test (option
        groups are shared between ConfigOpts objects)."""
        conf = cfg.ConfigOpts()
        pe_conf.register_opts(conf)
        conf([], default_config_files=[])
        self.useFixture(config_fixture.Config(conf)).config(
            group='homing', **homing_opts)
        return conf


class TestSelectService(ServiceTestCase):

    def test_capacity_and_reachability_drop_regions(self):
        clients = FakeClients(unreachable=('RegionTwo',))
        result = homing.select(self.make_conf(), selection_request(), clients)
        self.assertEqual('Owner_RegionOne/AZ-2',
                         result['selected']['region']['name'])
        reasons = {d['region']: d['reason'] for d in result['dropped']}
        self.assertIn('2 instance(s) needed, 1 instance(s) of m1.small fit in '
                      'zone AZ-1',
                      reasons['Owner_RegionOne/AZ-1'])
        self.assertIn('capacity unknown: Nova is unavailable',
                      reasons['Owner_RegionTwo'])
        self.assertIn('cannot realise', reasons['Azure_westeurope'])
        self.assertIn('the quota allows 4',
                      result['selected']['capacity'])
        # RegionOne: flavors, aggregates and quota once for both zones;
        # RegionTwo: the failed flavor list
        self.assertEqual({'nova': 4, 'placement': 2}, result['calls'])

    def test_a_size_instead_of_a_flavor(self):
        request = selection_request(demand={
            'vcpus': 2, 'memory_mb': 2048, 'disk_gb': 10, 'count': 3})
        result = homing.select(self.make_conf(), request, FakeClients())
        self.assertIn('6 instance(s) of 2 vCPU, 2048 MB, 10 GB fit in '
                      'region RegionTwo',
                      result['selected']['capacity'])

    def test_public_clouds_pass_or_drop_by_configuration(self):
        request = selection_request(policy={'content': {
            'cloud-cost-evaluation': False,
            'cloud-deployment-intent': {}}})
        request['candidates'] = request['candidates'][3:]
        result = homing.select(self.make_conf(), request, FakeClients())
        self.assertEqual('Azure_westeurope',
                         result['selected']['region']['name'])
        error = self.assertRaises(
            exception.NoRegion, homing.select,
            self.make_conf(public_cloud_capacity='drop'), request,
            FakeClients())
        self.assertIn('fails the capacity check by configuration',
                      error.detail)

    def test_cost_file(self):
        path = self.write('costs.yaml', yaml.safe_dump(
            {'cloud_types': {'Azure': -1000}}))
        request = selection_request(policy={'content': {
            'cloud-cost-evaluation': True, 'cloud-deployment-intent': {}}})
        result = homing.select(self.make_conf(cost_file=path), request,
                               FakeClients())
        self.assertEqual('Azure_westeurope',
                         result['selected']['region']['name'])
        self.assertEqual('cloud type Azure costs -1000',
                         result['selected']['cost_basis'])

    def test_a_bad_or_too_deep_cost_file_names_the_option(self):
        request = selection_request(policy={'content': {
            'cloud-cost-evaluation': True, 'cloud-deployment-intent': {}}})
        for content in ('{cloud_types: [1', '[' * 5000 + ']' * 5000):
            path = self.write('costs.yaml', content)
            error = self.assertRaises(exception.InvalidInput, homing.select,
                                      self.make_conf(cost_file=path),
                                      request, FakeClients())
            self.assertEqual(homing.COST_FILE_OPTION, error.field)

    def test_bad_requests_name_the_field(self):
        for request, field in (
                (selection_request(demand={'count': 2}), 'demand.flavor'),
                (selection_request(demand={'flavor': 'x', 'vcpus': 1}),
                 'demand.vcpus'),
                (selection_request(customer_location={'latitude': 91,
                                                      'longitude': 0}),
                 'customer_location.latitude'),
                (selection_request(candidates=[]), 'candidates'),
                (selection_request(weights={'distance': -1}),
                 'weights.distance')):
            error = self.assertRaises(exception.InvalidInput, homing.select,
                                      self.make_conf(), request, FakeClients())
            self.assertEqual(field, error.field)


class TestRealizeService(ServiceTestCase):

    def test_flavors_from_the_regions_nova(self):
        policy = {'content': {'vnfc': 'vgw', 'cloud-cost-evaluation': False,
                              'cloud-deployment-intent': {
                                  schema.ISOLATION: schema.GUARANTEED_QOS}}}
        error = self.assertRaises(
            exception.IntentUnrealisable, homing.realize, self.make_conf(),
            policy, ir.TEMPLATE, clients=FakeClients(),
            region_name='RegionOne')
        self.assertIn('Guaranteed QoS', error.detail)

    def test_bad_flavors_name_the_field(self):
        policy = {'content': {'cloud-cost-evaluation': False,
                              'cloud-deployment-intent': {}}}
        error = self.assertRaises(exception.InvalidInput, homing.realize,
                                  self.make_conf(), policy, ir.TEMPLATE,
                                  flavors=[{'name': 'x'}])
        self.assertEqual('flavors[0].vcpus', error.field)


class TestCli(base.CliTestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.conductor.homing_inputs.RegionClients',
            lambda conf: FakeClients()))

    def test_select_prints_the_choice(self):
        status, out, err = self.run_cli(
            'homing', 'select', '--request',
            self.write('request.json', selection_request()), '-f', 'json')
        self.assertEqual((0, ''), (status, err))
        result = json.loads(out)
        # the nearest region: its whole cloud's hosts take 6
        self.assertEqual('Owner_RegionTwo',
                         result['selected']['region']['name'])
        self.assertEqual(2, len(result['dropped']))
        self.assertEqual(2, result['ranked_total'])

    def test_select_exits_1_when_every_region_is_dropped(self):
        request = selection_request(demand={'flavor': 'm1.small',
                                            'count': 50})
        status, out, err = self.run_cli(
            'homing', 'select', '--request',
            self.write('request.json', request))
        self.assertEqual(1, status)
        self.assertIn('No candidate region can host the demand', err)
        self.assertIn('Owner_RegionOne/AZ-2: capacity', err)

    def test_realize_writes_the_template(self):
        policy = {'content': {'vnfc': 'vgw', 'cloud-cost-evaluation': False,
                              'cloud-deployment-intent': {
                                  schema.HIGH_AVAILABILITY: True,
                                  schema.ISOLATION: schema.BURSTABLE_QOS,
                                  schema.OVERSUBSCRIPTION: 25}}}
        flavors = [{'name': f.name, 'vcpus': f.vcpus, 'ram': f.ram,
                    'disk': f.disk, 'extra_specs': dict(f.extra_specs)}
                   for f in ir.FLAVORS]
        output = f'{self.tmp}/realised.yaml'
        status, out, err = self.run_cli(
            'homing', 'realize', '--policy', self.write('p.json', policy),
            '--template', self.write('t.yaml', yaml.safe_dump(ir.TEMPLATE)),
            '--flavors', self.write('f.json', flavors), '--output', output,
            '-f', 'json')
        self.assertEqual((0, ''), (status, err))
        result = json.loads(out)
        self.assertEqual('vgw.burst25', result['flavor'])
        with open(output) as stream:
            self.assertEqual(result['template'], yaml.safe_load(stream))

    def test_realize_refuses_an_operator_disallowed_percentage(self):
        policy = {'content': {'cloud-cost-evaluation': False,
                              'cloud-deployment-intent': {
                                  schema.ISOLATION: schema.BURSTABLE_QOS,
                                  schema.OVERSUBSCRIPTION: 30}}}
        status, out, err = self.run_cli(
            'homing', 'realize', '--policy', self.write('p.json', policy),
            '--template', self.write('t.json', ir.TEMPLATE))
        self.assertEqual(2, status)
        self.assertIn('30 is not one of', err)


class TestRegionReaderCaching(base.CliTestCase):

    def test_10000_candidates_of_two_zones_cost_a_few_calls(self):
        reader = homing_inputs.RegionReader(
            FakeClients(), instance='m1.small',
            public_types=frozenset(), public_verdict='pass')
        for index in range(10_000):
            reader.capacity(decision.Region(
                'Owner', 'RegionOne', 'OpenStack', 0, 0,
                availability_zone=f'AZ-{index % 2 + 1}',
                project='p'))
        # flavors, aggregates and quota once; Placement once per zone
        self.assertEqual({'nova': 3, 'placement': 2}, dict(reader.calls))


class TestConductorMethods(ServiceTestCase):
    """select_cloud and realize_intent, as the RPC server calls them."""

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.conductor.homing_inputs.RegionClients',
            lambda conf: FakeClients()))
        self.conductor = manager.ConductorManager(self.make_conf(), 'a')
        self.context = pe_context.get_admin_context(self.conductor.conf)

    def test_select_cloud(self):
        result = self.conductor.select_cloud(self.context,
                                             request=selection_request())
        # the nearest: its whole region's hosts take 6
        self.assertEqual('Owner_RegionTwo',
                         result['selected']['region']['name'])

    def test_no_region_is_an_expected_error(self):
        request = selection_request(demand={'flavor': 'm1.small',
                                            'count': 99})
        error = self.assertRaises(
            oslo_messaging.ExpectedException, self.conductor.select_cloud,
            self.context, request=request)
        self.assertIsInstance(error.exc_info[1], exception.NoRegion)

    def test_realize_intent(self):
        policy = {'content': {'vnfc': 'vgw', 'cloud-cost-evaluation': False,
                              'cloud-deployment-intent': {
                                  schema.HIGH_AVAILABILITY: True}}}
        result = self.conductor.realize_intent(
            self.context, policy=policy, template=ir.TEMPLATE)
        self.assertIn('vgw_anti_affinity', result['template']['resources'])

    def test_arguments_are_checked(self):
        error = self.assertRaises(
            oslo_messaging.ExpectedException, self.conductor.realize_intent,
            self.context, policy={}, template='not a template')
        self.assertEqual('template', error.exc_info[1].field)


class TestLimits(ServiceTestCase):
    """Keystone down, too many candidates or demands, a plan's deadline."""

    def test_keystone_down_drops_every_region_at_once_logged_once(self):
        logs = self.useFixture(fixtures.FakeLogger(
            name='placement_ext.conductor.homing_inputs'))
        candidates = [{'cloud_owner': 'Owner', 'region_id': f'Region{n}',
                       'cloud_type': 'OpenStack', 'latitude': 0.0,
                       'longitude': 0.0} for n in range(10_000)]
        clients = FakeClients(account_error=exception.ServiceUnavailable(
            service='keystone', reason='connection refused'))
        error = self.assertRaises(
            exception.NoRegion, homing.select, self.make_conf(),
            selection_request(candidates=candidates), clients)
        self.assertIn('Owner_Region9999: capacity: 2 instance(s) needed, '
                      'capacity unknown: keystone is unavailable',
                      error.detail)
        # one authentication, no region read, two log lines in all
        self.assertEqual((1, []), (clients.authentications, clients.built))
        lines = logs.output.splitlines()
        self.assertEqual(2, len(lines), lines[:3])
        self.assertIn('Capacity of 10000 regions unknown: keystone is '
                      'unavailable', lines[1])

    def test_too_many_candidates_are_refused(self):
        error = self.assertRaises(
            exception.InvalidInput, homing.select,
            self.make_conf(max_candidates=3), selection_request(),
            FakeClients())
        self.assertEqual('candidates', error.field)
        self.assertIn('has 4 candidate regions; at most 3 are accepted '
                      '([homing] max_candidates)', error.detail)

    def test_a_plan_of_too_many_demands_is_refused(self):
        template = {'demands': {'a': [], 'b': []}}
        conf = self.make_conf(max_plan_demands=1,
                              regions_file=self._regions(1))
        error = self.assertRaises(exception.InvalidInput, homing.solve_plan,
                                  conf, template, 1, FakeClients())
        self.assertEqual('template.demands', error.field)

    def test_a_regions_file_above_the_cap_is_refused(self):
        conf = self.make_conf(max_candidates=2,
                              regions_file=self._regions(3))
        error = self.assertRaises(exception.InvalidInput, homing.regions,
                                  conf)
        self.assertEqual('[homing] regions_file', error.field)

    def test_a_plan_past_its_deadline_reads_nothing_and_is_an_error(self):
        clients = FakeClients()
        conf = self.make_conf(regions_file=self._regions(3))
        answer = homing.solve_plan(conf, test_has_plan.TEMPLATE, 1, clients,
                                   deadline=0.0)
        self.assertEqual('error', answer['status'])
        self.assertIn('timed out', answer['message'])
        self.assertEqual([], clients.built)

    def test_hpa_flavors_their_capacity_and_the_hpa_score(self):
        # R0 nearer, its m1.small without DPDK; R1 with it; R2's flavor
        # lacks the mandatory feature; R3's does not exist in its Nova
        def region(n, *capabilities, name='m1.small'):
            return {'cloud_owner': 'Owner', 'region_id': f'R{n}',
                    'cloud_type': 'OpenStack', 'latitude': 0.0,
                    'longitude': 0.1 * n,
                    'flavors': [hpa.flavor(name, *capabilities)]}
        path = self.useFixture(fixtures.TempDir()).join('regions.yaml')
        with open(path, 'w') as stream:
            yaml.safe_dump([region(0, hpa.BASIC_8_16),
                            region(1, hpa.BASIC_8_16, hpa.DPDK),
                            region(2, hpa.BASIC_4_4),
                            region(3, hpa.BASIC_8_16, name='gone')], stream)
        template = {
            'homing_template_version': '2017-10-10',
            'locations': {'here': {'latitude': 0.0, 'longitude': 0.0}},
            'demands': {'vG': [{'inventory_type': 'cloud'}]},
            'constraints': {'hpa': {
                'type': 'hpa', 'demands': 'vG', 'properties': {
                    'evaluate': [hpa.vnfc(
                        'vg_1', 'label_1',
                        hpa.feature('basicCapabilities', 'True',
                                    hpa.AT_LEAST_8),
                        hpa.feature('ovsDpdk', 'False', [], score=5))]}}},
            'optimization': {'minimize': {'sum': [
                {'distance_between': ['here', 'vG']},
                {'product': [100, {'hpa_score': ['vG']}]}]}}}
        answer = homing.solve_plan(self.make_conf(regions_file=path),
                                   template, 2, FakeClients())
        self.assertEqual('done', answer['status'], answer['message'])
        first, second = (s['vG'] for s in answer['recommendations'])
        self.assertEqual(('R1', 'R0'), (first['candidate']['candidate_id'],
                                        second['candidate']['candidate_id']))
        self.assertEqual(({'label_1': 'm1.small'}, 5),
                         (first['selection']['flavor_map'],
                          first['selection']['hpa_score']))
        self.assertEqual('m1.small', first['attributes']['directives'][
            'directives'][0]['directives'][0]['attributes'][0][
            'attribute_value'])
        self.assertIn('6 instance(s) of m1.small fit',
                      first['selection']['capacity'])
        dropped = {d['region']: d['reason'] for d in answer['dropped']['vG']}
        self.assertIn('mandatory features of VNFC vg_1', dropped['Owner_R2'])
        self.assertEqual('capacity: 1 instance(s) needed, flavor gone does '
                         'not exist in region R3', dropped['Owner_R3'])

    def _regions(self, count):
        path = self.useFixture(fixtures.TempDir()).join('regions.yaml')
        with open(path, 'w') as stream:
            yaml.safe_dump([{'cloud_owner': 'Owner', 'region_id': f'R{n}',
                             'cloud_type': 'OpenStack', 'latitude': 0.0,
                             'longitude': 0.0} for n in range(count)],
                           stream)
        return path
