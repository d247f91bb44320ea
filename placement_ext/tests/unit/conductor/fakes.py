"""A small stand-in for Heat and for zone inputs, for the runner's unit
tests. It fails the way real Heat does (the texts come from the embedded
cloud) when a zone has no room for a VNFC; the functional tests run the
same loop against real Heat and Nova."""

import itertools

from placement_ext.drivers import heat as heat_driver
from placement_ext.drivers import nova as nova_driver

NO_VALID_HOST = ('Resource CREATE failed: ResourceInError: resources.{vnfc}: '
                 'Went to status ERROR due to "Message: No valid host was '
                 'found. , Code: 500"')


class FakeHeat:
    """Stacks whose VNFCs fit while their zone has ``room`` left."""

    def __init__(self, room: dict[str, int], error: str | None = None):
        self.room = dict(room)
        self.error = error          # a non-capacity failure text
        self.stacks: dict[str, dict] = {}
        self.calls: list[tuple] = []
        self._ids = (f'stack-{n}' for n in itertools.count())
        self._times = (f't{n}' for n in itertools.count())

    def find_stack(self, name):
        return next((dict(s) for s in self.stacks.values()
                     if s['stack_name'] == name), None)

    def create_stack(self, name, template, parameters, files=None,
                     timeout_mins=20, disable_rollback=True):
        stack_id = next(self._ids)
        self.stacks[stack_id] = {'id': stack_id, 'stack_name': name,
                                 'updated_time': None}
        self.calls.append(('create', parameters))
        self._apply(stack_id, 'CREATE', parameters)
        return stack_id

    def update_stack(self, stack_id, parameters, timeout_mins=20,
                     disable_rollback=True, template=None, files=None):
        self.calls.append(('update', parameters))
        self.stacks[stack_id]['updated_time'] = next(self._times)
        self._apply(stack_id, 'UPDATE', parameters)

    def wait_settled(self, stack_id, deadline_s):
        self.calls.append(('wait_settled', stack_id))

    def mark_unhealthy(self, stack_id, resource_name, reason):
        self.calls.append(('mark_unhealthy', resource_name))

    def wait(self, stack_id, action, deadline_s, started_after=None):
        stack = self.stacks[stack_id]
        return heat_driver.StackOutcome(stack_id, stack['stack_status'],
                                        stack['stack_status_reason'])

    def latest_failure_reason(self, stack_id):
        return self.stacks[stack_id]['stack_status_reason']

    def _apply(self, stack_id, action, parameters):
        placed = {vnfc: spec['locationConstraints']
                  for vnfc, spec in parameters['nfv']['VDU'].items()}
        reason = self.error or next(
            (NO_VALID_HOST.format(vnfc=vnfc)
             # newest first: the VNFCs an operation adds are last
             for vnfc, zone in sorted(placed.items(), reverse=True)
             if self.room.get(zone, 0) < self._need(placed, zone)), '')
        status = f'{action}_FAILED' if reason else f'{action}_COMPLETE'
        self.stacks[stack_id].update(stack_status=status,
                                     stack_status_reason=reason)

    @staticmethod
    def _need(placed, zone):
        return sum(1 for z in placed.values() if z == zone)


class FakeZones:
    """Zone inputs: the zones, and the room the fake Heat has."""

    def __init__(self, zones, heat: FakeHeat | None = None, note=''):
        self.listing = nova_driver.ZoneListing(tuple(zones), {}, True, note)
        self.heat = heat

    def candidates(self, request, restrict_to_grant):
        zones = list(self.listing.zones)
        if restrict_to_grant and request.get('grant_zones'):
            zones = [z for z in zones if z in request['grant_zones']]
        return zones, self.listing.note

    def capacity(self, zones, request, vnfc):
        if self.heat is None:
            return None
        return {zone: self.heat.room.get(zone, 0) for zone in zones}
