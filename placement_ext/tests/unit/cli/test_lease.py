"""``placement-ext lease create`` dates at the end of the calendar."""

from placement_ext import exception
from placement_ext.schemas import reservation as schema
from placement_ext.tests.unit.cli import base


class TestLastDates(base.CliTestCase):

    def test_start_too_late_for_the_default_end_names_end_date(self):
        # was exit 1 "date value out of range", no field
        status = self.run_cli(
            'lease', 'create', '--start-date', '9999-12-31 10:00',
            '--reservation', 'vcpus=1,memory_mb=512,disk_gb=1,amount=1',
            'l1')
        self.assertEqual(2, status)
        self.assertIn('Invalid --end-date: --start-date 9999-12-31 10:00 '
                      'leaves no room', self.stderr.getvalue())

    def test_offset_past_the_last_utc_date_names_the_field(self):
        exc = self.assertRaises(exception.InvalidInput, schema.parse_date,
                                '9999-12-31T23:00-05:00', 'end_date', None)
        self.assertEqual('end_date', exc.field)
        self.assertIn('out of range in UTC', exc.reason)
