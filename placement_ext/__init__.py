"""placement_ext: placement intelligence for OpenStack NFV and reservations."""
