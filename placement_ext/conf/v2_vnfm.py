"""[v2_vnfm]: placement options, named as Tacker names them.

Operators who already run Tacker recognise these names in ``tacker.conf``;
the defaults match Tacker's where Tacker has the option, and the regular
expression is widened to every insufficient-capacity text Heat and Nova
really produce (Tacker's availability zone reselection specification,
section 4).
"""

import os

from oslo_config import cfg

from placement_ext import exception
from placement_ext.conf import types

GROUP = cfg.OptGroup(
    'v2_vnfm',
    title='VNF lifecycle management (v2) placement options',
    help='How Grant placement constraints are built and how an '
         'availability zone is reselected when a Heat stack create or '
         'update fails for lack of capacity.')

# Applied with re.match, as Tacker applies its pattern (so an operator's
# pattern written for Tacker classifies the same texts); the leading
# "(?s).*?" lets ours find the capacity text anywhere. Matches, in a Heat
# stack_status_reason or event reason:
#   ... ResourceInError: resources.VDU1: Went to status ERROR due to
#       "Message: No valid host was found. , Code: 500"
#   ... "Message: No valid host was found. There are not enough hosts
#       available., Code: 500"                        (anti-affinity)
#   ... "Message: Exceeded maximum number of retries. Exhausted all hosts
#       available for retrying build failures for instance <uuid>., ..."
# including the nested form resources.VDU1-1.resources.VDU, the
# ResourceGroup member form resources[0].resources.VDU and the
# "Resource UPDATE failed: resources.VDU1-0: Resource CREATE failed: ..."
# form of a stack update.
DEFAULT_AZ_RESOURCE_ERROR = (
    r'(?s).*?ResourceInError: resources[.\[][^:]+: Went to status ERROR '
    r'due to '
    r'"Message: (No valid host was found\.|Exceeded maximum number of '
    r'retries\. Exhausted all hosts available for retrying build failures '
    r'for instance)')

_opts = [
    cfg.BoolOpt(
        'placement_fallback_best_effort',
        default=False,
        help="""
Default value of ``fallbackBestEffort`` in the placement constraints of a
GrantRequest (ETSI NFV-SOL 003 v3.3.1). When true, the NFVO may relax an
affinity or anti-affinity constraint it cannot honour and grant a best
effort placement instead of refusing the Grant. A VNFD policy can override
it per constraint.
"""),
    cfg.IntOpt(
        'placement_az_select_retry',
        default=0,
        min=0,
        help="""
Maximum number of availability zone reselections for one lifecycle
operation (instantiate, heal or scale out). 0 means no upper limit, as
Tacker's help and the specification say: zones are tried until no
candidate is left or ``placement_az_select_timeout`` expires. (Tacker's
code stops after as many tries as there are zones; here a zone where a
VNFC failed is never tried again for it, so the count is the same in
practice, and the deadline bounds the time as well.) Set a limit when
the cloud has many zones and a long failing operation is worse than an
early failure.
"""),
    cfg.Opt(
        'placement_az_resource_error',
        type=types.Regex(),
        default=DEFAULT_AZ_RESOURCE_ERROR,
        help="""
Regular expression (Python syntax) that classifies a Heat stack failure
reason as "insufficient resources in the availability zone", which
triggers zone reselection. Any other failure fails the operation at once
with Heat's text. As in Tacker, the pattern must match at the start of the
text (``re.match``), so a pattern written for Tacker, such as
``Resource CREATE failed:(.*)``, classifies the same texts here; begin it
with ``.*`` to find a text anywhere. When Heat rolled the stack back, the
text is the failed resource's event reason (``ResourceInError:
resources.VDU1: ...``, without the ``Resource CREATE failed:`` prefix).
The default differs from Tacker's on purpose: Tacker's reselects on any
``ResourceInError`` (a missing image, a port or volume error), which a
move to another zone cannot fix; ours matches, anywhere in the text,
only Nova's "No valid host was found" (with or without "There are not
enough hosts available") and "Exceeded maximum number of retries.
Exhausted all hosts available ...", in the plain (``resources.VDU1``) and
nested (``resources.VDU1-1.resources.VDU``) forms of stack create and
update. Tacker's own default may be set here to get Tacker's behaviour. An
invalid pattern is refused at start-up.
"""),
    cfg.StrOpt(
        'placement_az_select_strategy',
        default='capacity',
        choices=[
            ('capacity', 'Rank candidate zones by how many instances of the '
                         'failed VDU flavor still fit, read from Placement.'),
            ('random', 'Pick uniformly among the candidate zones, as in the '
                       'Tacker specification.'),
        ],
        help='How the next availability zone is chosen after a failure.'),
    cfg.BoolOpt(
        'placement_az_precheck',
        default=True,
        help="""
Check each target's zone against the room Placement reports before the
first stack create or update, and move the targets that cannot fit to a
zone the Grant allows (its ``zones``, else the zones it placed the
targets in) where they fit; after a capacity failure, also move the
other targets of the zone Heat found full. A target named by a placement
constraint whose ``fallbackBestEffort`` is not true is never moved this
way. Every such move is recorded on the operation with its reason. Set to
false for the behaviour of the ETSI/Tacker specification exactly: the
granted placement is sent as it is and only the VNFC Heat names (with
its affinity group) moves after a failure. Needs Placement to be
readable (``[placement]``); without it nothing is moved in advance.
"""),
    cfg.IntOpt(
        'placement_az_select_timeout',
        default=3600,
        min=0,
        help="""
Overall deadline, in seconds, for one operation's zone reselection loop,
counted from the first stack create or update. 0 disables the deadline.
"""),
    cfg.BoolOpt(
        'placement_az_restrict_to_grant',
        default=False,
        help="""
Restrict reselection candidates to the zones the Grant allowed. When false
(the Tacker behaviour), every available compute zone is a candidate.
"""),
    cfg.BoolOpt(
        'placement_regrant_before_move',
        default=False,
        help="""
Before each reselection moves VNFCs, send the operation's GrantRequest to
the NFVO again (``[nfvo]``), with the failed and proposed zones in
``additionalParams.zoneReselection``, and place the VNFCs where the new
Grant says; a refusal fails the operation. When false (the Tacker
behaviour) the NFVO is not told of the move. Operations must then carry
the GrantRequest they were granted with (``grant_request``).
"""),
    cfg.BoolOpt(
        'placement_check_anti_affinity_hosts',
        default=False,
        help="""
When translating a VNFD's affinity rules into Nova server groups
(``placement-ext vnfd translate``), ask Nova how many compute hosts are up
(per availability zone) and refuse a hard ``nfvi_node`` anti-affinity rule
whose targets' ``min_number_of_instances`` add up to more hosts than that.
Listing hosts per zone is admin-only by default policy; without it the
check is skipped with a warning. ``--hosts`` or ``--check-hosts`` ask for
the check in one run.
"""),
    cfg.IntOpt(
        'openstack_vim_stack_create_timeout',
        default=20,
        min=1,
        help='Heat ``timeout_mins`` for each stack create or update, in '
             'minutes.'),
    cfg.BoolOpt(
        'enable_rollback_stack',
        default=False,
        help="""
Let Heat roll back a failed stack create or update. The failure reason is
then read from the latest failed stack event instead of
``stack_status_reason``.
"""),
]

# Tacker's TLS and authentication options for its Heat and Nova clients
# (tacker/sol_refactored/common/config.py), with Tacker's names, defaults
# and meaning: our zone reselection inside tacker-conductor reaches the
# VIM as Tacker's own clients do.
_tls_opts = [
    cfg.BoolOpt(
        'heat_verify_cert',
        default=False,
        help="""
Verify the TLS certificates of the VIM's Keystone and Heat (Tacker's
option, Tacker's default: not verified). Read by Tacker's Heat client and
by our zone reselection in placement-ext-tacker-conductor, which reaches
Heat (and the Keystone its token comes from) with the same setting. The
VIM's ``interfaceInfo.skipCertificateVerification`` is not read, by
Tacker nor by us: Tacker sets it true on every registered VIM.
"""),
    cfg.StrOpt(
        'heat_ca_cert_file',
        default='',
        help="""
CA certificate file (PEM) that signs the certificates of the VIM's
Keystone and Heat, used when ``heat_verify_cert`` is true (empty: the
system's CAs). A file that does not exist is refused at start-up.
"""),
    cfg.BoolOpt(
        'nova_verify_cert',
        default=False,
        help="""
Verify the TLS certificates of the VIM's Keystone and Nova (Tacker's
option, Tacker's default: not verified). Tacker's Nova client lists the
zones for its reselection with it; ours reaches Nova and Placement (and
the Keystone its token comes from) with the same setting.
"""),
    cfg.StrOpt(
        'nova_ca_cert_file',
        default='',
        help="""
CA certificate file (PEM) that signs the certificates of the VIM's
Keystone, Nova and Placement, used when ``nova_verify_cert`` is true
(empty: the system's CAs). A file that does not exist is refused at
start-up.
"""),
    cfg.BoolOpt(
        'use_oauth2_mtls_for_heat',
        default=False,
        help="""
Reach Heat with an OAuth 2.0 access token got by mutual TLS, as Tacker
does: the token from the VIM's ``interfaceInfo.tokenEndpoint`` (client
``accessInfo.username``, client certificate
``heat_mtls_client_cert_file``), Heat at ``interfaceInfo.heatEndpoint``.
``heat_verify_cert`` and ``heat_ca_cert_file`` are then not read: the
server certificates are always verified, against
``heat_mtls_ca_cert_file`` when set. Nova and Placement are still reached
with the VIM's password (``nova_*``), as Tacker's Nova client is.
"""),
    cfg.StrOpt(
        'heat_mtls_ca_cert_file',
        default='',
        help="""
CA certificate file (PEM) of the token endpoint and Heat when
``use_oauth2_mtls_for_heat`` is true (empty: the system's CAs).
"""),
    cfg.StrOpt(
        'heat_mtls_client_cert_file',
        default='',
        help="""
Client certificate file (PEM, with its private key) presented to the
token endpoint and Heat when ``use_oauth2_mtls_for_heat`` is true.
"""),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(_opts + _tls_opts, group=GROUP)


def check(conf: cfg.ConfigOpts) -> None:
    """Asking the NFVO again needs to know where it is; a certificate
    file named must exist (else every TLS request would fail)."""
    _check_files(conf.v2_vnfm)
    if conf.v2_vnfm.placement_regrant_before_move and \
            not conf.nfvo.endpoint_override:
        raise exception.InvalidInput(
            field='[nfvo] endpoint_override',
            reason='must name the NFVO (its apiRoot) when [v2_vnfm] '
                   'placement_regrant_before_move is true')


def list_opts() -> dict:
    return {GROUP: _opts + _tls_opts}


def _check_files(group: object) -> None:
    named = {'heat_ca_cert_file': group.heat_verify_cert,
             'nova_ca_cert_file': group.nova_verify_cert,
             'heat_mtls_ca_cert_file': group.use_oauth2_mtls_for_heat,
             'heat_mtls_client_cert_file': group.use_oauth2_mtls_for_heat}
    for name, used in named.items():
        path = getattr(group, name)
        if used and path and not os.path.isfile(path):
            raise exception.InvalidInput(
                field=f'[v2_vnfm] {name}',
                reason=f'{path} is not a file')
