"""Blazar's own tempest suite (blazar-tempest-plugin), unchanged, against
our plugins in blazar-manager: the API tests (gabbi), the host- and
instance-reservation scenarios and the lease-concurrency test.

The cloud is Blazar's devstack job's: one compute host in no named
availability zone (``PLACEMENT_EXT_MINICLOUD_TOPOLOGY=nova=1x2/8192/1028``,
tox -e blazar-tempest18); the default topology's tests do not run here.
"""
