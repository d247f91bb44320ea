"""Loading a configuration: parse, validate, and say in one line which
option or file is bad (what oslo.config's own errors leave out).

Every process reads its configuration here: the services' entry points,
the CLI and the code we run inside Tacker. The options themselves are
registered by :mod:`placement_ext.conf`.
"""

import glob
import os
import re

from oslo_config import cfg
from oslo_log import log as logging
from pbr import version as pbr_version

from placement_ext import conf as pe_conf
from placement_ext import exception


def version() -> str:
    return pbr_version.VersionInfo('placement-ext').version_string()


def load_config(args: list[str], prog: str | None = None,
                default_config_files: list[str] | None = None,
                project: str = 'placement_ext') -> cfg.ConfigOpts:
    """Build, parse and validate a ConfigOpts, with oslo.log's options.

    :param project: whose default files and directories are read when
        ``args`` name none (``tacker``: ``/etc/tacker/tacker.conf`` and
        ``tacker.conf.d``, as tacker-conductor reads them).

    :raises: InvalidInput naming the bad option (``[group] name``), the
        reason and the file, in one line, for any configuration error.
    """
    conf = cfg.ConfigOpts()
    pe_conf.register_opts(conf)
    logging.register_options(conf)
    try:
        conf(args, project=project, prog=prog, version=version(),
             default_config_files=default_config_files)
        pe_conf.validate(conf)
    except cfg.ConfigFileValueError as exc:
        raise _invalid_value(conf, exc)
    except cfg.Error as exc:
        raise exception.InvalidInput(field='configuration', reason=str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        raise unreadable_config(args, default_config_files, exc, project)
    return conf


def unreadable_config(args: list[str],
                      default_config_files: list[str] | None,
                      exc: Exception, project: str = 'placement_ext'
                      ) -> exception.InvalidInput:
    """Name the configuration file oslo.config could not read.

    oslo.config lets a directory given as ``--config-file`` (OSError) or a
    file that is not UTF-8 (UnicodeDecodeError, with no file name) escape
    as they are; the file may also be one of a ``--config-dir``'s (or of
    the default ``<project>.conf.d`` directories).
    """
    files = option_values(args, '--config-file') + \
        list(default_config_files or ())
    candidates = [('--config-file', path) for path in files]
    for directory in option_values(args, '--config-dir') + \
            cfg.find_config_dirs(project):
        candidates += [('--config-dir', path) for path in
                       sorted(glob.glob(os.path.join(directory, '*.conf')))]
    for field, path in candidates:
        try:
            with open(path, encoding='utf-8') as stream:
                stream.read()
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else \
                f'not UTF-8 text ({error.reason} at byte {error.start})'
            return exception.InvalidInput(field=field,
                                          reason=f'{path}: {reason}')
    return exception.InvalidInput(field='configuration', reason=str(exc))


def option_values(args: list[str], option: str) -> list[str]:
    """Values of ``option`` in ``args`` (``--opt V`` and ``--opt=V``)."""
    pairs = zip(args, args[1:], strict=False)
    values = [value for flag, value in pairs if flag == option]
    return values + [arg.split('=', 1)[1] for arg in args
                     if arg.startswith(option + '=')]


# oslo.config's text for a value its type refuses
_VALUE_ERROR = re.compile(
    r"Value for option (?P<name>\S+) from (?P<source>.*) is not valid: "
    r"(?P<reason>.*)", re.DOTALL)
_SOURCE_FILE = re.compile(r"detail='(?P<file>[^']*)'")


def _invalid_value(conf: cfg.ConfigOpts,
                   exc: cfg.ConfigFileValueError) -> exception.InvalidInput:
    """Name the option with its group, which oslo.config's text omits."""
    match = _VALUE_ERROR.match(str(exc))
    if match is None:
        return exception.InvalidInput(field='configuration', reason=str(exc))
    reason = match['reason'].strip()
    source = _SOURCE_FILE.search(match['source'])
    if source:
        reason = f"{reason} (in {source['file']})"
    return exception.InvalidInput(
        field=_failing_option(conf, match['name']), reason=reason)


def _failing_option(conf: cfg.ConfigOpts, name: str) -> str:
    """``[group] name`` of the option called ``name`` that fails to read."""
    for section in conf.list_all_sections():
        try:
            getattr(conf if section == 'DEFAULT' else conf[section], name)
        except cfg.ConfigFileValueError:
            return f'[{section}] {name}'
        except (cfg.Error, AttributeError):
            continue
    return name
