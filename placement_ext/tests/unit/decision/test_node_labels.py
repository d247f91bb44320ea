"""node_labels: matching, the host or hostId, reconcile, patches."""

import testtools

from placement_ext.decision import node_labels as nl

ZONE = 'topology.kubernetes.io/zone'
OURS = nl.COMPUTE_HOST_KEY


def server(sid, ip, host='cmp1', host_id=None):
    return nl.Server(sid, f'worker-{sid}', frozenset([ip]), host, host_id)


def node(name, ip='10.0.0.9', provider=None, **labels):
    return nl.Node(name, frozenset([ip]), provider, labels)


def labelled(name, ip, host, **other):
    return node(name, ip, **{ZONE: host, OURS: host}, **other)


class TestMatch(testtools.TestCase):

    def test_by_internal_ip(self):
        matched, notes = nl.match([server('a', '10.0.0.1')],
                                  [node('w1', '10.0.0.1')])
        self.assertEqual({'w1': 'a'}, {n: s.id for n, s in matched.items()})
        self.assertEqual([], notes)

    def test_provider_id_wins_over_address(self):
        servers = [server('a', '10.0.0.1'), server('b', '10.0.0.2')]
        matched, _ = nl.match(servers, [node('w1', '10.0.0.1',
                                             'openstack:///b')])
        self.assertEqual('b', matched['w1'].id)

    def test_provider_id_with_region(self):
        matched, _ = nl.match([server('a', '10.0.0.1')],
                              [node('w1', '1.1.1.1', 'openstack:///RegionOne/a')])
        self.assertEqual('a', matched['w1'].id)

    def test_provider_id_of_another_server_is_no_match(self):
        matched, _ = nl.match([server('a', '10.0.0.1')],
                              [node('w1', '10.0.0.1', 'openstack:///zzz')])
        self.assertEqual({}, matched)

    def test_node_name_is_never_used(self):
        matched, _ = nl.match([server('a', '10.0.0.1')],
                              [node('worker-a', '10.9.9.9')])
        self.assertEqual({}, matched)

    def test_ambiguous_address_is_left_alone_with_a_note(self):
        servers = [server('a', '10.0.0.1'), server('b', '10.0.0.1')]
        matched, notes = nl.match(servers, [node('w1', '10.0.0.1')])
        self.assertEqual({}, matched)
        self.assertIn('belong to servers a, b', notes[0])


class TestHost(testtools.TestCase):

    def test_admin_host(self):
        self.assertEqual(('cmp1', None), nl.host_of(server('a', 'x')))

    def test_host_id_when_hidden_with_a_note(self):
        value, note = nl.host_of(server('a', 'x', None, 'f' * 56))
        self.assertEqual('f' * 56, value)
        self.assertIn('hostId', note)
        self.assertIn('admin only', note)

    def test_neither(self):
        self.assertEqual(None, nl.host_of(server('a', 'x', None))[0])


class TestPlan(testtools.TestCase):

    def test_new_worker_gets_both_keys(self):
        result = nl.plan([server('a', '10.0.0.1')],
                         [node('w1', '10.0.0.1')], ZONE)
        self.assertEqual((nl.NodeChange('w1', {ZONE: 'cmp1', OURS: 'cmp1'},
                                        {}, server='a'),), result.changes)
        self.assertEqual((), result.unmatched_servers)

    def test_custom_key_equal_to_ours_is_set_once(self):
        result = nl.plan([server('a', '10.0.0.1')],
                         [node('w1', '10.0.0.1')], OURS)
        self.assertEqual({OURS: 'cmp1'}, dict(result.changes[0].set))

    def test_up_to_date_node_is_unchanged(self):
        result = nl.plan([server('a', '10.0.0.1')],
                         [labelled('w1', '10.0.0.1', 'cmp1')], ZONE)
        self.assertEqual((), result.changes)
        self.assertEqual(('w1',), result.unchanged)

    def test_stale_value_after_migration_is_overwritten(self):
        result = nl.plan([server('a', '10.0.0.1', 'cmp2')],
                         [labelled('w1', '10.0.0.1', 'cmp1')], ZONE)
        self.assertEqual({ZONE: 'cmp2', OURS: 'cmp2'},
                         dict(result.changes[0].set))

    def test_gone_server_loses_our_labels_only(self):
        result = nl.plan([], [labelled('w1', '10.0.0.1', 'cmp1', app='x')],
                         ZONE)
        self.assertEqual((nl.NodeChange('w1', {}, {ZONE: 'cmp1',
                                                   OURS: 'cmp1'}),),
                         result.changes)

    def test_host_label_set_by_someone_else_stays(self):
        other = node('w1', **{ZONE: 'az-1', OURS: 'cmp1'})
        result = nl.plan([], [other], ZONE)
        self.assertEqual({OURS: 'cmp1'}, dict(result.changes[0].remove))

    def test_node_never_ours_is_not_touched(self):
        result = nl.plan([], [node('w1', **{ZONE: 'az-1'})], ZONE)
        self.assertEqual(((), ('w1',)), (result.changes, result.unchanged))

    def test_without_prune_unmatched_nodes_keep_labels(self):
        result = nl.plan([], [labelled('w1', '10.0.0.1', 'cmp1')], ZONE,
                         prune=False)
        self.assertEqual((), result.changes)

    def test_unmatched_server_is_reported(self):
        result = nl.plan([server('a', '10.0.0.1')], [], ZONE)
        self.assertEqual(('a',), result.unmatched_servers)
        self.assertIn('no Node matches', result.notes[0])

    def test_host_id_is_used_with_a_note(self):
        result = nl.plan([server('a', '10.0.0.1', None, 'ab' * 28)],
                         [node('w1', '10.0.0.1')], ZONE)
        self.assertEqual('ab' * 28, result.changes[0].set[ZONE])
        self.assertIn('hostId', result.notes[0])

    def test_unknown_host_leaves_the_node_with_a_note(self):
        result = nl.plan([server('a', '10.0.0.1', None)],
                         [labelled('w1', '10.0.0.1', 'cmp1')], ZONE)
        self.assertEqual((), result.changes)
        self.assertIn('neither host nor hostId', result.notes[0])

    def test_invalid_label_value_is_refused_with_a_note(self):
        result = nl.plan([server('a', '10.0.0.1', 'bad host!')],
                         [node('w1', '10.0.0.1')], ZONE)
        self.assertEqual((), result.changes)
        self.assertIn('not a valid label value', result.notes[0])


class TestLabelPatch(testtools.TestCase):

    def test_sets_only_what_differs(self):
        change = nl.NodeChange('w1', {ZONE: 'c2', OURS: 'c2'}, {})
        self.assertEqual({ZONE: 'c2'},
                         nl.label_patch({ZONE: 'c1', OURS: 'c2'}, change))

    def test_removes_only_while_the_value_is_ours(self):
        change = nl.NodeChange('w1', {}, {ZONE: 'c1', OURS: 'c1'})
        self.assertEqual({OURS: None},
                         nl.label_patch({ZONE: 'az', OURS: 'c1'}, change))
        self.assertEqual({}, nl.label_patch({'app': 'x'}, change))
