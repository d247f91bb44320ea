"""A manager process that stops for good in the middle of a lease event.

    python -m placement_ext.tests.functional.reservation.stuck_manager \
        DB_URL PLACEMENT_URL SIGNAL_FILE STEP

It runs the due lease events like a real manager (same workflows, a
fake Nova) but, on the ``STEP``-th Placement inventory change, writes
``SIGNAL_FILE`` and hangs, holding the event IN_PROGRESS, until the test
kills it with SIGKILL: a manager dying half-way through a start or an
end.
"""

import pathlib
import sys
import time

from placement_ext import conf as pe_conf
from placement_ext.db import api as db_api
from placement_ext.drivers import placement as placement_driver
from placement_ext.drivers.placement import client as pclient
from placement_ext.drivers.placement import reservation
from placement_ext.manager import reservations
from placement_ext.tests.fixtures import nova as fake_nova


def _hang_on(step: int, signal: pathlib.Path) -> None:
    calls = {'n': 0}

    def hanging(original):
        def change(self, *args, **kwargs):
            calls['n'] += 1
            if calls['n'] == step:
                signal.write_text('stuck\n')
                time.sleep(3600)
            return original(self, *args, **kwargs)
        return change

    # every inventory change goes through one of these two
    cls = reservation.ReservationProviders
    cls.set_inventory = hanging(cls.set_inventory)
    cls.delete_inventory = hanging(cls.delete_inventory)


def main(db_url: str, placement_url: str, signal: str, step: str) -> None:
    conf = pe_conf.new_conf([], default_config_files=[])
    conf.set_override('connection', db_url, group='database')
    client = pclient.PlacementClient.from_endpoint(placement_url)
    nova = fake_nova.FakeNova(client)
    _hang_on(int(step), pathlib.Path(signal))
    manager = reservations.Reservations(
        db_api.Database(conf), nova, placement_driver.PlacementDriver(client),
        reservations.Settings(server_poll_interval=0.01))
    manager.events.run_due()


if __name__ == '__main__':
    main(*sys.argv[1:])
