"""Network partitions on the HA topology: nodes alive but cut off.

Each Galera and RabbitMQ node runs in its own network namespace
(``minicloud.netns``); a cut drops, silently, every packet a node sends
to the nodes on the other side (both sides: a symmetric partition; one
side: an asymmetric one). HAProxy, our services and the test stay
reachable from every node, as a controller's local services are.

* A Galera node cut from the other two while leases are created through
  both controllers' addresses (the cut node is controller 2's own): the
  node leaves the primary component and refuses writes (asserted straight
  on it); the writes through it fail and are retried until the heal;
  after the heal it rejoins, and nothing committed is lost.
* The same with one side only cut (the node's packets to the others
  dropped, theirs to it delivered).
* The RabbitMQ node that holds the managers' queue leader cut from the
  other two, both ways and one way (``cluster_partition_handling =
  pause_minority``): it pauses, the majority elects another leader,
  clients reconnect to it; after the heal the paused node rejoins by
  itself.
* Controller 2 cut from the database but not from RabbitMQ (every Galera
  node's answers to its HAProxy's own address lost) for ``CUT_SECONDS``:
  its manager keeps taking requests and retries their transactions until
  the heal; controller 1's database address answers throughout. (The
  reverse, a service cut from RabbitMQ but not from the database, is
  ``test_services.TestConductorCutOff``: connections reset, not dropped.)
* The conductor driving an operation cut from the database (not from
  RabbitMQ) past ``operation_takeover_timeout``: the other adopts it, the
  operation ends COMPLETED, its failed zone tried once, one owner at a
  time.

Each asserts what the kill cases do: no host holds more slots than it
has, every request ends created, refused with its reason or (a call
whose reply was lost) a timeout after which its lease exists once or not
at all, within the stated bound after the heal; the leases start;
Placement holds exactly our slots (``lease reconcile`` finds nothing).
The measures (time until the node is out, until it is back after the
heal, retries) are recorded in the test's details and, when
``PLACEMENT_EXT_HA_RESULTS`` names a file, in it
(``benchmarks/bench_partitions.py`` adds them to
``benchmarks/results/ha.*``).
"""

import json
import os
import pathlib
import time

import testtools.content

from placement_ext.objects import lease as lease_obj
from placement_ext.objects import operation as op_obj
from placement_ext.tests.functional.ha import fixture as ha_fixture
from placement_ext.tests.functional.ha import test_galera_leases as galera
from placement_ext.tests.functional.ha import test_services as services
from placement_ext.vocabulary import states

# a cut node leaves the primary component within this (evs.suspect_timeout
# 5 s, evs.inactive_timeout 10 s, on a loaded machine)
DETECT_BOUND = 60
# a cut lasts until the majority served a few more requests (or this
# long), short of what a request's retries bear (db_max_retries 20, up
# to 2 s apart)
HOLD_BOUND = 20
# every request ends, and the cut node is back in sync, within this
# after the heal
RECOVER_BOUND = 120
RESULTS_ENV = 'PLACEMENT_EXT_HA_RESULTS'
# a controller cut from the database this long: within what its services'
# retries bear (ha.DB_OPTIONS: 20 retries, up to 5 s apart)
CUT_SECONDS = 30


def record(test, case: str, **measures: object) -> None:
    """Add ``measures`` to the test's details and, when asked, to the
    results file (one JSON object per case)."""
    test.addDetail(case, testtools.content.json_content(measures))
    path = os.environ.get(RESULTS_ENV)
    if not path:
        return
    results = pathlib.Path(path)
    rows = json.loads(results.read_text()) if results.exists() else {}
    rows[case] = measures
    results.write_text(json.dumps(rows, indent=2, sort_keys=True) + '\n')


def record_rpc(test, case: str, outcomes: dict, total: float,
               after_heal: float, **measures: float) -> None:
    """:func:`record` for a case whose requests went through RPC
    (``test_services``' outcomes)."""
    record(test, case, requests=len(outcomes),
           created=sum(o == 'created' for o in outcomes.values()),
           answer_lost=sum(o.startswith('lost') for o in outcomes.values()),
           overbooked=0, lost=0, **measures,
           seconds_heal_to_last_answer=round(max(0.0, after_heal), 1),
           seconds_total=round(total, 1))


class TestGaleraPartition(galera.GaleraTestCase):

    def setUp(self):
        super().setUp()
        ha_fixture.links(self)

    def _minority_refuses_writes(self, node: int) -> None:
        result = ha_fixture.ha.galera_sql(
            ha_fixture.settings(), node,
            'CREATE DATABASE IF NOT EXISTS pe_partition_probe')
        self.assertNotEqual(0, result.returncode, 'the minority wrote')
        self.assertIn('WSREP', result.stderr)

    def _cut_during_creates(self, case: str, symmetric: bool) -> None:
        # each manager writes through its controller's address; HAProxy's
        # TCP check keeps sending controller 2 to its cut node, whose
        # refusals (1047) oslo.db retries until the heal
        managers = self.managers(self.ha['controller_db_urls'],
                                 reconnect=True)
        measures = {}

        def cut_when_some_done(outcomes):
            ha_fixture.polling.until(lambda: len(outcomes) >= 4 or None,
                                     timeout=galera.BOUND, interval=0.05)
            ha_fixture.partition(self, ['galera1'], ['galera0', 'galera2'],
                                 symmetric=symmetric)
            measures['seconds_to_leave_primary'] = round(
                ha_fixture.wait_galera(
                    1, DETECT_BOUND, wsrep_cluster_status='non-Primary'), 1)
            self._minority_refuses_writes(1)
            # the majority keeps serving meanwhile
            ha_fixture.wait_galera(0, DETECT_BOUND, wsrep_ready='ON',
                                   wsrep_cluster_size='2')
            before = len(outcomes)
            ha_fixture.polling.until(
                lambda: len(outcomes) >= before + 2 or None,
                timeout=HOLD_BOUND, interval=0.2)
            measures['answered_during_cut'] = len(outcomes) - before
            measures['healed_at'] = ha_fixture.heal()
            measures['seconds_to_resync'] = round(ha_fixture.wait_galera(
                1, RECOVER_BOUND, wsrep_local_state_comment='Synced',
                wsrep_cluster_size='3'), 1)

        start = time.monotonic()
        outcomes = self.create_concurrently(managers, 10,
                                            during=cut_when_some_done)
        ended = time.monotonic()
        created = self.created_despite_faults(outcomes)
        self.assertEqual(min(galera.CAPACITY, 20), len(created))
        found = self.assert_no_overbooking(created)
        self.assertLessEqual(ended - measures['healed_at'], RECOVER_BOUND)
        retries = self.db_log.output.count('transaction failed')
        self.assert_placement_matches(managers, found)
        # nothing the cut node had committed is missing on it now
        on_cut = self.galera.on(self.ha['galera_urls'][1])
        self.assertEqual(sorted(created), sorted(
            le.name for le in lease_obj.list_leases(on_cut)))
        record(self, case, requests=len(outcomes), created=len(created),
               answer_lost=len(created) - sum(
                   o == 'created' for o in outcomes.values()),
               overbooked=0, lost=0,
               db_retries_logged=retries,
               answered_during_cut=measures['answered_during_cut'],
               seconds_to_leave_primary=measures[
                   'seconds_to_leave_primary'],
               seconds_to_resync=measures['seconds_to_resync'],
               seconds_heal_to_last_answer=round(
                   max(0.0, ended - measures['healed_at']), 1),
               seconds_total=round(ended - start, 1))

    def test_galera_node_partitioned_during_creates(self):
        self._cut_during_creates('galera_node_partitioned', symmetric=True)

    def test_galera_node_cut_one_way_during_creates(self):
        # galera1's packets to the others are lost, theirs reach it
        self._cut_during_creates('galera_node_cut_one_way', symmetric=False)


class TestRabbitPartition(services.ServicesTestCase):

    def test_queue_leader_node_partitioned(self):
        self._cut_leader('rabbit_leader_partitioned', symmetric=True)

    def test_queue_leader_node_cut_one_way(self):
        # its packets to the others are lost, theirs reach it: its
        # distribution links stall both ways all the same
        self._cut_leader('rabbit_leader_cut_one_way', symmetric=False)

    def _cut_leader(self, case: str, symmetric: bool) -> None:
        ha_fixture.links(self)
        leader = ha_fixture.queue_leader(self.s, 'placement_ext_manager')
        others = [n for n in range(ha_fixture.ha.NODES) if n != leader]
        observer = others[0]
        measures = {}

        def cut():
            ha_fixture.partition(self, [f'rabbit{leader}'],
                                 [f'rabbit{n}' for n in others],
                                 symmetric=symmetric)
            # pause_minority: the majority sees it go (net_ticktime)
            measures['seconds_to_pause'] = round(
                ha_fixture.wait_rabbit_running(2, services.BOUND,
                                               node=observer), 1)
            # the majority elects another leader for the managers' queue
            measures['new_leader'] = ha_fixture.polling.until(
                lambda: _other_leader(self.s, leader, observer),
                timeout=services.BOUND, interval=1)
            measures['healed_at'] = ha_fixture.heal()
            measures['seconds_to_rejoin'] = round(
                ha_fixture.wait_rabbit_running(3, services.BOUND,
                                               node=observer), 1)

        start = time.monotonic()
        outcomes = self.create_during(self.slots + 4, cut)
        ended = time.monotonic()
        self.assertIn('healed_at', measures, 'the cut never ran')
        self.assertLessEqual(ended - measures['healed_at'],
                             services.BOUND)
        self.assert_converged(outcomes)
        self.assertIsNotNone(measures['new_leader'],
                             'the queue kept its leader on the paused node')
        record_rpc(self, case, outcomes,
                   ended - start, ended - measures['healed_at'],
                   seconds_to_pause=measures['seconds_to_pause'],
                   seconds_to_rejoin=measures['seconds_to_rejoin'])


class TestControllerCut(services.ServicesTestCase):

    def test_controller_cut_from_the_database_not_from_rabbitmq(self):
        # controller 2's manager keeps taking requests from the queue
        # but cannot reach Galera: its transactions retry until the heal
        ha_fixture.links(self)
        urls = self.ha['controller_db_urls']
        measures = {}

        def cut():
            start = time.monotonic()
            ha_fixture.cut_controller_from_database(self, 2)
            self.assertTrue(ha_fixture.polling.until(
                lambda: not ha_fixture.database_answers(urls[1]) or None,
                timeout=DETECT_BOUND, interval=0.5),
                "controller 2 still reaches the database")
            measures['seconds_to_cut'] = round(time.monotonic() - start, 1)
            # the cut lasts CUT_SECONDS; controller 1's database answers
            # throughout
            until = time.monotonic() + CUT_SECONDS

            def other_serves():
                self.assertTrue(ha_fixture.database_answers(urls[0]))
                return True if time.monotonic() >= until else None

            ha_fixture.polling.until(other_serves, timeout=CUT_SECONDS + 30,
                                     interval=1)
            measures['healed_at'] = ha_fixture.heal()
            self.assertTrue(ha_fixture.polling.until(
                lambda: ha_fixture.database_answers(urls[1]) or None,
                timeout=RECOVER_BOUND, interval=0.5),
                "controller 2's database address did not come back")
            measures['seconds_to_reconnect'] = round(
                time.monotonic() - measures['healed_at'], 1)

        start = time.monotonic()
        outcomes = self.create_during(self.slots + 4, cut)
        ended = time.monotonic()
        self.assertLessEqual(ended - measures['healed_at'], RECOVER_BOUND)
        self.assert_converged(outcomes)
        record_rpc(self, 'controller_cut_from_database', outcomes,
                   ended - start, ended - measures['healed_at'],
                   seconds_to_cut=measures['seconds_to_cut'],
                   seconds_to_reconnect=measures['seconds_to_reconnect'])


class TestConductorCut(services.HAConductorTestCase):

    def test_conductor_cut_from_the_database_mid_operation(self):
        """The conductor driving an operation loses the database (not
        RabbitMQ) for longer than ``operation_takeover_timeout`` (30 s):
        its heartbeat goes stale, the other conductor adopts the
        operation; after the heal the cut one must not act on it again.
        The operation ends COMPLETED, AZ-1 tried once, one owner at a
        time."""
        ha_fixture.links(self)
        self.cloud.fill_zone('AZ-1')
        api, context = self.api()
        op_id = api.start_operation(context, self.request(
            'INSTANTIATE', {'VDU1-0': 'AZ-1'}, ['VDU1-0']))['id']
        owners = []
        cut = self.wait(op_id, lambda op: op.owner is not None,
                        owners).owner
        start = time.monotonic()
        ha_fixture.cut_controller_from_database(
            self, int(cut[len('controller'):]))
        # the test reads through node 2 directly: not cut
        op = self.wait(op_id, lambda op: op.owner not in (None, cut)
                       or op.state not in op_obj.RUNNABLE_STATES, owners)
        adopted = round(time.monotonic() - start, 1)
        healed_at = ha_fixture.heal()
        op = self.wait(op_id, lambda op: op.state not in
                       op_obj.RUNNABLE_STATES, owners)
        ended = time.monotonic()
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertIsNone(op.owner)
        self.assertEqual(['AZ-1'], op.failed_zones['VDU1-0'])
        self.assertEqual(2, len(op.attempts))
        self.assert_one_owner_at_a_time(owners, 2)
        self.assertLessEqual(ended - healed_at, RECOVER_BOUND)
        record(self, 'conductor_cut_from_database', operations=1,
               ended=op.state, owners=len({o for o in owners if o}),
               attempts=len(op.attempts), overbooked=0, lost=0,
               seconds_to_adoption=adopted,
               seconds_heal_to_end=round(max(0.0, ended - healed_at), 1))


def _other_leader(s, leader: int, observer: int) -> int | None:
    """The managers' queue leader as ``observer`` sees it, if not
    ``leader``."""
    try:
        now = ha_fixture.queue_leader(s, 'placement_ext_manager',
                                      node=observer)
    except (AssertionError, ValueError):
        return None                   # no leader for a moment
    return now if now != leader else None
