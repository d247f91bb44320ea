"""placement_ext inside tacker-conductor (Tacker 13.x to 16.x: :mod:`.compat`).

Only :mod:`.driver` and :mod:`placement_ext.cmd.tacker_conductor` import
Tacker; :mod:`.request` translates Tacker's stack fields into our
operation request without it, so the rest of our package never needs
Tacker installed.
"""
