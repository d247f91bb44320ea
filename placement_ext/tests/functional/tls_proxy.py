"""HTTPS in front of the embedded cloud's plain HTTP services.

:func:`private_ca` makes a CA and a server certificate for
``127.0.0.1``/``localhost`` (with the ``openssl`` command);
:class:`TlsProxy` terminates TLS with it on a port of its own and
relays the bytes to one service. Together: a cloud served over HTTPS by
a private CA, for tests of certificate verification.
"""

import dataclasses
import pathlib
import select
import socket
import socketserver
import ssl
import subprocess
import threading
import urllib.parse

import fixtures

DAYS = '2'


@dataclasses.dataclass(frozen=True)
class Certificates:
    ca: str      # the CA's certificate (what a client trusts)
    cert: str    # the server's certificate, signed by the CA
    key: str     # its private key


def _openssl(*args: str) -> None:
    subprocess.run(['openssl', *args], check=True, capture_output=True,
                   timeout=60)


def private_ca(directory: pathlib.Path) -> Certificates:
    """A new CA and a server certificate it signed, in ``directory``."""
    ca, ca_key = directory / 'ca.pem', directory / 'ca.key'
    cert, key = directory / 'server.pem', directory / 'server.key'
    csr, ext = directory / 'server.csr', directory / 'server.ext'
    _openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', DAYS,
             '-subj', '/CN=placement-ext test CA', '-keyout', str(ca_key),
             '-out', str(ca))
    _openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1',
             '-keyout', str(key), '-out', str(csr))
    ext.write_text('subjectAltName=IP:127.0.0.1,DNS:localhost\n'
                   'basicConstraints=CA:FALSE\n')
    _openssl('x509', '-req', '-in', str(csr), '-CA', str(ca), '-CAkey',
             str(ca_key), '-CAcreateserial', '-days', DAYS, '-extfile',
             str(ext), '-out', str(cert))
    return Certificates(str(ca), str(cert), str(key))


def _relay(one: socket.socket, other: socket.socket) -> None:
    """Bytes both ways until either side closes."""
    sockets = [one, other]
    while True:
        # a TLS socket may hold decrypted bytes select() cannot see
        ready = [s for s in sockets if getattr(s, 'pending', lambda: 0)()]
        if not ready:
            ready, _, _ = select.select(sockets, [], [], 60)
        if not ready:
            return
        for source in ready:
            data = source.recv(65536)
            if not data:
                return
            (other if source is one else one).sendall(data)


class _Handler(socketserver.BaseRequestHandler):

    def handle(self) -> None:
        try:
            client = self.server.context.wrap_socket(self.request,
                                                     server_side=True)
        except (ssl.SSLError, OSError):
            return   # the client refused our certificate: what is tested
        with client, socket.create_connection(self.server.backend) as back:
            try:
                _relay(client, back)
            except (ssl.SSLError, OSError):
                pass


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class TlsProxy(fixtures.Fixture):
    """HTTPS on 127.0.0.1 for the HTTP service at ``backend_url``.

    :ivar port: the port it listens on.
    """

    def __init__(self, backend_url: str, certs: Certificates) -> None:
        super().__init__()
        parsed = urllib.parse.urlsplit(backend_url)
        self.backend = (parsed.hostname, parsed.port or 80)
        self.certs = certs

    def _setUp(self) -> None:
        server = _Server(('127.0.0.1', 0), _Handler)
        server.backend = self.backend
        server.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        server.context.load_cert_chain(self.certs.cert, self.certs.key)
        self.port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever,
                                  name=f'tls-proxy-{self.port}', daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)

    def url(self, backend_url: str) -> str:
        """``backend_url`` (same path) through this proxy."""
        parsed = urllib.parse.urlsplit(backend_url)
        return parsed._replace(scheme='https',
                               netloc=f'127.0.0.1:{self.port}').geturl()
