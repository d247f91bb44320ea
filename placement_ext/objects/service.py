"""The services table: which ``placement-ext-manager`` and
``placement-ext-conductor`` run, on which host, with which version of
the code (:mod:`placement_ext.vocabulary.service_versions`).

A service :func:`register` s at start, renews its :func:`heartbeat`
every ``report_interval`` seconds and :func:`remove` s its row when it
stops gracefully. A row whose heartbeat is older than
``service_down_time`` is a service that stopped without saying so
(killed, its host down): it is not :func:`live`.
"""

import dataclasses
import datetime

import sqlalchemy as sa

from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.vocabulary import service_versions


@dataclasses.dataclass(frozen=True)
class Service:
    binary: str
    host: str
    topic: str
    version: int
    heartbeat_at: datetime.datetime

    def describe(self) -> str:
        return f'{self.binary} on {self.host} (version {self.version})'


def register(database: db_api.Database, binary: str, host: str, topic: str,
             version: int = service_versions.SERVICE_VERSION) -> None:
    """Record (or replace) this service's row: its version, alive now."""
    table = models.Service.__table__
    now = models.utcnow()
    with database.writer() as session:
        updated = session.execute(
            table.update()
            .where(table.c.binary == binary, table.c.host == host)
            .values(topic=topic, version=version, heartbeat_at=now,
                    updated_at=now)).rowcount
        if not updated:
            session.execute(table.insert().values(
                binary=binary, host=host, topic=topic, version=version,
                heartbeat_at=now, created_at=now))


def heartbeat(database: db_api.Database, binary: str, host: str,
              topic: str) -> None:
    """Say the service is alive (its row is written again if an operator
    or a stale clean-up removed it)."""
    register(database, binary, host, topic)


def remove(database: db_api.Database, binary: str, host: str) -> None:
    table = models.Service.__table__
    with database.writer() as session:
        session.execute(table.delete().where(table.c.binary == binary,
                                             table.c.host == host))


def live(database: db_api.Database, down_time: float) -> list[Service]:
    """The services whose heartbeat is younger than ``down_time`` s."""
    since = models.utcnow() - datetime.timedelta(seconds=down_time)
    table = models.Service.__table__
    with database.reader() as session:
        rows = session.execute(
            sa.select(table.c.binary, table.c.host, table.c.topic,
                      table.c.version, table.c.heartbeat_at)
            .where(table.c.heartbeat_at >= since)
            .order_by(table.c.binary, table.c.host)).all()
    return [Service(*row) for row in rows]


def minimum_version(database: db_api.Database, binary: str,
                    down_time: float) -> int | None:
    """The oldest version among the live ``binary`` services (None when
    none runs)."""
    versions = [svc.version for svc in live(database, down_time)
                if svc.binary == binary]
    return min(versions) if versions else None
