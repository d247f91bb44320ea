"""The conductor's capacity pre-check ([v2_vnfm] placement_az_precheck)."""

import re

import testtools

from placement_ext import conf as pe_conf
from placement_ext import exception
from placement_ext.conductor import lifecycle
from placement_ext.conductor import zone_inputs
from placement_ext.conf import v2_vnfm
from placement_ext.objects import operation as op_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import stacks as fake_stacks
from placement_ext.tests.unit.conductor import test_lifecycle
from placement_ext.vocabulary import states

ZONES = test_lifecycle.ZONES
SMALL = {'vcpus': 1, 'memory_mb': 512, 'disk_gb': 1}
FLAVORS = {'VDU1': SMALL, 'VDU2': SMALL}


def request(placement, constraints=None, **extra):
    body = test_lifecycle.request(
        placement=placement, targets=sorted(placement), flavors=FLAVORS,
        grant_zones=list(ZONES), **extra)
    if constraints:
        body['constraints'] = constraints
    return body


def anti(*vnfcs, fallback=True):
    constraint = {'affinityOrAntiAffinity': 'ANTI_AFFINITY', 'scope': 'ZONE',
                  'resource': [{'idType': 'GRANT', 'resourceId': v}
                               for v in vnfcs]}
    if fallback is not None:
        constraint['fallbackBestEffort'] = fallback
    return constraint


class StaleZones(fake_stacks.FakeZones):
    """Reports ``stale`` room at the first read, the truth after."""

    def __init__(self, zones, heat, stale):
        super().__init__(zones, heat)
        self.stale = stale

    def capacity(self, zones, request, vnfc):
        if self.stale is not None:
            stale, self.stale = self.stale, None
            return {zone: stale.get(zone, 0) for zone in zones}
        return super().capacity(zones, request, vnfc)


class TestPrecheck(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db

    def _run(self, room, body, precheck=True, stale=None):
        self.heat = fake_stacks.FakeHeat(room)
        zones = StaleZones(ZONES, self.heat, stale)
        settings = lifecycle.Settings(
            capacity_error=re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR),
            precheck=precheck)
        runner = lifecycle.LifecycleRunner(self.db, self.heat, zones,
                                           settings)
        op = op_obj.create(self.db, vnf_instance_id='vnf-1',
                           operation=body['operation'], params=body,
                           placement=body['placement'])
        return runner.run(op.id)

    def sent(self):
        """The placement of each stack create or update sent to Heat."""
        return [{vnfc: spec['locationConstraints']
                 for vnfc, spec in call[1]['nfv']['VDU'].items()}
                for call in self.heat.calls if call[0] in ('create',
                                                           'update')]

    def test_moves_a_target_out_of_a_full_zone_before_heat(self):
        op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-4': 3},
                       request({'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-2'}))
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual([{'VDU1-0': 'AZ-4', 'VDU2-0': 'AZ-2'}], self.sent())
        (attempt,) = op.attempts
        self.assertEqual(('VDU1-0', 'AZ-4', states.OUTCOME_SUCCESS),
                         (attempt.vdu_id, attempt.zone, attempt.outcome))
        decision = attempt.decision
        self.assertTrue(decision['precheck'])
        self.assertEqual({'VDU1-0': ['AZ-1', 'AZ-4']}, decision['moved'])
        self.assertEqual(0, decision['room']['VDU1-0']['AZ-1'])
        reasons = '\n'.join(decision['reasons'])
        self.assertIn('pre-check: VDU1-0: AZ-1 -> AZ-4 (AZ-1 is known too '
                      'small', reasons)
        self.assertIn('the zones the Grant lists', reasons)

    def test_option_off_sends_the_grant_as_it_is(self):
        op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-4': 3},
                       request({'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-2'}),
                       precheck=False)
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual([{'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-2'},
                          {'VDU1-0': 'AZ-4', 'VDU2-0': 'AZ-2'}], self.sent())
        self.assertEqual({'reasons': ['placement as granted']},
                         op.attempts[0].decision)
        self.assertNotIn('room', op.attempts[1].decision)

    def test_fitting_grant_is_sent_as_it_is_with_the_check_recorded(self):
        op = self._run({'AZ-1': 1, 'AZ-2': 1},
                       request({'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-2'}))
        self.assertEqual(1, len(op.attempts))
        reasons = op.attempts[0].decision['reasons']
        self.assertEqual('placement as granted', reasons[0])
        self.assertIn('every target fits', reasons[1])

    def test_no_move_unless_fallback_best_effort_is_true(self):
        for fallback in (False, None):
            body = request({'VDU2-0': 'AZ-1', 'VDU2-1': 'AZ-2'},
                           constraints=[anti('VDU2-0', 'VDU2-1',
                                             fallback=fallback)])
            op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-3': 1}, body)
            self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
            self.assertEqual('AZ-1', self.sent()[0]['VDU2-0'], fallback)
            self.assertEqual(2, len(op.attempts))

    def test_best_effort_constraint_lets_the_target_move(self):
        body = request({'VDU2-0': 'AZ-1', 'VDU2-1': 'AZ-2'},
                       constraints=[anti('VDU2-0', 'VDU2-1')])
        op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-3': 1}, body)
        self.assertEqual([{'VDU2-0': 'AZ-3', 'VDU2-1': 'AZ-2'}], self.sent())
        self.assertEqual([], op.attempts[0].decision['broken'])

    def test_never_moves_outside_the_zones_the_grant_allows(self):
        body = request({'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-2'})
        body['grant_zones'] = ['AZ-1', 'AZ-2']
        op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-5': 9}, body)
        self.assertEqual('AZ-1', self.sent()[0]['VDU1-0'])
        self.assertIn('no zone the Grant allows is known to fit',
                      '\n'.join(op.attempts[0].decision['reasons']))
        # without a zone list: only the zones the targets were granted
        del body['grant_zones']
        body['placement'] = {'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-5'}
        op = self._run({'AZ-1': 0, 'AZ-4': 9, 'AZ-5': 9}, body)
        self.assertEqual([{'VDU1-0': 'AZ-5', 'VDU2-0': 'AZ-5'}], self.sent())

    def test_after_a_failure_every_target_of_the_full_zone_moves(self):
        # Placement first says AZ-1 has room (stale): both go there; Heat
        # fails VDU2-0; VDU1-1 must not be sent into AZ-1 again
        body = request({'VDU1-0': 'AZ-2', 'VDU1-1': 'AZ-1',
                        'VDU2-0': 'AZ-1'})
        room = {'AZ-1': 0, 'AZ-2': 1, 'AZ-3': 5, 'AZ-4': 5}
        op = self._run(room, body, stale={'AZ-1': 2, 'AZ-2': 1})
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual(2, len(op.attempts))
        second = self.sent()[1]
        self.assertNotIn('AZ-1', (second['VDU1-1'], second['VDU2-0']))
        decision = op.attempts[1].decision
        self.assertEqual({'VDU1-1', 'VDU2-0'}, set(decision['moved']))
        self.assertIn('pre-check: VDU1-1: AZ-1 ->',
                      '\n'.join(decision['reasons']))
        # without the pre-check: a third attempt, VDU1-1 failing in AZ-1
        op = self._run(room, body, precheck=False)
        self.assertEqual(3, len(op.attempts))
        self.assertEqual({'VDU2-0': ['AZ-1'], 'VDU1-1': ['AZ-1']},
                         op.failed_zones)


class TestSettings(testtools.TestCase):

    def test_precheck_is_on_by_default_and_can_be_turned_off(self):
        conf = pe_conf.new_conf()
        self.assertTrue(lifecycle.Settings.from_conf(conf).precheck)
        conf.set_override('placement_az_precheck', False, group='v2_vnfm')
        self.assertFalse(lifecycle.Settings.from_conf(conf).precheck)


class TestCapacityByTarget(testtools.TestCase):

    def test_one_read_per_flavor_and_unknown_targets_left_out(self):
        reads = []

        class Source:
            def capacity(self, zones, request, vnfc):
                reads.append(vnfc)
                return None if vnfc.startswith('VDU3') else \
                    {zone: len(reads) for zone in zones}

        body = {'targets': ['VDU1-0', 'VDU1-1', 'VDU2-0', 'VDU3-0',
                            'VDU4-0'],
                'flavors': {'VDU1': SMALL, 'VDU2': SMALL,
                            'VDU3': dict(SMALL, vcpus=2)}}
        fits = zone_inputs.capacity_by_target(Source(), ['AZ-1'], body)
        self.assertEqual(['VDU1-0', 'VDU3-0'], reads)
        self.assertEqual({'VDU1-0': {'AZ-1': 1}, 'VDU1-1': {'AZ-1': 1},
                          'VDU2-0': {'AZ-1': 1}}, fits)


class TestReadsAfterAFailure(TestPrecheck):

    def test_the_reselection_reads_the_room_once_per_flavor(self):
        reads = []

        class Counted(StaleZones):
            def capacity(self, zones, request, vnfc):
                reads.append(vnfc)
                return super().capacity(zones, request, vnfc)

        self.heat = fake_stacks.FakeHeat({'AZ-2': 5})
        # the pre-check is told AZ-1 has room, so Heat finds it full
        zones = Counted(ZONES, self.heat, {'AZ-1': 5})
        runner = lifecycle.LifecycleRunner(
            self.db, self.heat, zones, lifecycle.Settings(
                capacity_error=re.compile(
                    v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR)))
        body = request({'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1'})
        op = op_obj.create(self.db, vnf_instance_id='vnf-1',
                           operation=body['operation'], params=body,
                           placement=body['placement'])
        op = runner.run(op.id)
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual({'VDU1-0': 'AZ-2', 'VDU1-1': 'AZ-2'}, op.placement)
        # the pre-check's read, then one for the reselection and the
        # other targets of the full zone together
        self.assertEqual(2, len(reads), reads)

    def test_a_flavor_read_a_moment_ago_is_not_asked_again(self):
        class Source:
            def capacity(self, zones, request, vnfc):
                raise AssertionError('asked again')

        body = {'targets': ['VDU1-0', 'VDU1-1'], 'flavors': {'VDU1': SMALL}}
        fits = zone_inputs.capacity_by_target(
            Source(), ['AZ-1'], body, read={'VDU1-1': {'AZ-1': 3}})
        self.assertEqual({'VDU1-0': {'AZ-1': 3}, 'VDU1-1': {'AZ-1': 3}},
                         fits)


class TestPrecheckInputs(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db

    def _first_decision(self, zones, body):
        heat = fake_stacks.FakeHeat({'AZ-1': 1})
        settings = lifecycle.Settings(
            capacity_error=re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR))
        runner = lifecycle.LifecycleRunner(self.db, heat, zones, settings)
        op = op_obj.create(self.db, vnf_instance_id='vnf-1',
                           operation=body['operation'], params=body,
                           placement=body['placement'])
        op = runner.run(op.id)
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        return op.attempts[0].decision

    def test_without_flavors_nova_is_not_asked(self):
        class NoNova:
            def candidates(self, request, restrict_to_grant):
                raise AssertionError('Nova asked')

        body = request({'VDU1-0': 'AZ-1'})
        del body['flavors']
        decision = self._first_decision(NoNova(), body)
        self.assertIn('no target has a flavor', decision['reasons'][1])

    def test_nova_unreachable_sends_the_grant_as_it_is(self):
        class DeadNova:
            def candidates(self, request, restrict_to_grant):
                raise exception.ServiceUnavailable(service='Nova',
                                                   reason='down')

        decision = self._first_decision(DeadNova(),
                                        request({'VDU1-0': 'AZ-1'}))
        self.assertEqual('placement as granted', decision['reasons'][0])
        self.assertIn('pre-check skipped: ', decision['reasons'][1])
