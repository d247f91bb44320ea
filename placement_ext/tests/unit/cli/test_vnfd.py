"""``placement-ext vnfd translate``: templates in and out, hosts, errors."""

import os

import fixtures
import yaml

from placement_ext.cli import shell
from placement_ext.cli import vnfd as vnfd_cli
from placement_ext.drivers import nova as nova_driver
from placement_ext.tests.unit.cli import test_grant
from placement_ext.tests.unit.cli import test_reselection as base
from placement_ext.tests.unit.decision import test_vnfd_translation as tt
from placement_ext.tests.unit.rpc import base as rpc_base
from placement_ext.tests.unit.sol import test_vnfd

VNFD = test_grant.VNFD  # doc/source/examples/vnfd_anti_affinity.yaml
ZONE_WARNINGS = (
    "anti_affinity_vdu1_zones: scope zone (anti-affinity of VDU1) is not a "
    "Nova server group; it is left to the Grant's ZONE placement "
    "constraint (placement-ext grant request) and to zone reselection\n"
    "affinity_vdu2_zone: scope zone (affinity of VDU2) is not a Nova "
    "server group; it is left to the Grant's ZONE placement constraint "
    "(placement-ext grant request) and to zone reselection\n")
GROUP = {'get_resource': 'anti_affinity_hosts_group'}


def documents(out):
    """name -> template of the printed YAML documents."""
    parsed = {}
    for text in out.split('---\n'):
        header, _, body = text.partition('\n')
        parsed[header.removeprefix('# ')] = yaml.safe_load(body)
    return parsed


class TestTranslate(base.CliTestCase):

    def translate(self, *argv, config='', vnfd=VNFD):
        for stream in (self.stdout, self.stderr):  # this run's output only
            stream.seek(0)
            stream.truncate()
        return self.run_cli(
            '--config-file', rpc_base.write_config(self.tmp, config),
            'vnfd', 'translate', vnfd, *argv)

    def write_package(self, templates):
        """Tacker's layout: the top template, nested ones in nested/."""
        os.makedirs(os.path.join(self.tmp, 'BaseHOT', 'nested'))
        paths = {}
        for name, template in templates.items():
            where = ('BaseHOT',) if name == 'top.yaml' else (
                'BaseHOT', 'nested')
            paths[name] = os.path.join(self.tmp, *where, name)
            with open(paths[name], 'w') as stream:
                yaml.safe_dump(template, stream)
        return paths

    def test_tacker_v2_package_with_its_nested_folder(self):
        paths = self.write_package(tt.tacker_v2())
        status, out, err = self.translate('--heat', paths['top.yaml'])
        self.assertEqual((0, ZONE_WARNINGS), (status, err))
        printed = documents(out)
        self.assertEqual(['top.yaml', 'VDU1.yaml', 'VDU2.yaml'],
                         list(printed))
        top = printed['top.yaml']['resources']
        self.assertEqual(['anti-affinity'], top['anti_affinity_hosts_group'][
            'properties']['policies'])
        self.assertEqual(GROUP, top['VDU2']['properties']['resource'][
            'properties']['server_group'])
        self.assertEqual({'group': tt.FROM_PARAM}, printed['VDU1.yaml'][
            'resources']['VDU1']['properties']['scheduler_hints'])

    def test_output_translated_again_is_the_same(self):
        paths = self.write_package(tt.tacker_v2())
        out = self.translate('--heat', paths['top.yaml'])[1]
        tmp = self.useFixture(fixtures.TempDir()).path
        files = []
        for name, template in documents(out).items():
            files.append(os.path.join(tmp, name))
            with open(files[-1], 'w') as stream:
                yaml.safe_dump(template, stream)
        status, second, _ = self.translate(*[
            arg for path in files for arg in ('--heat', path)])
        self.assertEqual((0, documents(out)), (status, documents(second)))

    def test_explicit_nested_templates_and_soft_override(self):
        paths = self.write_package(tt.servers_top() | {
            'unused.yaml': tt.hot()})
        status, out, _ = self.translate(
            '--heat', paths['top.yaml'], '--heat', paths['unused.yaml'],
            '--fallback-best-effort', 'anti_affinity_hosts=true')
        self.assertEqual(0, status)
        printed = documents(out)
        self.assertEqual(['top.yaml', 'unused.yaml'], list(printed))
        self.assertEqual(['soft-anti-affinity'], printed['top.yaml'][
            'resources']['anti_affinity_hosts_group']['properties'][
            'policies'])

    def test_without_heat_a_generated_base_hot(self):
        status, out, err = self.translate()
        self.assertEqual((0, ZONE_WARNINGS), (status, err))
        printed = documents(out)
        self.assertEqual(['top.yaml', 'VDU1.yaml', 'VDU2.yaml'],
                         list(printed))
        self.assertEqual('OS::Heat::AutoScalingGroup',
                         printed['top.yaml']['resources']['VDU1']['type'])
        self.assertEqual({'group': tt.FROM_PARAM}, printed['VDU2.yaml'][
            'resources']['VDU2']['properties']['scheduler_hints'])

    def test_hosts_option(self):
        self.assertEqual(0, self.translate('--hosts', '2')[0])
        status, out, err = self.translate('--hosts', '1')
        self.assertEqual((2, ''), (status, out))
        self.assertIn(
            'ERROR placement_ext.input.invalid: Invalid '
            'policies.anti_affinity_hosts: anti-affinity needs 2 different '
            'hosts for min_number_of_instances (VDU1: 1, VDU2: 1); the '
            'cloud has 1 usable compute host\n', err)

    def nova(self, hosts, detailed=True):
        listing = nova_driver.ZoneListing(
            tuple(hosts), hosts, detailed=detailed,
            note='' if detailed else 'forbidden')
        self.useFixture(fixtures.MockPatch(
            'placement_ext.drivers.keystone.load_session'))
        return self.useFixture(fixtures.MockPatchObject(
            nova_driver.NovaDriver, 'compute_zones',
            return_value=listing)).mock

    def test_hosts_from_nova_by_option_or_configuration(self):
        compute_zones = self.nova({'AZ-1': ('h1',)})
        self.assertEqual(0, self.translate()[0])
        compute_zones.assert_not_called()
        self.assertEqual(2, self.translate('--check-hosts')[0])
        check = '[v2_vnfm]\nplacement_check_anti_affinity_hosts = true\n'
        self.assertEqual(2, self.translate(config=check)[0])
        self.assertEqual(0, self.translate('--no-check-hosts',
                                           config=check)[0])
        self.assertEqual(2, compute_zones.call_count)

    def test_hosts_from_nova_summed_over_zones(self):
        self.nova({'AZ-1': ('h1',), 'AZ-2': ('h2',)})
        self.assertEqual(0, self.translate('--check-hosts')[0])

    def test_no_host_detail_skips_the_check_with_a_warning(self):
        self.nova({}, detailed=False)
        status, _, err = self.translate('--check-hosts')
        self.assertEqual(0, status)
        self.assertIn('Host-count check skipped: Nova does not say which '
                      'hosts are up (forbidden)\n', err)

    def test_unknown_target_exits_2_naming_the_policy(self):
        document = test_vnfd.rules_document(
            {'anti': test_vnfd.rule(['VDU1', 'nowhere'])})
        status, out, err = self.translate(
            vnfd=self.write('vnfd.yaml', document))
        self.assertEqual((2, ''), (status, out))
        self.assertEqual(
            "ERROR placement_ext.input.invalid: Invalid policies.anti.targets:"
            " 'nowhere' is neither a VDU nor a tosca.groups.nfv."
            'PlacementGroup of the VNFD\n', err)

    def test_bad_files_and_options_exit_2(self):
        status, _, err = self.translate('--heat', '/nonexistent/top.yaml')
        self.assertEqual(2, status)
        self.assertIn('Invalid --heat: cannot read', err)
        status, _, err = self.translate('--fallback-best-effort', 'x=maybe')
        self.assertEqual(2, status)
        self.assertIn("Invalid --fallback-best-effort: 'x=maybe': must be "
                      'true or false', err)
        status, _, err = self.translate('--fallback-best-effort', 'x=true')
        self.assertEqual(
            (2, 'ERROR placement_ext.input.invalid: Invalid policies: no '
                'affinity or anti-affinity rule named x\n'), (status, err))

    def test_two_templates_of_one_name(self):
        paths = self.write_package(tt.tacker_v2())
        other = self.write('VDU1.yaml', tt.hot())
        status, _, err = self.translate('--heat', paths['top.yaml'],
                                        '--heat', other)
        self.assertEqual(2, status)
        self.assertIn("Invalid --heat: two templates named 'VDU1.yaml'", err)

    def test_registered_entry_point(self):
        command, _, _ = shell.PlacementExtApp().command_manager.find_command(
            ['vnfd', 'translate'])
        self.assertIs(vnfd_cli.Translate, command)


class TestCaps(TestTranslate):
    """A 60 MB VNFD with 700,000 VDUs ran for over 400 s: the size and
    the VDU count are capped (--max-size, --max-vdus), with a clear
    error before any translation."""

    def test_too_many_vdus(self):
        # the example has two VDUs
        self.assertEqual((2, '', (
            f"ERROR placement_ext.input.invalid: Invalid VNFD: {VNFD!r} has "
            f"2 VDUs, more than the 1 accepted (--max-vdus)\n")),
            self.translate('--max-vdus', '1'))
        self.assertEqual(0, self.translate('--max-vdus', '2')[0])

    def test_too_large(self):
        size = os.path.getsize(VNFD)
        self.assertEqual((2, '', (
            f"ERROR placement_ext.input.invalid: Invalid VNFD: {VNFD!r} is "
            f"larger than the {size - 1} bytes accepted\n")),
            self.translate('--max-size', str(size - 1)))
        self.assertEqual(0, self.translate('--max-size', str(size))[0])

    def test_grant_request_has_the_same_caps(self):
        status, _, err = self.run_cli(
            'grant', 'request', '--vnfd', VNFD, '--operation', 'INSTANTIATE',
            '--vnf-instance', 'v1', '--max-vdus', '1')
        self.assertEqual(2, status)
        self.assertIn('Invalid --vnfd: ', err)
        self.assertIn('--max-vdus', err)
