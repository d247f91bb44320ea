import xml.etree.ElementTree as ElementTree

import testtools

from demo import picture

SVG = '{http://www.w3.org/2000/svg}'


class TestRender(testtools.TestCase):

    def _texts(self, svg):
        root = ElementTree.fromstring(svg)
        return [node.text for node in root.iter(SVG + 'text')]

    def test_draws_every_zone_host_and_item(self):
        zones = [
            picture.Zone('AZ-1', (
                picture.Host('az1-h1', (picture.Item('VDU1-0'),
                                        picture.Item('slot', 'reserved'))),
                picture.Host('az1-h2'))),
            picture.Zone('AZ-2', (picture.Host('az2-h1'),), note='full'),
        ]
        texts = self._texts(picture.render('demo', zones))
        for expected in ('demo', 'AZ-1', 'AZ-2 (full)', 'az1-h1', 'az1-h2',
                         'VDU1-0', 'slot', '(empty)', 'reserved', 'other'):
            self.assertIn(expected, texts)

    def test_escapes_markup_in_names(self):
        zones = [picture.Zone('<AZ>&', (picture.Host('h"1'),))]
        svg = picture.render('t', zones)
        ElementTree.fromstring(svg)  # still well-formed
        self.assertIn('<AZ>&', self._texts(svg))

    def test_no_zones_is_still_a_picture(self):
        ElementTree.fromstring(picture.render('empty', [], legend=False))
