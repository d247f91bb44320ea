import copy
import datetime

import testtools

from placement_ext import exception
from placement_ext.schemas import reservation

NOW = datetime.datetime(2030, 1, 1, 12, 0)
RID = '4d17d41a-830d-47b2-91c7-4f9fc0ae611e'
CLI = ('resource_type=virtual:instance,amount=6,vcpus=1,memory_mb=1024,'
       'disk_gb=10,affinity=None')
RESERVATION = {'resource_type': 'virtual:instance', 'amount': 6,
               'vcpus': 1, 'memory_mb': 1024, 'disk_gb': 10,
               'affinity': 'None'}
# What blazarclient's `lease create` posts.
LEASE = {'name': 'lease-1', 'start_date': '2030-01-02 12:00',
         'end_date': '2030-01-03 12:00', 'reservations': [RESERVATION],
         'events': [], 'before_end_date': None}


def changed(document, path, value):
    """A deep copy of ``document`` with ``value`` at ``path`` (a list of
    keys); the ``DELETE`` value removes the key."""
    document = copy.deepcopy(document)
    target = document
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return document


DELETE = object()


class TestReservation(testtools.TestCase):

    def test_accepted_affinities(self):
        cases = [(True, True), (False, False), (None, None),
                 ('True', True), ('False', False), ('None', None),
                 ('true', True), ('false', False), ('none', None)]
        for given, expected in cases:
            body = changed(RESERVATION, ['affinity'], given)
            self.assertIs(expected,
                          reservation.validate_reservation(body)['affinity'],
                          given)

    def test_defaults(self):
        body = changed(RESERVATION, ['affinity'], DELETE)
        self.assertEqual(
            {'resource_type': 'virtual:instance', 'amount': 6, 'vcpus': 1,
             'memory_mb': 1024, 'disk_gb': 10, 'affinity': None,
             'resource_properties': ''},
            reservation.validate_reservation(body))

    def test_whole_floats_become_ints(self):
        body = changed(RESERVATION, ['amount'], 6.0)
        amount = reservation.validate_reservation(body)['amount']
        self.assertEqual((6, int), (amount, type(amount)))

    def test_refused(self):
        cases = [
            # (field changed, value, field reported)
            ('resource_type', 'physical:host', 'resource_type'),
            ('resource_type', DELETE, 'resource_type'),
            ('amount', 0, 'amount'),
            ('amount', 2 ** 31, 'amount'),
            ('amount', '6', 'amount'),
            ('amount', True, 'amount'),
            ('amount', 1.5, 'amount'),
            ('vcpus', 0, 'vcpus'),
            ('memory_mb', 0, 'memory_mb'),
            ('memory_mb', DELETE, 'memory_mb'),
            ('disk_gb', -1, 'disk_gb'),
            ('affinity', 'yes', 'affinity'),
            ('affinity', 1, 'affinity'),
            ('affinity', 'TRUE', 'affinity'),
            ('resource_properties', 42, 'resource_properties'),
            ('flavor', 'm1.small', 'flavor'),
        ]
        for key, value, field in cases:
            body = changed(RESERVATION, [key], value)
            error = self.assertRaises(exception.InvalidInput,
                                      reservation.validate_reservation, body)
            self.assertEqual(field, error.field, (key, value))
        error = self.assertRaises(exception.InvalidInput,
                                  reservation.validate_reservation, [])
        self.assertEqual('reservation', error.field)


class TestLease(testtools.TestCase):

    def test_blazarclient_body(self):
        lease = reservation.validate_lease(LEASE, NOW)
        self.assertEqual({
            'name': 'lease-1',
            'start_date': datetime.datetime(2030, 1, 2, 12, 0),
            'end_date': datetime.datetime(2030, 1, 3, 12, 0),
            'before_end_date': None,
            'reservations': [{
                'resource_type': 'virtual:instance', 'amount': 6,
                'vcpus': 1, 'memory_mb': 1024, 'disk_gb': 10,
                'affinity': None, 'resource_properties': ''}],
        }, lease)

    def test_dates(self):
        cases = [
            # (start, end, expected start, expected end)
            ('now', '2030-01-01 13:00', NOW, datetime.datetime(2030, 1, 1,
                                                              13)),
            ('2030-01-02T00:00:00Z', '2030-01-02T02:00:00+01:00',
             datetime.datetime(2030, 1, 2), datetime.datetime(2030, 1, 2, 1)),
            ('2030-01-02', '2030-01-02 00:00:01.5',
             datetime.datetime(2030, 1, 2),
             datetime.datetime(2030, 1, 2, 0, 0, 1, 500000)),
        ]
        for start, end, want_start, want_end in cases:
            body = changed(changed(LEASE, ['start_date'], start),
                           ['end_date'], end)
            lease = reservation.validate_lease(body, NOW)
            self.assertEqual((want_start, want_end),
                             (lease['start_date'], lease['end_date']),
                             (start, end))

    def test_now_may_be_aware(self):
        aware = NOW.replace(tzinfo=datetime.timezone(
            datetime.timedelta(hours=2)))
        body = changed(LEASE, ['start_date'], 'now')
        lease = reservation.validate_lease(body, aware)
        self.assertEqual(datetime.datetime(2030, 1, 1, 10),
                         lease['start_date'])

    def test_refused(self):
        cases = [
            # (path, value, field reported)
            (['start_date'], '2030-01-03 12:00', 'end_date'),   # equal
            (['start_date'], '2030-01-04 12:00', 'end_date'),   # after
            (['start_date'], 'tomorrow', 'start_date'),
            (['start_date'], '2030-13-01 12:00', 'start_date'),
            (['start_date'], '2030-01-0\u0662 12:00', 'start_date'),
            (['end_date'], 'now', 'end_date'),
            (['end_date'], DELETE, 'end_date'),
            (['before_end_date'], '2030-01-04 00:00', 'before_end_date'),
            (['before_end_date'], '2030-01-01 00:00', 'before_end_date'),
            (['name'], '', 'name'),
            (['name'], 'n' * 81, 'name'),
            (['reservations'], [], 'reservations'),
            (['reservations', 0, 'amount'], 0, 'reservations[0].amount'),
            (['reservations', 0, 'affinity'], 'x',
             'reservations[0].affinity'),
            (['events'], [{'event_type': 'x'}], 'events'),
            (['trust_id'], 'x', 'trust_id'),
        ]
        for path, value, field in cases:
            body = changed(LEASE, path, value)
            error = self.assertRaises(exception.InvalidInput,
                                      reservation.validate_lease, body, NOW)
            self.assertEqual(field, error.field, (path, value))

    def test_before_end_date_refused_even_inside_the_lease(self):
        body = changed(LEASE, ['before_end_date'], '2030-01-03 11:00')
        error = self.assertRaises(exception.InvalidInput,
                                  reservation.validate_lease, body, NOW)
        self.assertEqual('before_end_date', error.field)
        self.assertIn('not supported', error.reason)

    def test_before_end_date_left_out(self):
        body = changed(LEASE, ['before_end_date'], DELETE)
        self.assertNotIn('before_end_date',
                         reservation.validate_lease(body, NOW))


class TestCliString(testtools.TestCase):

    def test_issue_example(self):
        parsed = reservation.parse_reservation_string(CLI)
        self.assertEqual(RESERVATION, parsed)
        self.assertIsNone(
            reservation.validate_reservation(parsed)['affinity'])

    def test_parsing(self):
        cases = [
            ('amount=2, vcpus = 1 ,affinity=True',
             {'amount': 2, 'vcpus': 1, 'affinity': 'True'}),
            ('id=%s,amount=3' % RID, {'id': RID, 'amount': 3}),
            ('amount=-1', {'amount': -1}),
            ('affinity=', {'affinity': ''}),
            # JSON with commas and '=' stays one value, up to a known key
            ('resource_properties=["=", "$memory_mb", "4096"],amount=1',
             {'resource_properties': '["=", "$memory_mb", "4096"]',
              'amount': 1}),
            ('amount=1,resource_properties=["and", ["=", "$a", "1"], '
             '["=", "$b", "2"]]',
             {'amount': 1, 'resource_properties':
              '["and", ["=", "$a", "1"], ["=", "$b", "2"]]'}),
            ('resource_properties=42', {'resource_properties': '42'}),
        ]
        for text, expected in cases:
            self.assertEqual(expected,
                             reservation.parse_reservation_string(text), text)

    def test_refused(self):
        cases = [
            ('', 'reservation'),
            ('   ', 'reservation'),
            (None, 'reservation'),
            ('amount', 'reservation'),
            ('amount=1,,vcpus=1', 'reservation'),
            ('amount=1,flavor=m1', 'flavor'),
            ('amount=1,amount=2', 'amount'),
        ]
        for text, field in cases:
            error = self.assertRaises(
                exception.InvalidInput, reservation.parse_reservation_string,
                text)
            self.assertEqual(field, error.field, text)

    def test_cli_values_are_validated(self):
        parsed = reservation.parse_reservation_string(
            CLI.replace('amount=6', 'amount=six'))
        error = self.assertRaises(exception.InvalidInput,
                                  reservation.validate_reservation, parsed)
        self.assertEqual('amount', error.field)
