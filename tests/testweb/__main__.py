"""Run the test web by hand: `python -m tests.testweb [--port N] [--port-file F]`.

Prints the base URL and the environment to point `sleuth` at it, then serves until Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from tests.testweb.server import TestWeb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.testweb", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="port to bind (default: any free)")
    parser.add_argument("--port-file", type=Path, help="write the chosen port to this file")
    args = parser.parse_args(argv)
    web = TestWeb(port=args.port).start()
    if args.port_file:
        args.port_file.write_text(str(web.port))
    print(web.base, flush=True)
    for name, value in web.env().items():
        print(f"export {name}={value}", file=sys.stderr)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        web.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
