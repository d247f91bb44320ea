"""The main of an RPC service process (``placement-ext-conductor``,
``placement-ext-manager``): configuration, logging, the broker, then
serve until SIGTERM or SIGINT."""

import os
import sys

from oslo_log import log as logging

from placement_ext import configuration
from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import rpc
from placement_ext import service
from placement_ext.conf import paths

LOG = logging.getLogger(__name__)


def main(prog: str, factory: service.ServiceFactory,
                argv: list[str] | None = None) -> int:
    """Main of a service process: serve until SIGTERM/SIGINT.

    :returns: the exit status: 0 after a graceful stop, 1 when the
        configuration is invalid (one line on stderr, no traceback).
    """
    try:
        conf = configuration.load_config(
            sys.argv[1:] if argv is None else argv, prog)
        if conf.log_file:
            # oslo.log would create it world-readable (umask 022); a
            # missing directory is oslo.log's error to report
            paths.private_file(os.path.join(conf.log_dir or '',
                                            conf.log_file), make_dirs=False)
        logging.setup(conf, 'placement_ext', version=configuration.version())
        transport = rpc.get_transport(conf)
    except exception.InvalidInput as exc:
        return _refuse(prog, exc.detail)
    except OSError as exc:
        return _refuse(prog, f'cannot open the log file: {exc}')
    # the start-up lines carry a request id of their own
    pe_context.get_admin_context(conf, overwrite=True)
    LOG.info('Starting %(prog)s %(version)s',
             {'prog': prog, 'version': configuration.version()})
    if rpc.is_in_process(conf):
        LOG.warning('transport_url is %s: only this process can reach the '
                    'service; set transport_url to a message broker',
                    conf.transport_url)
    try:
        # bounded: oslo.messaging would retry an unreachable broker for ever
        rpc.wait_for_broker(conf, conf.broker_wait_timeout)
        services = service.launch(conf, transport, [factory], conf.host)
    except Exception as exc:
        # typically the broker refusing us (credentials, vhost): one line
        # for the operator (oslo.log appends the error), the traceback
        # only at debug level
        transport.cleanup()
        LOG.error('%s could not start', prog)
        LOG.debug('Start-up failure', exc_info=True)
        if conf.log_file:
            return _refuse(prog, f'could not start: {exc}')
        return 1
    try:
        service.serve(services)
    finally:
        transport.cleanup()
    LOG.info('%s exited', prog)
    return 0


def _refuse(prog: str, message: str) -> int:
    sys.stderr.write(f'{prog}: {message}\n')
    return 1
