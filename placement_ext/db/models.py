"""SQLAlchemy models: the tables placement_ext owns.

Two families of tables live here:

* Blazar-style instance reservations (``computehosts``,
  ``computehost_allocations``, ``leases``, ``reservations``,
  ``instance_reservations``, ``events``), following blazar's schema
  (``blazar/db/sqlalchemy/models.py``) minus its known defects: every
  constraint and index is named, ``affinity`` is nullable from the start
  (blazar migration 9593f3656974), lease names are unique per project, and
  deleting a lease cascades in the database instead of in Python.
* Tacker lifecycle operations with availability zone reselection
  (``operations``, ``zone_attempts``). Tacker keeps the zones it tried in
  memory only; persisting each attempt lets a retried operation resume and
  shows operators what was chosen and why.
* ONAP OOF-HAS homing plans (``homing_plans``): what a plan asked and
  what we answered, for ``GET /v1/plans/{id}``.

Concurrency: mutable aggregate roots (``computehosts``, ``leases``,
``operations``) carry a ``generation`` that every writer of the row or of
its children bumps with :func:`placement_ext.db.api.compare_and_swap`,
the way placement guards a resource provider and its inventories.

CHECK constraints guard only closed sets fixed by a spec (SOL003 operation
types and states, blazar event types and statuses) and numeric
invariants. They are the last line of defence: callers validate input
first and raise ``InvalidInput``; a violation is a bug, reported as
DBError (SQLite), DBConstraintError (PostgreSQL) or a raw
OperationalError 4025 (MariaDB).

Every model change needs a migration under ``alembic/versions``; the
``test_migrations`` tests fail when models and migrations differ.

Longer than 400 lines on purpose: every table in one module, as in
Placement's ``db/sqlalchemy/models.py``, so one metadata holds them for
the migrations and their comparison test.
"""

import datetime

import sqlalchemy as sa
from oslo_utils import timeutils
from oslo_utils import uuidutils
from sqlalchemy import orm
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Mapped
from sqlalchemy.orm import mapped_column

from placement_ext.vocabulary import states

# Names for every constraint and index, so migrations (and SQLite batch
# migrations in particular) can refer to them on every backend.
NAMING_CONVENTION = {
    'pk': 'pk_%(table_name)s',
    'ix': 'ix_%(table_name)s_%(column_0_N_name)s',
    'uq': 'uq_%(table_name)s_%(column_0_N_name)s',
    'ck': 'ck_%(table_name)s_%(constraint_name)s',
    'fk': 'fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s',
}

# MySQL/MariaDB DATETIME keeps whole seconds unless told otherwise; zone
# attempts and state changes need sub-second order and durations.
Timestamp = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')
# JSONB on PostgreSQL can be compared, grouped and indexed; plain JSON
# elsewhere (MariaDB stores it as LONGTEXT with a json_valid() check).
# none_as_null: Python None is SQL NULL, never the JSON text 'null'.
JSONType = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), 'postgresql')
# Heat and Nova error texts can exceed TEXT's 64 KiB on MySQL.
LongText = sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql', 'mariadb')

UUID_LENGTH = 36
NAME_LENGTH = 255


def utcnow() -> datetime.datetime:
    """Naive UTC now, the OpenStack convention for stored timestamps."""
    return timeutils.utcnow()


def _in(column: str, values: tuple[str, ...]) -> str:
    quoted = ', '.join(f"'{value}'" for value in values)
    return f'{column} IN ({quoted})'


# Independent of the server's defaults; utf8mb4 stores any name Nova or
# Keystone may hand us.
MYSQL_TABLE_OPTIONS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}


def _nonnegative(*columns: str) -> list[sa.CheckConstraint]:
    return [sa.CheckConstraint(f'{column} >= 0',
                               name=f'{column}_nonnegative')
            for column in columns]


def _table_args(*items: object) -> tuple:
    return (*items, MYSQL_TABLE_OPTIONS)


class Base(orm.DeclarativeBase):
    metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)
    __table_args__ = MYSQL_TABLE_OPTIONS


class TimestampMixin:
    created_at: Mapped[datetime.datetime] = mapped_column(
        Timestamp, default=utcnow, sort_order=100)
    updated_at: Mapped[datetime.datetime | None] = mapped_column(
        Timestamp, onupdate=utcnow, sort_order=101)


class GenerationMixin:
    """Optimistic concurrency counter, see ``db.api.compare_and_swap``."""

    generation: Mapped[int] = mapped_column(
        default=0, server_default=sa.text('0'), sort_order=99)


def _uuid_pk() -> Mapped[str]:
    return mapped_column(sa.String(UUID_LENGTH), primary_key=True,
                         default=uuidutils.generate_uuid)


def _uuid_fk(target: str, ondelete: str) -> Mapped[str]:
    return mapped_column(sa.String(UUID_LENGTH),
                         sa.ForeignKey(target, ondelete=ondelete),
                         index=True)


class ComputeHost(GenerationMixin, TimestampMixin, Base):
    """A Nova compute node enrolled for reservations.

    ``hypervisor_hostname`` names the compute node resource provider
    (blazar bug #1814594: one nova-compute ``service_name`` may own many
    nodes). ``reservation_provider_uuid`` is the ``blazar_<host>`` child
    provider that carries CUSTOM_RESERVATION_* inventories; NULL until it
    is created. Deleting a host with allocations is refused by the
    RESTRICT foreign key on ``computehost_allocations``.
    """

    __tablename__ = 'computehosts'
    __table_args__ = _table_args(
        *_nonnegative('vcpus', 'memory_mb', 'local_gb'))

    id: Mapped[int] = mapped_column(primary_key=True)
    hypervisor_hostname: Mapped[str] = mapped_column(
        sa.String(NAME_LENGTH), unique=True)
    service_name: Mapped[str] = mapped_column(
        sa.String(NAME_LENGTH), index=True)
    availability_zone: Mapped[str] = mapped_column(
        sa.String(NAME_LENGTH), index=True)
    vcpus: Mapped[int]
    memory_mb: Mapped[int]
    local_gb: Mapped[int]
    compute_provider_uuid: Mapped[str] = mapped_column(
        sa.String(UUID_LENGTH), unique=True)
    reservation_provider_uuid: Mapped[str | None] = mapped_column(
        sa.String(UUID_LENGTH), unique=True)
    # False while the host is down or disabled: new leases skip it and
    # existing reservations on it need healing.
    reservable: Mapped[bool] = mapped_column(
        default=True, server_default=sa.true())


class ComputeHostUsage(TimestampMixin, Base):
    """What Placement last said about a host's compute node provider.

    Kept so that a lease create need not read every host: the row is
    true while the provider's generation is still ``provider_generation``
    (Placement bumps it on every inventory change and every allocation
    written there), and is dropped when a lease ends on the host
    (deleting servers frees usage without bumping the generation).
    ``inventories`` and ``usages`` are Placement's bodies for the compute
    node; ``reservation_usages`` the ``CUSTOM_RESERVATION_*`` units in use
    on its reservation provider.
    """

    __tablename__ = 'computehost_usages'

    compute_host_id: Mapped[int] = mapped_column(
        sa.ForeignKey('computehosts.id', ondelete='CASCADE'),
        primary_key=True)
    provider_generation: Mapped[int]
    inventories: Mapped[dict] = mapped_column(JSONType)
    usages: Mapped[dict] = mapped_column(JSONType)
    reservation_usages: Mapped[dict] = mapped_column(JSONType)


class Lease(GenerationMixin, TimestampMixin, Base):
    """A time window holding reservations; the root of its rows.

    Writers of its reservations, instance reservations and events bump
    the lease generation in the same transaction.
    """

    __tablename__ = 'leases'
    __table_args__ = _table_args(
        sa.UniqueConstraint('project_id', 'name'),
        sa.Index(None, 'start_date', 'end_date'),
        sa.CheckConstraint('end_date > start_date', name='dates_ordered'),
    )

    id: Mapped[str] = _uuid_pk()
    name: Mapped[str] = mapped_column(sa.String(80))
    user_id: Mapped[str] = mapped_column(sa.String(NAME_LENGTH))
    project_id: Mapped[str] = mapped_column(sa.String(NAME_LENGTH))
    start_date: Mapped[datetime.datetime] = mapped_column(Timestamp)
    end_date: Mapped[datetime.datetime] = mapped_column(Timestamp)
    status: Mapped[str] = mapped_column(
        sa.String(32), default=states.LEASE_PENDING)
    # when ``status`` last changed (expand b2f7d3e9c102 added it nullable,
    # the online migration filled it, contract d3c8a4f1e203 made it NOT
    # NULL: 1.0.0 services do not write it)
    status_changed_at: Mapped[datetime.datetime] = mapped_column(
        Timestamp, default=utcnow)

    reservations: Mapped[list['Reservation']] = orm.relationship(
        back_populates='lease', lazy='raise', passive_deletes=True)
    events: Mapped[list['Event']] = orm.relationship(
        back_populates='lease', lazy='raise', passive_deletes=True)


class Reservation(TimestampMixin, Base):
    """One resource request of a lease; ``resource_id`` names its detail
    row (``instance_reservations.id`` for ``virtual:instance``)."""

    __tablename__ = 'reservations'

    id: Mapped[str] = _uuid_pk()
    lease_id: Mapped[str] = _uuid_fk('leases.id', 'CASCADE')
    resource_type: Mapped[str] = mapped_column(sa.String(66))
    resource_id: Mapped[str | None] = mapped_column(
        sa.String(UUID_LENGTH), index=True)
    status: Mapped[str] = mapped_column(
        sa.String(32), default=states.RESERVATION_PENDING)

    lease: Mapped[Lease] = orm.relationship(
        back_populates='reservations', lazy='raise')
    instance_reservation: Mapped['InstanceReservation | None'] = (
        orm.relationship(back_populates='reservation', lazy='raise',
                         passive_deletes=True))
    allocations: Mapped[list['ComputeHostAllocation']] = orm.relationship(
        back_populates='reservation', lazy='raise', passive_deletes=True)


class InstanceReservation(TimestampMixin, Base):
    """The flavor-like request of a ``virtual:instance`` reservation.

    ``affinity``: NULL = no policy (slots may pack on one host), True =
    all ``amount`` slots on one host, False = one slot per host.
    ``resource_class`` is CUSTOM_RESERVATION_<ID>, unique per reservation.
    """

    __tablename__ = 'instance_reservations'
    __table_args__ = _table_args(
        *_nonnegative('vcpus', 'memory_mb', 'disk_gb'),
        sa.CheckConstraint('amount >= 1', name='amount_positive'),
    )

    id: Mapped[str] = _uuid_pk()
    reservation_id: Mapped[str] = mapped_column(
        sa.String(UUID_LENGTH),
        sa.ForeignKey('reservations.id', ondelete='CASCADE'), unique=True)
    vcpus: Mapped[int]
    memory_mb: Mapped[int]
    disk_gb: Mapped[int]
    amount: Mapped[int]
    affinity: Mapped[bool | None]
    resource_class: Mapped[str | None] = mapped_column(
        sa.String(NAME_LENGTH), unique=True)
    flavor_id: Mapped[str | None] = mapped_column(sa.String(UUID_LENGTH))
    # Nova server group ``reservation:<id>`` (affinity True/False only)
    server_group_id: Mapped[str | None] = mapped_column(
        sa.String(UUID_LENGTH))

    reservation: Mapped[Reservation] = orm.relationship(
        back_populates='instance_reservation', lazy='raise')


class ComputeHostAllocation(TimestampMixin, Base):
    """One reserved instance slot of a reservation on a host.

    N rows for the same (reservation, host) pair are N slots: there is
    deliberately no unique constraint (blazar spec "placement-api").
    """

    __tablename__ = 'computehost_allocations'

    id: Mapped[int] = mapped_column(primary_key=True)
    reservation_id: Mapped[str] = _uuid_fk('reservations.id', 'CASCADE')
    compute_host_id: Mapped[int] = mapped_column(
        sa.ForeignKey('computehosts.id', ondelete='RESTRICT'), index=True)

    reservation: Mapped[Reservation] = orm.relationship(
        back_populates='allocations', lazy='raise')


class Event(TimestampMixin, Base):
    """A timed lease transition run by the manager's periodic task.

    One event of each type per lease. The manager claims an event with a
    conditional UPDATE on ``status`` (UNDONE -> IN_PROGRESS).
    """

    __tablename__ = 'events'
    __table_args__ = _table_args(
        sa.UniqueConstraint('lease_id', 'event_type'),
        sa.Index(None, 'status', 'time'),
        sa.CheckConstraint(_in('event_type', states.EVENT_TYPES),
                           name='event_type'),
        sa.CheckConstraint(_in('status', states.EVENT_STATUSES),
                           name='status'),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # Indexed through uq_events_lease_id_event_type.
    lease_id: Mapped[str] = mapped_column(
        sa.String(UUID_LENGTH),
        sa.ForeignKey('leases.id', ondelete='CASCADE'))
    event_type: Mapped[str] = mapped_column(sa.String(32))
    time: Mapped[datetime.datetime] = mapped_column(Timestamp)
    status: Mapped[str] = mapped_column(
        sa.String(16), default=states.EVENT_UNDONE)

    lease: Mapped[Lease] = orm.relationship(
        back_populates='events', lazy='raise')


class Operation(GenerationMixin, TimestampMixin, Base):
    """A VNF lifecycle operation occurrence (SOL003 VnfLcmOpOcc subset).

    ``state`` and ``state_entered_at`` always change together.
    ``placement`` is the current VDU -> zone map; ``error`` is the
    ``{code, title, detail}`` of ``PlacementExtError.to_dict()``.
    ``owner`` and ``heartbeat_at``: see ``objects.operation.claim``.
    """

    __tablename__ = 'operations'
    __table_args__ = _table_args(
        sa.CheckConstraint(_in('operation', states.OPERATION_TYPES),
                           name='operation'),
        sa.CheckConstraint(_in('state', states.OPERATION_STATES),
                           name='state'),
    )

    id: Mapped[str] = _uuid_pk()
    vnf_instance_id: Mapped[str] = mapped_column(
        sa.String(UUID_LENGTH), index=True)
    operation: Mapped[str] = mapped_column(sa.String(16))
    # Indexed for the start-up sweep of interrupted operations.
    state: Mapped[str] = mapped_column(
        sa.String(16), default=states.STATE_STARTING, index=True)
    state_entered_at: Mapped[datetime.datetime] = mapped_column(
        Timestamp, default=utcnow)
    params: Mapped[dict] = mapped_column(JSONType, default=dict)
    placement: Mapped[dict] = mapped_column(JSONType, default=dict)
    error: Mapped[dict | None] = mapped_column(JSONType)
    request_id: Mapped[str | None] = mapped_column(sa.String(NAME_LENGTH))
    # The conductor driving the operation and when it last said so; a
    # runnable operation whose owner stopped heart-beating is adopted by
    # another conductor. Ownership changes leave ``generation`` alone.
    owner: Mapped[str | None] = mapped_column(sa.String(NAME_LENGTH))
    heartbeat_at: Mapped[datetime.datetime | None] = mapped_column(Timestamp)

    attempts: Mapped[list['ZoneAttempt']] = orm.relationship(
        back_populates='operation', lazy='raise', passive_deletes=True,
        order_by='ZoneAttempt.seq')


class ZoneAttempt(TimestampMixin, Base):
    """One try of a VDU (and the VDUs moved with it) in one zone.

    ``seq`` orders the attempts of an operation from 0. ``outcome`` is
    NULL while the attempt runs. ``decision`` records what the decision
    layer chose and why (candidates, exclusions, strategy, seed).
    """

    __tablename__ = 'zone_attempts'
    __table_args__ = _table_args(
        sa.UniqueConstraint('operation_id', 'seq'),
        *_nonnegative('seq'),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # Indexed through uq_zone_attempts_operation_id_seq.
    operation_id: Mapped[str] = mapped_column(
        sa.String(UUID_LENGTH),
        sa.ForeignKey('operations.id', ondelete='CASCADE'))
    seq: Mapped[int]
    vdu_id: Mapped[str] = mapped_column(sa.String(NAME_LENGTH))
    zone: Mapped[str] = mapped_column(sa.String(NAME_LENGTH))
    outcome: Mapped[str | None] = mapped_column(sa.String(32))
    error_text: Mapped[str | None] = mapped_column(LongText)
    started_at: Mapped[datetime.datetime] = mapped_column(
        Timestamp, default=utcnow)
    duration_s: Mapped[float | None] = mapped_column(sa.Double())
    decision: Mapped[dict] = mapped_column(JSONType, default=dict)

    operation: Mapped[Operation] = orm.relationship(
        back_populates='attempts', lazy='raise')


class Stack(TimestampMixin, Base):
    """A Heat stack our operations change: the one VNF instance it
    belongs to, and the operation that took it last.

    One row per stack name, so two operations taking a new stack at once
    cannot both insert it; a taker locks the row, see
    ``objects.operation.create``. No foreign key to the operation: the
    record outlives it.
    """

    __tablename__ = 'stacks'
    __table_args__ = _table_args()

    name: Mapped[str] = mapped_column(sa.String(NAME_LENGTH),
                                      primary_key=True)
    vnf_instance_id: Mapped[str] = mapped_column(sa.String(UUID_LENGTH))
    operation_id: Mapped[str] = mapped_column(sa.String(UUID_LENGTH))


class UnadoptedReservation(TimestampMixin, Base):
    """A reservation made by a host service's own plugin (Blazar's
    ``virtual.instance.plugin``) that we could not take over, and why
    (``placement-ext lease reconcile`` lists them). The row goes when a
    later adoption succeeds or the reservation is gone."""

    __tablename__ = 'unadopted_reservations'
    __table_args__ = _table_args()

    reservation_id: Mapped[str] = mapped_column(sa.String(UUID_LENGTH),
                                                primary_key=True)
    lease_id: Mapped[str] = mapped_column(sa.String(UUID_LENGTH))
    reason: Mapped[str] = mapped_column(sa.Text)


class HomingPlan(TimestampMixin, Base):
    """An ONAP HAS plan (``POST /v1/plans``) and its answer.

    ``recommendations`` is HAS's list of solutions; ``detail`` keeps why
    each region was dropped and the Nova and Placement calls made.
    ``owner`` is the placement-ext-homing-api process solving it, alive
    while its ``heartbeat_at`` is recent (``objects.plan.claim``): a plan
    whose owner stopped is taken up by another process, or ends ``error``
    once its ``deadline_at`` (creation + ``timeout``) passed or it was
    tried ``states.MAX_PLAN_ATTEMPTS`` times.
    """

    __tablename__ = 'homing_plans'
    __table_args__ = _table_args(
        sa.CheckConstraint(_in('status', states.PLAN_STATUSES),
                           name='status'),
        sa.CheckConstraint('timeout > 0', name='timeout_positive'),
        *_nonnegative('attempts'),
    )

    id: Mapped[str] = _uuid_pk()
    name: Mapped[str] = mapped_column(sa.String(NAME_LENGTH))
    # solvers look for unfinished plans by status
    status: Mapped[str] = mapped_column(sa.String(16), index=True,
                                        default=states.PLAN_TEMPLATE)
    template: Mapped[dict] = mapped_column(JSONType)
    # "limit" is an SQL keyword
    solution_limit: Mapped[int] = mapped_column(default=1)
    recommendations: Mapped[list | None] = mapped_column(JSONType)
    message: Mapped[str | None] = mapped_column(LongText)
    detail: Mapped[dict | None] = mapped_column(JSONType)
    timeout: Mapped[int] = mapped_column(server_default='300')
    deadline_at: Mapped[datetime.datetime | None] = mapped_column(Timestamp)
    attempts: Mapped[int] = mapped_column(server_default='0')
    owner: Mapped[str | None] = mapped_column(sa.String(NAME_LENGTH))
    heartbeat_at: Mapped[datetime.datetime | None] = mapped_column(Timestamp)


class NfvoGrant(TimestampMixin, Base):
    """A Grant placement-ext-nfvo gave (``GET /grant/v1/grants/{id}``)
    and the GrantRequest it answers, so that every NFVO process serves
    it and a retried operation can read what was asked and granted."""

    __tablename__ = 'nfvo_grants'
    __table_args__ = _table_args()

    id: Mapped[str] = _uuid_pk()
    vnf_instance_id: Mapped[str] = mapped_column(sa.String(NAME_LENGTH))
    # a retried LCM operation occurrence finds its earlier Grants here
    vnf_lcm_op_occ_id: Mapped[str] = mapped_column(sa.String(NAME_LENGTH),
                                                   index=True)
    operation: Mapped[str] = mapped_column(sa.String(32))
    grant_request: Mapped[dict] = mapped_column(JSONType)
    grant_body: Mapped[dict] = mapped_column(JSONType)


class NfvoToken(TimestampMixin, Base):
    """An OAuth 2.0 access token of placement-ext-nfvo, valid until
    ``expires_at`` in every NFVO process. Only its SHA-256 digest is
    stored: a copy of the database grants nothing."""

    __tablename__ = 'nfvo_tokens'
    __table_args__ = _table_args()

    digest: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(sa.String(NAME_LENGTH))
    # indexed for the purge of expired tokens
    expires_at: Mapped[datetime.datetime] = mapped_column(Timestamp,
                                                          index=True)


class Service(TimestampMixin, Base):
    """A running ``placement-ext-manager`` or ``placement-ext-conductor``:
    the version of the code it runs and when it last said it was alive.

    One row per binary and host. A service writes its row at start,
    renews ``heartbeat_at`` every ``report_interval`` seconds and removes
    its row when it stops gracefully; a killed one's row goes stale. Read
    by ``placement-ext-manage db contract`` (no old service may still
    run) and ``[upgrade_levels] ... = auto``.
    """

    __tablename__ = 'services'
    __table_args__ = _table_args(sa.UniqueConstraint('binary', 'host'))

    id: Mapped[int] = mapped_column(primary_key=True)
    binary: Mapped[str] = mapped_column(sa.String(64))
    host: Mapped[str] = mapped_column(sa.String(NAME_LENGTH))
    topic: Mapped[str] = mapped_column(sa.String(NAME_LENGTH))
    version: Mapped[int] = mapped_column(sa.Integer)
    heartbeat_at: Mapped[datetime.datetime] = mapped_column(Timestamp)
