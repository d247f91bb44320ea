"""Our configuration inside tacker-conductor, read when it starts.

From tacker-conductor's own arguments: the same ``--config-file`` and
``--config-dir`` (or, when none is given, Tacker's defaults:
``/etc/tacker/tacker.conf`` and ``tacker.conf.d``), so a file Tacker
reads is one we read. A bad option is reported before Tacker starts,
named ``[group] option``, not at the first lifecycle operation.
"""

from oslo_config import cfg

from placement_ext import configuration
from placement_ext import exception
from placement_ext.conf import paths
from placement_ext.conf import tacker as tacker_opts

SQLITE_FILE = 'placement_ext.sqlite'
# tacker-conductor's arguments that name what it reads; the others
# (--debug, --log-file, --state-path...) are Tacker's own
_FILE_ARGS = ('--config-file', '--config-dir')


def tacker_args(argv: list[str]) -> list[str]:
    """``argv``'s ``--config-file`` and ``--config-dir`` arguments."""
    return [arg for flag in _FILE_ARGS
            for value in configuration.option_values(argv, flag)
            for arg in (flag, value)]


def reselection_enabled(args: list[str]) -> bool:
    """``[placement_ext] zone_reselection``, read alone: when false,
    nothing else of ours is read (Tacker's conductor runs as it is,
    whatever the rest of our options say).

    :raises InvalidInput: a file cannot be read, or the option's value
        is not a boolean.
    """
    conf = cfg.ConfigOpts()
    tacker_opts.register_opts(conf)
    try:
        conf(args, project='tacker')
        return conf.placement_ext.zone_reselection
    except cfg.ConfigFileValueError as exc:
        raise exception.InvalidInput(
            field='[placement_ext] zone_reselection', reason=str(exc))
    except (cfg.Error, OSError, UnicodeDecodeError) as exc:
        raise configuration.unreadable_config(args, None, exc, 'tacker')


def load_conf(args: list[str]) -> cfg.ConfigOpts:
    """Our options from tacker-conductor's files; ``[database]`` is
    ``[placement_ext] database_connection`` (Tacker's database is
    Tacker's).

    :raises InvalidInput: a bad option, named.
    """
    conf = configuration.load_config(args, project='tacker')
    check(conf)
    url = conf.placement_ext.database_connection or \
        'sqlite:///' + paths.state_path(conf, SQLITE_FILE)
    conf.set_override('connection', url, group='database')
    return conf


def check(conf: cfg.ConfigOpts) -> None:
    """What our reselection cannot do inside tacker-conductor.

    :raises InvalidInput: ``placement_regrant_before_move`` is set:
        Tacker grants each operation through its own NFVO client; our
        reselection there has neither the GrantRequest Tacker sent nor
        a client to send it again, and moving VNFCs the NFVO was not
        asked about would break the promise the option makes.
    """
    if conf.placement_ext.zone_reselection and \
            conf.v2_vnfm.placement_regrant_before_move:
        raise exception.InvalidInput(
            field='[v2_vnfm] placement_regrant_before_move',
            reason='not supported inside tacker-conductor (Tacker grants '
                   'through its own NFVO client, which our reselection '
                   'cannot ask again): set it to false, or [placement_ext] '
                   'zone_reselection to false for Tacker\'s reselection')
