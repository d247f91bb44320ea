"""Write a benchmark's results page (reStructuredText) the README quotes."""

import os
import textwrap


def load_now() -> float:
    """The machine's 1-minute load average, for a results page."""
    return round(os.getloadavg()[0], 2)


def load_sentence(began: float | None, ended: float | None) -> str:
    """What a results page says of the machine's load during its run."""
    if began is None:
        return ("The machine's load was not recorded for this run: compare "
                "only figures of one run.")
    return (f"The machine's 1-minute load average (os.getloadavg()) was "
            f"{began} when the run began and {ended} when it ended, on "
            f"{os.cpu_count()} CPUs.")


def write_rst(path: str, title: str, paragraphs: list[str],
              verbatim: tuple[str, ...] = ()) -> None:
    """Title, then paragraphs wrapped at 78 columns; tables in
    ``verbatim`` are written as they are."""
    bar = '=' * len(title)
    parts = [f'{bar}\n{title}\n{bar}'] + [
        p if p in verbatim else textwrap.fill(p, 78, break_on_hyphens=False)
        for p in paragraphs]
    with open(path, 'w', encoding='utf-8') as out:
        out.write('\n\n'.join(parts) + '\n')


def rst_table(head: list, rows: list) -> str:
    """A simple reStructuredText table of strings."""
    widths = [max(len(x) for x in col)
              for col in zip(head, *rows, strict=True)]
    line = '  '.join('=' * w for w in widths)
    fmt = '  '.join('{:<%d}' % w for w in widths)
    return '\n'.join(x.rstrip() for x in [line, fmt.format(*head), line]
                     + [fmt.format(*r) for r in rows] + [line])
