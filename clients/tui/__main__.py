"""python -m clients.tui [--url http://127.0.0.1:8000] [--name ada]"""

from __future__ import annotations

import argparse

from clients.tui.app import EmpireApp


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m clients.tui",
        description="Empire Hall in a terminal (lobby, play, spectate)",
    )
    ap.add_argument("--url", default="http://127.0.0.1:8000", help="the gateway's base URL")
    ap.add_argument("--name", default=None, help="sign in with this name (else asked)")
    args = ap.parse_args(argv)
    EmpireApp(args.url, args.name).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
