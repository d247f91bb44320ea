#!/usr/bin/env python3
"""The slow functional cases: their list, the share a run takes, and the
check that none of them was skipped.

    slow_cases.py regex            every slow case as one regex (./run's
                                   exclusion from the regular pass)
    slow_cases.py share [NUMBER]   the share NUMBER picks (default: the
                                   commit count, else the day), as one
                                   regex on stdout; "slow share K of N:
                                   ..." on stderr
    slow_cases.py skips            read a subunit v2 stream (``stestr last
                                   --subunit``) on stdin: fail when a test
                                   was skipped for anything but a platform
                                   reason

The list is ``placement_ext/tests/functional/slow_cases.txt`` (its header
says the format). A skip is a platform reason when its reason holds
``platform:`` (``self.skipTest('platform: ...')``): a fault case skipped
because its set-up is missing proves nothing, so it fails the run.

``list`` and ``share`` need the standard library only (./run calls them
before any venv exists); ``skips`` needs python-subunit (the venv's).
"""

import dataclasses
import datetime
import os
import pathlib
import re
import subprocess
import sys
import typing

REPO = pathlib.Path(__file__).resolve().parent.parent
LIST_FILE = REPO / 'placement_ext' / 'tests' / 'functional' / 'slow_cases.txt'
SHARE_MARK = '# share:'
PLATFORM_MARK = 'platform:'
# names the share explicitly (1 to N), e.g. to run again one that failed
SHARE_VARIABLE = 'PLACEMENT_EXT_SLOW_SHARE'


@dataclasses.dataclass(frozen=True)
class Share:
    title: str
    cases: tuple[str, ...]      # stestr regexes

    def regex(self) -> str:
        return '|'.join(f'(?:{case})' for case in self.cases)


def parse(text: str) -> list[Share]:
    """The shares of a list file, in order."""
    shares: list[tuple[str, list[str]]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(SHARE_MARK):
            shares.append((line[len(SHARE_MARK):].strip(), []))
            continue
        case = line.split('#', 1)[0].strip()
        if not case:
            continue
        if not shares:
            raise ValueError(f'{case!r}: a case before the first share')
        shares[-1][1].append(case)
    return [Share(title, tuple(cases)) for title, cases in shares if cases]


def load(path: pathlib.Path = LIST_FILE) -> list[Share]:
    return parse(path.read_text())


def every_case(shares: list[Share]) -> str:
    """One regex for every case of every share."""
    return '|'.join(share.regex() for share in shares)


def run_number() -> int:
    """What picks this run's share: the commit count (each landing moves
    it on), the day's number without git."""
    try:
        result = subprocess.run(['git', 'rev-list', '--count', 'HEAD'],
                                cwd=REPO, capture_output=True, text=True,
                                check=True)
        return int(result.stdout.strip())
    except (OSError, ValueError, subprocess.CalledProcessError):
        return datetime.date.today().toordinal()


def pick(shares: list[Share], number: int,
         chosen: str = '') -> tuple[int, Share]:
    """The share for run ``number`` (1-based index, share), or the one
    ``chosen`` names (1 to N)."""
    if chosen:
        index = int(chosen)
        if not 1 <= index <= len(shares):
            raise ValueError(f'{SHARE_VARIABLE}={chosen}: not a share '
                             f'(1 to {len(shares)})')
        return index, shares[index - 1]
    index = number % len(shares) + 1
    return index, shares[index - 1]


def readable(case: str) -> str:
    """A case regex as a person reads it (module.Class.test)."""
    text = re.sub(r'^\^?(placement_ext\\\.tests\\\.functional\\\.)?', '',
                  case)
    return text.replace('\\.', '.').rstrip('.')


def headline(index: int, shares: list[Share], share: Share) -> str:
    return (f'slow share {index} of {len(shares)}: {share.title}: '
            f'{", ".join(readable(c) for c in share.cases)}')


def unexplained(skips: dict[str, str]) -> dict[str, str]:
    """The skips whose reason is not a platform's."""
    return {test: reason for test, reason in skips.items()
            if PLATFORM_MARK not in reason}


def read_skips(stream: typing.BinaryIO) -> dict[str, str]:
    """test id -> skip reason, from a subunit v2 stream."""
    import subunit
    import testtools

    skips = {}

    def on_test(test: dict) -> None:
        if test['status'] == 'skip':
            reason = test['details'].get('reason')
            skips[test['id']] = reason.as_text() if reason else ''

    result = testtools.StreamToDict(on_test)
    result.startTestRun()
    subunit.ByteStreamToStreamResult(stream).run(result)
    result.stopTestRun()
    return skips


def check_skips(stream: typing.BinaryIO) -> int:
    bad = unexplained(read_skips(stream))
    for test, reason in sorted(bad.items()):
        print(f'skipped without a platform reason: {test}: {reason}',
              file=sys.stderr)
    if bad:
        print(f'{len(bad)} slow case(s) skipped: a fault case that does not '
              f'run proves nothing (a platform skip says '
              f'"{PLATFORM_MARK} ..." in its reason)', file=sys.stderr)
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ''
    if command == 'skips':
        return check_skips(sys.stdin.buffer)
    shares = load()
    if command == 'regex':
        print(every_case(shares))
        return 0
    if command == 'share':
        number = int(argv[1]) if len(argv) > 1 else run_number()
        index, share = pick(shares, number,
                            os.environ.get(SHARE_VARIABLE, '').strip())
        print(headline(index, shares, share), file=sys.stderr)
        print(share.regex())
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
