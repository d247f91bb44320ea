"""Serve an oslo WSGI application on 127.0.0.1 with waitress.

    python -m serve MODULE:ATTR PORT [app arguments, e.g. --config-file X]

The app's own arguments stay in sys.argv, where oslo.config looks.
"""

import importlib
import os
import sys

import waitress


def main() -> None:
    target, port = sys.argv[1], int(sys.argv[2])
    sys.argv = sys.argv[:1] + sys.argv[3:]
    module, _, attr = target.partition(':')
    app = getattr(importlib.import_module(module), attr or 'application')
    waitress.serve(app, host='127.0.0.1', port=port,
                   threads=int(os.environ.get('WSGI_THREADS', '8')),
                   _quiet=True)


if __name__ == '__main__':
    main()
