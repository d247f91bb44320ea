from placement_ext import context as pe_context
from placement_ext.tests.unit.rpc import base


class TestRequestContext(base.TestCase):

    def test_round_trip_keeps_every_field(self):
        ctx = pe_context.RequestContext(
            user_id='u1', project_id='p1', user_name='alice',
            project_name='nfv', roles=['admin', 'member'], is_admin=True,
            global_request_id='req-global', read_only=True,
            overwrite=False)

        copy = pe_context.RequestContext.from_dict(ctx.to_dict(),
                                                   overwrite=False)

        self.assertIsInstance(copy, pe_context.RequestContext)
        self.assertEqual(ctx.to_dict(), copy.to_dict())
        self.assertEqual(ctx.request_id, copy.request_id)
        self.assertEqual('alice', copy.user_name)
        self.assertEqual('nfv', copy.project_name)

    def test_config_stays_local(self):
        ctx = pe_context.RequestContext(config=self.conf, overwrite=False)

        self.assertNotIn('config', ctx.to_dict())
        copy = pe_context.RequestContext.from_dict(ctx.to_dict(),
                                                   overwrite=False)
        self.assertIsNone(copy.config)

    def test_admin_context_has_a_fresh_request_id(self):
        first = pe_context.get_admin_context(self.conf)
        second = pe_context.get_admin_context(self.conf)

        self.assertTrue(first.is_admin)
        self.assertIs(self.conf, first.config)
        self.assertTrue(first.request_id.startswith('req-'))
        self.assertNotEqual(first.request_id, second.request_id)

    def test_admin_context_becomes_current_only_when_asked(self):
        quiet = pe_context.get_admin_context()
        self.assertIsNot(quiet, pe_context.context.get_current())

        current = pe_context.get_admin_context(overwrite=True)
        self.assertIs(current, pe_context.context.get_current())
