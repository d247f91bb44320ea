"""Clients and stand-ins shared by the tests, the benchmarks and the demo.

What talks to a real Tacker (:mod:`tacker_api`), plays Tacker's
management driver call (:mod:`tacker_mgmt`), stands in for a
kube-apiserver (:mod:`kube_apiserver`) or writes our services' config
for a cloud (:mod:`cloud_config`). They are not in ``tests`` because
``./run demo`` uses them and the demo must not import tests.

Layers: this package sits on the top floor, beside ``cmd`` and ``cli``:
it imports downwards (``conf``, ``db``, ``objects``, ``sol``,
``decision``) and nothing of the service (adapters, conductor, manager,
api, drivers, ...) imports it.
"""
