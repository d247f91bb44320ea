"""Our own services cut off by packet drop on the HA topology.

Each of our HA services runs in a cgroup of its own, and an nftables
rule drops its packets, and nobody else's, to or from chosen endpoints
(``minicloud.firewall``): silently, as a firewall's DROP or a dead link,
unlike ``test_services.TestConductorCutOff``'s resets (``ss -K``).

* Controller 2 (its manager and its conductor) cut from the three
  RabbitMQ nodes, not from the database, every packet both ways, for
  ``CUT_SECONDS`` while leases are created through the managers: the
  broker and the manager each notice only by missed heartbeats
  (``heartbeat_timeout_threshold`` 15 s); controller 1 serves; the
  calls controller 2 had lose their reply and time out
  (``CALL_TIMEOUT``), their lease there once or not at all; after the
  heal it answers RPC again.
* The asymmetric cut of the same: RabbitMQ's packets to controller 2
  lost, its own delivered (the broker still hears its heartbeats; it
  hears nothing: its consumer stalls until it gives the connection up).
* The conductor driving a zone reselection (AZ-1 full, the VNFC's move
  elsewhere in flight) cut from heat-api, nothing else, for
  ``HEAT_CUT_SECONDS``, longer than ``[heat] timeout`` (60 s), so a
  request in flight times out: the operation ends COMPLETED, or
  FAILED_TEMP with its cause, within ``RECOVER_BOUND`` after the heal;
  its owner never changes (its heartbeat goes to the database), AZ-1 is
  tried once, one stack and at most one server.

Each asserts no host's Placement usage over its capacity and what the
other partition cases assert (``test_partitions``); measures go to the
test's details and ``PLACEMENT_EXT_HA_RESULTS`` (``benchmarks/results/
ha.*``).
"""

import pathlib
import time

import oslo_messaging

from placement_ext import polling
from placement_ext.objects import operation as op_obj
from placement_ext.tests.functional.ha import fixture as ha_fixture
from placement_ext.tests.functional.ha import test_partitions as partitions
from placement_ext.tests.functional.ha import test_services as services
from placement_ext.vocabulary import states

# controller 2 cut from RabbitMQ this long: past two missed heartbeats
# (15 s) on both ends
CUT_SECONDS = 40
# the conductor cut from heat-api this long: past [heat] timeout (60 s)
HEAT_CUT_SECONDS = 75
# everything ends, and the cut service answers again, within this after
# the heal
RECOVER_BOUND = partitions.RECOVER_BOUND


class LogCount:
    """How many lines holding ``text`` HA service ``name`` logged since
    this was made (its retries: reconnects, requests failed)."""

    def __init__(self, logs: str, name: str, text: str) -> None:
        self.path = pathlib.Path(logs, f'ha-{name}.log')
        self.text = text
        self.start = self.path.stat().st_size

    def count(self) -> int:
        with self.path.open('rb') as f:
            f.seek(self.start)
            return f.read().decode(errors='replace').count(self.text)


def assert_not_overbooked(test, conn) -> int:
    """No resource provider uses more than its capacity ((total -
    reserved) x allocation_ratio) of any class; how many were read."""
    providers = conn.placement.get('/resource_providers').json()[
        'resource_providers']
    for rp in providers:
        base = f'/resource_providers/{rp["uuid"]}'
        inventories = conn.placement.get(f'{base}/inventories').json()[
            'inventories']
        usages = conn.placement.get(f'{base}/usages').json()['usages']
        for rc, used in usages.items():
            inv = inventories.get(rc)
            if inv is None:
                test.assertEqual(0, used, f'{rp["name"]} {rc}')
                continue
            capacity = (inv['total'] - inv['reserved']) * \
                inv['allocation_ratio']
            test.assertLessEqual(used, capacity, f'{rp["name"]} {rc}')
    return len(providers)


class TestControllerDroppedFromRabbit(services.ServicesTestCase):

    def test_controller_cut_from_rabbitmq_not_from_the_database(self):
        self._cut('controller_dropped_from_rabbitmq', 'both')

    def test_controller_deaf_to_rabbitmq(self):
        # the nodes' packets to controller 2 are lost, its own arrive
        self._cut('controller_deaf_to_rabbitmq', 'in')

    def _answers(self, timeout: float) -> dict | None:
        """Controller 2's manager's answer to a call sent to it alone;
        None if none came within ``timeout`` (and a call's 5 s)."""
        try:
            return polling.until(
                lambda: self.api.client.prepare(
                    server='controller2', timeout=5).call(self.context,
                                                          'ping'),
                timeout=timeout,
                retry_on=(oslo_messaging.MessagingTimeout,))
        except oslo_messaging.MessagingTimeout:
            return None

    def _cut(self, case: str, direction: str) -> None:
        urls = self.ha['controller_db_urls']
        self.assertIsNotNone(self._answers(services.BOUND))
        measures = {}

        reconnects = LogCount(self.ha['logs'], 'manager2',
                              'is unreachable')

        def cut():
            ha_fixture.cut_services(self, ['manager2', 'conductor2'],
                                    ha_fixture.rabbit_endpoints(),
                                    direction)
            until = time.monotonic() + CUT_SECONDS

            def both_databases_serve():
                # not cut from the database: its address answers
                self.assertTrue(ha_fixture.database_answers(urls[1]))
                self.assertTrue(ha_fixture.database_answers(urls[0]))
                return True if time.monotonic() >= until else None

            polling.until(both_databases_serve, timeout=CUT_SECONDS + 30,
                          interval=2)
            # it cannot answer while cut
            measures['answered_while_cut'] = self._answers(1) is not None
            measures['healed_at'] = ha_fixture.heal()
            answer = self._answers(RECOVER_BOUND)
            self.assertIsNotNone(answer, 'controller 2 never answered '
                                 'again after the heal')
            measures['seconds_to_answer'] = round(
                time.monotonic() - measures['healed_at'], 1)

        start = time.monotonic()
        outcomes = self.create_during(self.slots + 4, cut)
        ended = time.monotonic()
        self.assertIn('healed_at', measures, 'the cut never ran')
        self.assertFalse(measures['answered_while_cut'])
        self.assertLessEqual(ended - measures['healed_at'], RECOVER_BOUND)
        self.assert_converged(outcomes)
        partitions.record_rpc(
            self, case, outcomes, ended - start,
            ended - measures['healed_at'],
            seconds_cut=CUT_SECONDS,
            seconds_to_answer=measures['seconds_to_answer'],
            reconnects_retried=reconnects.count())


class TestConductorDroppedFromHeat(services.HAConductorTestCase):

    def test_conductor_cut_from_heat_mid_reselection(self):
        # AZ-1 failed, the move elsewhere is in flight: cut its driver
        # from Heat
        op_id, op, owners = self.reselecting()
        owner = op.owner
        failed = LogCount(self.ha['logs'],
                          owner.replace('controller', 'conductor'),
                          'Heat unreachable')
        ha_fixture.cut_services(
            self, [owner.replace('controller', 'conductor')],
            ha_fixture.heat_endpoints())
        cut_at = time.monotonic()
        until = cut_at + HEAT_CUT_SECONDS
        self.assertIn(op_obj.get(self.db, op_id).state,
                      op_obj.RUNNABLE_STATES, 'it ended before the cut')
        self.wait(op_id, lambda op: time.monotonic() >= until
                  or op.state not in op_obj.RUNNABLE_STATES, owners)
        # it may end while cut (FAILED_TEMP: a Heat request timed out)
        ended = time.monotonic()
        time.sleep(max(0.0, until - time.monotonic()))
        healed_at = ha_fixture.heal()
        op = self.wait(op_id, lambda op: op.state not in
                       op_obj.RUNNABLE_STATES, owners)
        if ended >= until:
            ended = time.monotonic()
        self.assertLessEqual(ended - healed_at, RECOVER_BOUND)
        self.assertIn(op.state, (states.STATE_COMPLETED,
                                 states.STATE_FAILED_TEMP))
        if op.state == states.STATE_FAILED_TEMP:
            # its cause: Heat, not reached
            self.assertIn('Heat', str(op.error))
        else:
            self.assertEqual(['AZ-1'], op.failed_zones['VDU1-0'])
        self.assertIsNone(op.owner)
        # one owner throughout: the cut conductor's heartbeat still
        # reaches the database, nobody adopts the operation
        self.assertEqual([owner], self.assert_one_owner_at_a_time(
            owners, 1))
        # nothing duplicated: one stack, at most one server for VDU1-0
        conn = self.cloud.admin
        stacks = [st for st in conn.orchestration.stacks()
                  if st.name == self.stack_name]
        self.assertEqual(1, len(stacks), stacks)
        servers = self.server_zones()
        self.assertLessEqual(len(servers), 1, servers)
        if op.state == states.STATE_COMPLETED:
            self.assertNotEqual('AZ-1', servers['VDU1-0'][1])
        providers = assert_not_overbooked(self, conn)
        partitions.record(
            self, 'conductor_dropped_from_heat', operations=1,
            ended=op.state, cause=op.error or '',
            owners=1, attempts=len(op.attempts), overbooked=0, lost=0,
            providers_checked=providers, seconds_cut=HEAT_CUT_SECONDS,
            heat_failures_logged=failed.count(),
            seconds_cut_to_end=round(ended - cut_at, 1),
            seconds_heal_to_end=round(max(0.0, ended - healed_at), 1))
