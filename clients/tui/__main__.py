"""python -m clients.tui [--url http://127.0.0.1:8000] [--name ada] [--account]

``--account`` signs in to the account ``--name`` with the password in EMPIRE_PASSWORD (or
asked for); without it the name plays as a guest."""

from __future__ import annotations

import argparse
import getpass
import os

from clients.tui.app import EmpireApp


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m clients.tui",
        description="Empire Hall in a terminal (lobby, play, spectate)",
    )
    ap.add_argument("--url", default="http://127.0.0.1:8000", help="the gateway's base URL")
    ap.add_argument("--name", default=None, help="sign in with this name (else asked)")
    ap.add_argument("--account", action="store_true",
                    help="sign in to the account --name (password: EMPIRE_PASSWORD or asked)")
    args = ap.parse_args(argv)
    password = None
    if args.account and args.name:
        password = os.environ.get("EMPIRE_PASSWORD") or getpass.getpass("password: ")
    EmpireApp(args.url, args.name, password).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
