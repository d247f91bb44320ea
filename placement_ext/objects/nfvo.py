"""placement-ext-nfvo's Grants and OAuth 2.0 access tokens, in the
database, so that any NFVO process serves any Grant and token, and a
restart loses neither.

A token is a random string given once to the client; only its SHA-256
digest is stored, with its expiry. Expired tokens are purged when a new
one is issued, so the table holds about one token per client and token
lifetime.
"""

import datetime
import hashlib
import secrets

import sqlalchemy as sa

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models


@db_api.retry_on_deadlock
def issue_token(database: db_api.Database, client_id: str,
                lifetime: int) -> str:
    """A new access token for ``client_id``, valid ``lifetime`` seconds."""
    token = secrets.token_urlsafe(32)
    now = models.utcnow()
    with database.writer() as session:
        session.execute(sa.delete(models.NfvoToken).where(
            models.NfvoToken.expires_at <= now))
        session.add(models.NfvoToken(
            digest=_digest(token), client_id=client_id, created_at=now,
            expires_at=now + datetime.timedelta(seconds=lifetime)))
    return token


def token_valid(database: db_api.Database, token: str) -> bool:
    """Whether ``token`` was issued and has not expired."""
    if not token:
        return False
    with database.reader() as session:
        row = session.get(models.NfvoToken, _digest(token))
        return row is not None and row.expires_at > models.utcnow()


@db_api.retry_on_deadlock
def save_grant(database: db_api.Database, grant_id: str, request: dict,
               grant: dict) -> None:
    """Keep the Grant given for ``request`` (a GrantRequest document)."""
    with database.writer() as session:
        session.add(models.NfvoGrant(
            id=grant_id, vnf_instance_id=request['vnfInstanceId'],
            vnf_lcm_op_occ_id=request['vnfLcmOpOccId'],
            operation=request['operation'], grant_request=request,
            grant_body=grant))


def get_grant(database: db_api.Database, grant_id: str) -> dict:
    """:raises NotFound: no Grant with this id."""
    with database.reader() as session:
        row = session.get(models.NfvoGrant, grant_id)
        if row is None:
            raise exception.NotFound(kind='Grant', id=grant_id)
        return row.grant_body


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode('utf-8', 'surrogatepass')) \
        .hexdigest()
