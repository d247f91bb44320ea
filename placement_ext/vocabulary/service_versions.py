"""What each version of our services speaks and stores.

``SERVICE_VERSION`` goes up by one whenever a release changes what the
services send each other (an RPC API version) or store (a schema or
payload its predecessor cannot read). Each service records the version
it runs in the ``services`` table at start (see
:mod:`placement_ext.objects.service`), which is how
``placement-ext-manage db contract`` knows that no older service still
runs, and how ``[upgrade_levels] manager = auto`` finds the newest RPC
version every live service understands (as Nova's ``SERVICE_VERSION``
and ``SERVICE_VERSION_HISTORY``).
"""

# the version of the code in this tree
SERVICE_VERSION = 2

# service version -> the RPC API version of each service at that version
# (the newest a server of that version accepts); one entry per version
RPC_HISTORY: dict[int, dict[str, str]] = {
    # 1.0.0: the first release
    1: {'manager': '1.9', 'conductor': '1.3'},
    # leases' status_changed_at; list_leases filters by status (manager
    # 1.10)
    2: {'manager': '1.10', 'conductor': '1.3'},
}

# the binaries that record themselves (``placement-ext-<SERVICE>``)
BINARIES = ('placement-ext-manager', 'placement-ext-conductor')
