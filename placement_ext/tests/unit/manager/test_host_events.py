"""The core's recovery of a host service's interrupted lease events:
which run again, which creates fail, over a fake host service."""

import datetime

import testtools

from placement_ext.manager import host_events
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.objects import test_host

NOW = datetime.datetime(2030, 1, 1, 12)
STALE = NOW - datetime.timedelta(seconds=600)
OLD = STALE - datetime.timedelta(seconds=1)


class FakeHost:
    def __init__(self, events=(), leases=()):
        self.events = list(events)
        self.by_id = {lease.id: lease for lease in leases}
        self.again, self.failed = [], []

    def running_events(self, default):
        return self.events

    def lease(self, lease_id, default):
        return self.by_id.get(lease_id)

    def leases(self, default):
        return list(self.by_id.values())

    def run_again(self, event):
        self.again.append(event.id)

    def fail_create(self, lease):
        self.failed.append(lease.id)


def event(lease_id, event_type='start_lease', changed=OLD):
    return host_events.HostEvent(f'e-{lease_id}', lease_id, event_type,
                                 changed)


class TestRecover(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = db_fixture.use_database(self).db
        self.given_back = []

    def recover(self, host):
        return host_events.recover(self.db, host,
                                   lambda lease: self.given_back.append(
                                       lease.name), STALE)

    def test_which_events_run_again(self):
        host = FakeHost(
            [event('running'), event('waiting'), event('live', changed=NOW),
             event('mixed'), event('other'), event('gone'),
             event('ending', 'end_lease')],
            [host_events.HostLease('running', OLD, running='start_lease'),
             host_events.HostLease('waiting', OLD, waiting='start_lease'),
             host_events.HostLease('live', OLD, running='start_lease'),
             host_events.HostLease('mixed', OLD, running='start_lease',
                                   ours=False),
             host_events.HostLease('other', OLD, waiting='end_lease'),
             host_events.HostLease('ending', OLD, running='end_lease')])
        self.assertEqual(['running', 'waiting', 'ending'],
                         self.recover(host))
        self.assertEqual(['e-running', 'e-waiting', 'e-ending'], host.again)

    def test_a_stale_create_gives_our_part_back_then_fails(self):
        host_id = test_host.make_host(self.db, 'cn1').id
        new = lease_obj.NewReservation(vcpus=1, memory_mb=1, disk_gb=1,
                                       amount=1, affinity=None,
                                       slots={host_id: 1})
        with self.db.writer():
            lease_obj.create(self.db, name=new.id, user_id='u',
                             project_id='p', start_date=NOW,
                             end_date=NOW + datetime.timedelta(1),
                             reservations=[new])
        host = FakeHost(leases=[
            host_events.HostLease('killed', OLD, creating=True,
                                  reservation_ids=(new.id, 'never-made')),
            host_events.HostLease('recent', NOW, creating=True),
            host_events.HostLease('theirs', OLD, creating=True,
                                  ours=False)])
        self.assertEqual(['killed'], self.recover(host))
        self.assertEqual([new.id], self.given_back)
        self.assertEqual(['killed'], host.failed)


class TestThrottled(testtools.TestCase):

    def test_touches_at_most_every_interval(self):
        times = iter(NOW + datetime.timedelta(seconds=s)
                     for s in (0, 2, 5, 7, 11))
        touched = []
        progress = host_events.throttled(touched.append, lambda: next(times))
        for _ in range(4):
            progress()
        self.assertEqual([NOW + datetime.timedelta(seconds=5),
                          NOW + datetime.timedelta(seconds=11)], touched)
