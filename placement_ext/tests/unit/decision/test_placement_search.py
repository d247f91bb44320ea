"""The placement search: best slot by groups, the same as full ranking."""

import testtools
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from placement_ext.decision import placement_search as search
from placement_ext.vocabulary import sol_enums

SCOPES = (sol_enums.ZONE, sol_enums.ZONE_GROUP, sol_enums.NFVI_POP,
          sol_enums.NFVI_NODE)


class EagerSearch(search.Search):
    """The search as it was: every slot ranked for every item reached."""

    def _place_all(self, budget):
        stack = []
        while True:
            position = len(stack)
            if position == len(self._items):
                return True
            budget.spend()
            candidates = self._candidates(self._items[position]) \
                if self._anti_still_possible(position) else []
            candidates.reverse()
            stack.append(candidates)
            while stack and not stack[-1]:
                stack.pop()
                if not stack:
                    return False
                item = self._items[len(stack) - 1]
                self._release(item, self._location[item.id])
            item = self._items[len(stack) - 1]
            self._take(item, stack[-1].pop())


def slot(zone, host, group=None, pop=None):
    return search.Slot(zone, host, group, pop)


class TestGroups(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.slots = [slot('AZ-1', 'h1'), slot('AZ-1', 'h2'),
                      slot('AZ-2', 'h3')]
        self.free = {self.slots[0]: {'VCPU': 2}, self.slots[1]: {'VCPU': 4},
                     self.slots[2]: {'VCPU': 0}}
        self.groups = search._Groups(self.slots, (sol_enums.ZONE,),
                                     {'VCPU': 1}, self.free)

    def test_one_group_per_scope_instance_in_slot_order(self):
        self.assertEqual([('AZ-1',), ('AZ-2',)], self.groups.keys)

    def test_top_is_most_room_then_first(self):
        self.assertEqual((-4, 1), self.groups.top(0))

    def test_group_without_room_has_no_top(self):
        self.assertIsNone(self.groups.top(1))

    def test_stale_entries_are_skipped_after_a_change(self):
        self.groups.changed(1, {'VCPU': 1})
        self.assertEqual((-2, 0), self.groups.top(0))
        self.groups.changed(1, {'VCPU': 4})
        self.assertEqual((-4, 1), self.groups.top(0))

    def test_a_slot_that_gets_room_back_is_offered_again(self):
        self.groups.changed(2, {'VCPU': 3})
        self.assertEqual((-3, 2), self.groups.top(1))

    def test_no_scope_is_one_group(self):
        groups = search._Groups(self.slots, (), {'VCPU': 1}, self.free)
        self.assertEqual([()], groups.keys)
        self.assertEqual((-4, 1), groups.top(0))


@st.composite
def problems(draw):
    """Small random problems: slots over zones, groups and pops; items
    of two demands; rules of any kind and scope; some fixed members."""
    slots, free = [], {}
    for zone in range(draw(st.integers(1, 4))):
        for host in range(draw(st.integers(1, 3))):
            here = slot(f'AZ-{zone}', f'h{zone}-{host}',
                        draw(st.sampled_from([None, 'G1', 'G2'])),
                        draw(st.sampled_from([None, 'P1'])))
            slots.append(here)
            free[here] = {'VCPU': draw(st.integers(0, 4)),
                          'MEMORY_MB': draw(st.integers(0, 4)) * 512}
    demands = [{'VCPU': 1, 'MEMORY_MB': 512}, {'VCPU': 2}]
    items = [search.Item(f'r{n}', draw(st.sampled_from(demands)))
             for n in range(draw(st.integers(1, 7)))]
    fixed = {f'old{n}': draw(st.sampled_from(slots))
             for n in range(draw(st.integers(0, 2)))}
    names = [item.id for item in items] + list(fixed)
    rules = [search.Rule(index, draw(st.booleans()),
                         draw(st.sampled_from(SCOPES)),
                         tuple(draw(st.lists(st.sampled_from(names),
                                             min_size=2, max_size=5))))
             for index in range(draw(st.integers(0, 3)))]
    hard = draw(st.lists(st.sampled_from(rules), unique_by=id)) \
        if rules else []
    soft = [rule for rule in rules if all(rule is not h for h in hard)]
    return slots, free, items, fixed, hard, soft


def outcome(cls, problem, nodes):
    try:
        return cls(*problem).run(search.Budget(nodes))
    except search.BudgetExhausted:
        return 'budget exhausted'


class TestSameAsFullRanking(testtools.TestCase):

    @settings(max_examples=150, deadline=None)
    @given(problems(), st.sampled_from([5, 40, 10_000]))
    def test_same_placement_or_refusal_within_the_same_budget(
            self, problem, nodes):
        self.assertEqual(outcome(EagerSearch, problem, nodes),
                         outcome(search.Search, problem, nodes))

    @settings(max_examples=80, deadline=None)
    @given(problems())
    def test_best_is_the_first_of_the_full_ranking(self, problem):
        found = search.Search(*problem)
        for item in found._items:
            ranked = found._candidates(item)
            self.assertEqual(ranked[0] if ranked else None,
                             found._best(item))
            if not ranked:
                return
            found._take(item, ranked[-1])  # move on from an odd state
