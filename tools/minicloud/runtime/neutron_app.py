"""neutron-server's WSGI application, with every DB model mapped.

neutron.wsgi.api does not import all models, so ``GET /v2.0/ports``
fails with "type object 'Port' has no attribute 'port_forwardings'".
Importing the migration head imports them all.
"""

import sqlalchemy.orm
from neutron.db.migration.models import head  # noqa: F401
from neutron.wsgi.api import application  # noqa: F401

sqlalchemy.orm.configure_mappers()
