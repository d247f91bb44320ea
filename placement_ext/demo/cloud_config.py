"""Configuration of our services for a cloud described in clouds.yaml.

The embedded cloud (``tools/minicloud``) writes a ``clouds.yaml``; our
``[heat]``, ``[nova]`` and ``[placement]`` groups take the same
credentials as keystoneauth1 password options.
"""

import configparser

import yaml

SERVICE_GROUPS = ('heat', 'nova', 'placement')
_AUTH_KEYS = ('auth_url', 'username', 'password', 'project_name',
              'user_domain_name', 'project_domain_name')


def service_sections(clouds_yaml: str, cloud: str) -> dict[str, dict]:
    """``{group: {option: value}}`` for every service group."""
    with open(clouds_yaml, encoding='utf-8') as stream:
        entry = yaml.safe_load(stream)['clouds'][cloud]
    options = {'auth_type': 'password'}
    options.update({key: entry['auth'][key] for key in _AUTH_KEYS
                    if key in entry['auth']})
    if entry.get('region_name'):
        options['region_name'] = entry['region_name']
    return {group: dict(options) for group in SERVICE_GROUPS}


def write(path: str, sections: dict[str, dict]) -> None:
    parser = configparser.ConfigParser(interpolation=None)
    for group, options in sections.items():
        parser[group] = {key: str(value) for key, value in options.items()}
    with open(path, 'w', encoding='utf-8') as stream:
        parser.write(stream)
