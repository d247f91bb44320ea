"""placement-ext-nfvo's tokens and Grants in the database."""

import sqlalchemy as sa
import testtools
from oslo_utils import fixture as utils_fixture

from placement_ext import exception
from placement_ext.db import models
from placement_ext.objects import nfvo
from placement_ext.tests.fixtures import database as db_fixture

REQUEST = {'vnfInstanceId': 'inst-1', 'vnfLcmOpOccId': 'occ-1',
           'operation': 'INSTANTIATE'}


class TestTokens(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.clock = self.useFixture(utils_fixture.TimeFixture())
        self.db = self.useFixture(db_fixture.Database()).db

    def test_a_token_is_valid_until_it_expires_and_then_purged(self):
        old = nfvo.issue_token(self.db, 'vnfm', 60)
        self.assertTrue(nfvo.token_valid(self.db, old))
        self.assertFalse(nfvo.token_valid(self.db, old + 'x'))
        self.assertFalse(nfvo.token_valid(self.db, ''))
        self.clock.advance_time_seconds(61)
        self.assertFalse(nfvo.token_valid(self.db, old))
        new = nfvo.issue_token(self.db, 'vnfm', 60)
        with self.db.reader() as session:
            digests = session.scalars(sa.select(models.NfvoToken.digest))
            # only the digest of the live token is kept
            self.assertEqual(1, len(digests.all()))
        self.assertTrue(nfvo.token_valid(self.db, new))


class TestGrants(testtools.TestCase):

    def test_grants_are_kept_with_their_request(self):
        db = self.useFixture(db_fixture.Database()).db
        nfvo.save_grant(db, 'g1', REQUEST, {'id': 'g1'})
        nfvo.save_grant(db, 'g2', dict(REQUEST, operation='SCALE'),
                        {'id': 'g2'})
        self.assertEqual({'id': 'g2'}, nfvo.get_grant(db, 'g2'))
        grant = models.NfvoGrant
        with db.reader() as session:
            kept = session.execute(
                sa.select(grant.id, grant.operation, grant.vnf_lcm_op_occ_id)
                .where(grant.vnf_instance_id == 'inst-1')
                .order_by(grant.created_at)).all()
        self.assertEqual(
            [('g1', 'INSTANTIATE', 'occ-1'), ('g2', 'SCALE', 'occ-1')],
            [tuple(row) for row in kept])
        self.assertRaises(exception.NotFound, nfvo.get_grant, db, 'nope')
