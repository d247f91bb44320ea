"""The names every layer spells the same way: the ground floor.

States of leases, reservations, events, operations and plans
(:mod:`.states`), the names that tie a reservation or a host to Placement
and Nova objects (:mod:`.reservation_names`, :mod:`.host_names`), the
ETSI SOL 003 enumerations (:mod:`.sol_enums`) and the warning filters of
our entry points (:mod:`.warning_filters`).

Every other package may import these modules and none of them imports a
package of ours above it (only :mod:`placement_ext.exception`, below):
so that the database models, the objects, the decision code and the
adapters name a state without importing each other. The import contract
in ``setup.cfg`` (``lint-imports``) keeps it so.
"""
