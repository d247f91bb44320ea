"""Initial schema: reservations, lifecycle operations and zone attempts.

Revision ID: 24a7a0aec54a
Revises:
Create Date: 2026-11-22 04:52:49.933559

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision = '24a7a0aec54a'
down_revision = None
branch_labels = None
depends_on = None

# Frozen copies of the model types: a migration must not change when
# models.py does.
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')
JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), 'postgresql')
LONG_TEXT = sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql', 'mariadb')
MYSQL_OPTIONS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}


def _uuid(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.String(36), nullable=nullable)


def _generation() -> sa.Column:
    return sa.Column('generation', sa.Integer(), nullable=False,
                     server_default=sa.text('0'))


def _timestamps() -> list[sa.Column]:
    return [sa.Column('created_at', DATETIME, nullable=False),
            sa.Column('updated_at', DATETIME, nullable=True)]


def _integers(*names: str) -> list[sa.Column]:
    return [sa.Column(name, sa.Integer(), nullable=False) for name in names]


def _nonnegative(table: str, *columns: str) -> list[sa.CheckConstraint]:
    return [sa.CheckConstraint(f'{column} >= 0',
                               name=op.f(f'ck_{table}_{column}_nonnegative'))
            for column in columns]


def _index(table: str, *columns: str) -> None:
    name = f"ix_{table}_{'_'.join(columns)}"
    op.create_index(op.f(name), table, list(columns))


def _create_computehosts() -> None:
    op.create_table(
        'computehosts',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('hypervisor_hostname', sa.String(255), nullable=False),
        sa.Column('service_name', sa.String(255), nullable=False),
        sa.Column('availability_zone', sa.String(255), nullable=False),
        *_integers('vcpus', 'memory_mb', 'local_gb'),
        _uuid('compute_provider_uuid'),
        _uuid('reservation_provider_uuid', nullable=True),
        sa.Column('reservable', sa.Boolean(), nullable=False,
                  server_default=sa.true()),
        _generation(),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_computehosts')),
        sa.UniqueConstraint(
            'hypervisor_hostname',
            name=op.f('uq_computehosts_hypervisor_hostname')),
        sa.UniqueConstraint(
            'compute_provider_uuid',
            name=op.f('uq_computehosts_compute_provider_uuid')),
        sa.UniqueConstraint(
            'reservation_provider_uuid',
            name=op.f('uq_computehosts_reservation_provider_uuid')),
        *_nonnegative('computehosts', 'vcpus', 'memory_mb', 'local_gb'),
        **MYSQL_OPTIONS)
    _index('computehosts', 'service_name')
    _index('computehosts', 'availability_zone')


def _create_leases() -> None:
    op.create_table(
        'leases',
        _uuid('id'),
        sa.Column('name', sa.String(80), nullable=False),
        sa.Column('user_id', sa.String(255), nullable=False),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('start_date', DATETIME, nullable=False),
        sa.Column('end_date', DATETIME, nullable=False),
        sa.Column('status', sa.String(32), nullable=False),
        _generation(),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_leases')),
        sa.UniqueConstraint('project_id', 'name',
                            name=op.f('uq_leases_project_id_name')),
        sa.CheckConstraint('end_date > start_date',
                           name=op.f('ck_leases_dates_ordered')),
        **MYSQL_OPTIONS)
    _index('leases', 'start_date', 'end_date')


def _create_reservations() -> None:
    op.create_table(
        'reservations',
        _uuid('id'),
        _uuid('lease_id'),
        sa.Column('resource_type', sa.String(66), nullable=False),
        _uuid('resource_id', nullable=True),
        sa.Column('status', sa.String(32), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_reservations')),
        sa.ForeignKeyConstraint(
            ['lease_id'], ['leases.id'], ondelete='CASCADE',
            name=op.f('fk_reservations_lease_id_leases')),
        **MYSQL_OPTIONS)
    _index('reservations', 'lease_id')
    _index('reservations', 'resource_id')


def _create_instance_reservations() -> None:
    op.create_table(
        'instance_reservations',
        _uuid('id'),
        _uuid('reservation_id'),
        *_integers('vcpus', 'memory_mb', 'disk_gb', 'amount'),
        sa.Column('affinity', sa.Boolean(), nullable=True),
        sa.Column('resource_class', sa.String(255), nullable=True),
        _uuid('flavor_id', nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_instance_reservations')),
        sa.ForeignKeyConstraint(
            ['reservation_id'], ['reservations.id'], ondelete='CASCADE',
            name=op.f('fk_instance_reservations_reservation_id_reservations')),
        sa.UniqueConstraint(
            'reservation_id',
            name=op.f('uq_instance_reservations_reservation_id')),
        sa.UniqueConstraint(
            'resource_class',
            name=op.f('uq_instance_reservations_resource_class')),
        *_nonnegative('instance_reservations',
                      'vcpus', 'memory_mb', 'disk_gb'),
        sa.CheckConstraint(
            'amount >= 1',
            name=op.f('ck_instance_reservations_amount_positive')),
        **MYSQL_OPTIONS)


def _create_computehost_allocations() -> None:
    op.create_table(
        'computehost_allocations',
        sa.Column('id', sa.Integer(), nullable=False),
        _uuid('reservation_id'),
        sa.Column('compute_host_id', sa.Integer(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint(
            'id', name=op.f('pk_computehost_allocations')),
        sa.ForeignKeyConstraint(
            ['reservation_id'], ['reservations.id'], ondelete='CASCADE',
            name=op.f(
                'fk_computehost_allocations_reservation_id_reservations')),
        sa.ForeignKeyConstraint(
            ['compute_host_id'], ['computehosts.id'], ondelete='RESTRICT',
            name=op.f(
                'fk_computehost_allocations_compute_host_id_computehosts')),
        **MYSQL_OPTIONS)
    _index('computehost_allocations', 'reservation_id')
    _index('computehost_allocations', 'compute_host_id')


def _create_events() -> None:
    op.create_table(
        'events',
        sa.Column('id', sa.Integer(), nullable=False),
        _uuid('lease_id'),
        sa.Column('event_type', sa.String(32), nullable=False),
        sa.Column('time', DATETIME, nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_events')),
        sa.ForeignKeyConstraint(
            ['lease_id'], ['leases.id'], ondelete='CASCADE',
            name=op.f('fk_events_lease_id_leases')),
        sa.UniqueConstraint('lease_id', 'event_type',
                            name=op.f('uq_events_lease_id_event_type')),
        sa.CheckConstraint("event_type IN ('start_lease', 'end_lease')",
                           name=op.f('ck_events_event_type')),
        sa.CheckConstraint(
            "status IN ('UNDONE', 'IN_PROGRESS', 'DONE', 'ERROR')",
            name=op.f('ck_events_status')),
        **MYSQL_OPTIONS)
    _index('events', 'status', 'time')


def _create_operations() -> None:
    op.create_table(
        'operations',
        _uuid('id'),
        _uuid('vnf_instance_id'),
        sa.Column('operation', sa.String(16), nullable=False),
        sa.Column('state', sa.String(16), nullable=False),
        sa.Column('state_entered_at', DATETIME, nullable=False),
        sa.Column('params', JSON, nullable=False),
        sa.Column('placement', JSON, nullable=False),
        sa.Column('error', JSON, nullable=True),
        sa.Column('request_id', sa.String(255), nullable=True),
        _generation(),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_operations')),
        sa.CheckConstraint(
            "operation IN ('INSTANTIATE', 'SCALE', 'HEAL')",
            name=op.f('ck_operations_operation')),
        sa.CheckConstraint(
            "state IN ('STARTING', 'PROCESSING', 'COMPLETED', 'FAILED_TEMP',"
            " 'FAILED', 'ROLLING_BACK', 'ROLLED_BACK')",
            name=op.f('ck_operations_state')),
        **MYSQL_OPTIONS)
    _index('operations', 'vnf_instance_id')
    _index('operations', 'state')


def _create_zone_attempts() -> None:
    op.create_table(
        'zone_attempts',
        sa.Column('id', sa.Integer(), nullable=False),
        _uuid('operation_id'),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('vdu_id', sa.String(255), nullable=False),
        sa.Column('zone', sa.String(255), nullable=False),
        sa.Column('outcome', sa.String(32), nullable=True),
        sa.Column('error_text', LONG_TEXT, nullable=True),
        sa.Column('started_at', DATETIME, nullable=False),
        sa.Column('duration_s', sa.Double(), nullable=True),
        sa.Column('decision', JSON, nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_zone_attempts')),
        sa.ForeignKeyConstraint(
            ['operation_id'], ['operations.id'], ondelete='CASCADE',
            name=op.f('fk_zone_attempts_operation_id_operations')),
        sa.UniqueConstraint('operation_id', 'seq',
                            name=op.f('uq_zone_attempts_operation_id_seq')),
        *_nonnegative('zone_attempts', 'seq'),
        **MYSQL_OPTIONS)


def upgrade() -> None:
    for create in (_create_computehosts, _create_leases, _create_reservations,
                   _create_instance_reservations,
                   _create_computehost_allocations, _create_events,
                   _create_operations, _create_zone_attempts):
        create()


def downgrade() -> None:
    # Children first; indexes and constraints go with their tables.
    for table in ('zone_attempts', 'operations', 'events',
                  'computehost_allocations', 'instance_reservations',
                  'reservations', 'leases', 'computehosts'):
        op.drop_table(table)
