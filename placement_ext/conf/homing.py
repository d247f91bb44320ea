"""[homing]: cloud selection by deployment intent, capacity, cost and
distance (ONAP OOF homing), and the HAS-compatible plan API that serves it."""

from oslo_config import cfg
from oslo_config import types

from placement_ext.conf import api_server

GROUP = cfg.OptGroup(
    'homing', title='Cloud selection (homing) options',
    help='Which cloud types can realise which deployment intent, how '
         'capacity and cost of a candidate region are judged, and the '
         'HTTP endpoint (placement-ext-homing-api) that takes ONAP '
         'OOF-HAS plans.')

_OPENSTACK_TYPES = ['OpenStack', 'VMware VIO', 'Wind River Titanium Cloud',
                    'StarlingX']

_opts = [
    cfg.ListOpt('high_availability_cloud_types', default=_OPENSTACK_TYPES,
                help='Cloud types that realise "Infrastructure High '
                     'Availability for VNF" (anti-affinity server groups '
                     'in the Heat template). A region of another type is '
                     'dropped when the policy asks for HA.'),
    cfg.ListOpt('isolation_cloud_types', default=_OPENSTACK_TYPES,
                help='Cloud types that realise "Infrastructure Resource '
                     'Isolation for VNF" (a flavor whose extra specs give '
                     'the QoS).'),
    cfg.ListOpt('oversubscription_percentages',
                item_type=types.Integer(min=1, max=1000), default=[25, 50],
                help='Burstable QoS oversubscription percentages a policy '
                     'may ask for; other values are refused. A flavor '
                     'with cpu and memory reservation R% (extra specs '
                     'quota:cpu_reservation_percent and '
                     'quota:memory_reservation_percent) oversubscribes '
                     'by 100/R - 1 (R=80: 25%), or says so directly with '
                     'placement_ext:oversubscription_percent.'),
    cfg.ListOpt('public_cloud_types', default=['Azure', 'AWS', 'GCP'],
                help='Cloud types whose capacity is not read (public '
                     'clouds); see public_cloud_capacity. Every other '
                     'type is read from Placement and Nova in its region.'),
    cfg.StrOpt('public_cloud_capacity', default='pass',
               choices=[('pass', 'a public cloud always has capacity'),
                        ('drop', 'a public cloud is dropped as of '
                                 'unknown capacity')],
               help='Capacity verdict for public cloud regions.'),
    cfg.StrOpt('cost_file',
               help='JSON or YAML file with the operator\'s workload '
                    'deployment costs: fixed cost per cloud type, '
                    'instance type per <service, vnfc, cloud owner>, '
                    'cost per instance type and region, and cost per '
                    'intent feature group (doc/source/homing.rst). Read '
                    'once per selection, so edits apply without restart.'),
    cfg.StrOpt('regions_file',
               help='JSON or YAML list of the candidate cloud regions '
                    'that HAS plans (placement-ext-homing-api) choose '
                    'from: cloud_owner, region_id, cloud_type, latitude, '
                    'longitude, and optionally availability_zone, '
                    'project, and A&AI\'s physical_location_id (CLLI), '
                    'cloud_region_version, cloud_zone and complex_name '
                    '(doc/source/homing.rst). ONAP reads these from A&AI. '
                    'Read for every plan.'),
    cfg.FloatOpt('default_cost', default=0.0,
                 help='Cost of a region whose cloud type and instance type '
                      'have no cost in cost_file.'),
    cfg.FloatOpt('distance_weight', default=1.0, min=0.0,
                 help='wd in wd * distance_km + wc * cost, when a request '
                      'gives no weights.'),
    cfg.FloatOpt('cost_weight', default=1.0, min=0.0,
                 help='wc in wd * distance_km + wc * cost, when a request '
                      'gives no weights.'),
    cfg.HostAddressOpt('api_host', default='127.0.0.1',
                       help='Address placement-ext-homing-api listens on.'),
    cfg.PortOpt('api_port', default=8091,
                help='Port placement-ext-homing-api listens on (ONAP '
                     'OOF-HAS listens on 8091).'),
    cfg.StrOpt('api_username',
               help='HTTP basic authentication user of '
                    'placement-ext-homing-api, as ONAP OSDF sends it. '
                    'Without api_username and api_password the API '
                    'refuses to start unless it listens on loopback.'),
    cfg.StrOpt('api_password', secret=True,
               help='Password of api_username.'),
    cfg.BoolOpt('multicloud_without_credentials', default=False,
                help='Answer Multi-Cloud\'s capacity check (POST '
                     '/api/multicloud/v0/check_vim_capacity) without '
                     'credentials even when api_username is set. ONAP '
                     'HAS\'s multicloud plugin sends none (MultiCloud is '
                     'reached through MSB inside the cluster); set it '
                     'when HAS calls this API and only the network '
                     'reaches it. The answer says which of the VIMs '
                     'named have room for one instance of a size.'),
    cfg.IntOpt('plan_timeout', default=300, min=1, max=3600,
               help='Seconds a HAS plan may take when it gives no '
                    '"timeout" of its own. A plan still solving at its '
                    'timeout is answered with status "error" and a '
                    'message saying so; regions not read by then are not '
                    'waited for.'),
    cfg.IntOpt('plan_solvers', default=4, min=1, max=64,
               help='HAS plans one placement-ext-homing-api process '
                    'solves at once. A plan posted while all are busy '
                    'waits in the database (status "template") for a '
                    'free solver of any process sharing it, within its '
                    'own timeout.'),
    cfg.FloatOpt('plan_heartbeat_interval', default=2.0, min=0.1, max=60,
                 help='Seconds between a homing API process\'s heartbeats '
                      'on the plans it solves, and its looks for plans '
                      'nobody solves. A plan whose process missed 5 '
                      'heartbeats (it stopped) is solved again by another '
                      'process, or ends "error" once its timeout passed '
                      'or after 3 tries.'),
    cfg.IntOpt('max_plan_demands', default=50, min=1, max=1000,
               help='Most demands a HAS plan template may have; a larger '
                    'template is refused with HTTP 400 naming '
                    'template.demands. Each demand is one selection over '
                    'every candidate region, and the answer lists every '
                    'region dropped for each demand.'),
    cfg.IntOpt('max_candidates', default=10000, min=1, max=1000000,
               help='Most candidate regions of one selection: the '
                    'candidates of a "homing select" request, the regions '
                    'of regions_file for a plan. More are refused naming '
                    'the request field or the file.'),
    *api_server.server_opts('placement-ext-homing-api', 4 * 1024 * 1024),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(_opts, group=GROUP)


def list_opts() -> dict:
    return {GROUP: _opts}
