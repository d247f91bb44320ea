"""[placement_ext]: our own state when we run inside tacker-conductor.

``tacker.conf``'s ``[database]`` is Tacker's; our operation records (the
zone attempts of every reselection) are kept in a database of our own,
so neither project's migrations ever touch the other's tables.
"""

from oslo_config import cfg

GROUP = cfg.OptGroup(
    'placement_ext',
    title='placement_ext inside tacker-conductor',
    help='Options read by placement-ext-tacker-conductor, which runs '
         "Tacker's conductor with our zone reselection.")

_opts = [
    cfg.BoolOpt(
        'zone_reselection',
        default=True,
        help="""
Whether placement-ext-tacker-conductor replaces Tacker's availability zone
reselection with ours (``[v2_vnfm]`` options, attempts recorded in
``database_connection``). False keeps Tacker's own reselection, for
comparison or to switch ours off without changing the service unit: this
option alone is then read at start, and Tacker's conductor runs unchanged
(no other option of ours checked, no database of ours used).
"""),
    cfg.StrOpt(
        'database_connection',
        secret=True,
        help="""
SQLAlchemy URL of the database that keeps our operation records and
zone attempts when our reselection runs inside tacker-conductor. Unset: a
SQLite file ``placement_ext.sqlite`` under ``state_path``, fine for one
conductor host. With several tacker-conductor hosts use a server
database (for example ``mysql+pymysql://placement_ext:...@db/placement_ext``)
so an operation stopped on one host resumes on another. Never Tacker's
own database. The schema is brought to the current version when
tacker-conductor starts.
"""),
    cfg.IntOpt(
        'lcm_sync_interval',
        default=10, min=1,
        help="""
Seconds between two looks of tacker-conductor at the LCM operation
occurrences our operations run in: one Tacker rolled back or failed ends
our operation ROLLED_BACK or FAILED (``POST .../rollback`` and
``POST .../fail``), instead of it staying FAILED_TEMP.
"""),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(_opts, group=GROUP)


def list_opts() -> dict:
    return {GROUP: _opts}
