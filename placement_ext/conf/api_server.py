"""The HTTP server options of placement-ext-nfvo (``[nfvo_api]``) and
placement-ext-homing-api (``[homing]``): one definition, registered in
each service's own group (each service has its own size and load).

A helper module: its options are listed by the groups that use them.
"""

from oslo_config import cfg

# Seconds between two sweeps of the server (placement_ext/api/server.py)
# for idle connections: waitress closes one found idle longer than
# api_client_timeout at a sweep (its own default, every 30 s, would add
# up to 30 s)
IDLE_SWEEP_S = 1
# short: idle keep-alive connections are cheap to open again, and a
# full server (api_connection_limit) is freed within this plus the sweep
CLIENT_TIMEOUT = 10


def server_opts(service: str, max_body_size: int) -> list[cfg.Opt]:
    """The options of ``service``'s WSGI server; see
    :class:`placement_ext.api.server.HttpServer`."""
    return [
        cfg.IntOpt('api_workers', default=8, min=1, max=256,
                   help=f'Requests {service} handles at once (the '
                        f'threads of its WSGI server). Further requests '
                        f'wait, already read, until a thread is free.'),
        cfg.IntOpt('api_connection_limit', default=100, min=1,
                   help=f'Client connections {service} keeps open at '
                        f'once; further clients wait in the listen '
                        f'backlog (they are not refused) until one '
                        f'closes.'),
        cfg.IntOpt('api_client_timeout', default=CLIENT_TIMEOUT, min=1,
                   help=f'Seconds {service} keeps a client connection '
                        f'that sends nothing (idle between requests, or '
                        f'a request that stopped arriving) before it '
                        f'closes it. The server looks for such '
                        f'connections every {IDLE_SWEEP_S} s, so one is '
                        f'closed within this plus {IDLE_SWEEP_S} s '
                        f'({CLIENT_TIMEOUT + IDLE_SWEEP_S} s by default): '
                        f'the longest that api_connection_limit idle '
                        f'clients keep a new client waiting. A request '
                        f'being answered is never cut.'),
        cfg.IntOpt('api_max_body_size', default=max_body_size, min=1024,
                   help=f'Largest request body {service} accepts, in '
                        f'bytes, chunked or not; a larger one is answered '
                        f'413 without being kept, before credentials are '
                        f'checked.'),
    ]
