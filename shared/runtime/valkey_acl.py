"""The shipped Valkey configuration as data: where its files are and which ACL users the
template declares (deploy/valkey/users.acl.template, rendered by deploy/valkey/entrypoint.sh)."""

from __future__ import annotations

import secrets
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "valkey"
CONF = DEPLOY / "valkey.conf"
TEMPLATE = DEPLOY / "users.acl.template"
ENTRYPOINT = DEPLOY / "entrypoint.sh"
PLACEHOLDER = "@PASSWORD@"


def template_rules(text: str | None = None) -> dict[str, list[str]]:
    """user -> its ACL rules from the template, without the on/off flag and the password."""
    out = {}
    for line in (TEMPLATE.read_text() if text is None else text).splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "user":
            out[parts[1]] = [r for r in parts[2:] if r not in ("on", "off", PLACEHOLDER)]
    return out


def password_users(text: str | None = None) -> list[str]:
    """The users the template gives a password (everyone but the disabled default user)."""
    t = TEMPLATE.read_text() if text is None else text
    return [line.split()[1] for line in t.splitlines()
            if line.startswith("user ") and PLACEHOLDER in line.split()]


def random_passwords() -> dict[str, str]:
    """A fresh random password (64 hex characters) for every user of the template."""
    return {u: secrets.token_hex(32) for u in password_users()}


K8S_TEMPLATE = DEPLOY.parent / "k8s" / "valkey" / "files" / "users.acl.template"
HEADER_NOTE = "generated from shared/protocol/acl.py: make acl"


def generated() -> str:
    """The template as shared/protocol/acl.py renders it (the key registry's grants)."""
    from shared.protocol import acl

    return acl.render()


def stale() -> list[Path]:
    """The shipped template files that differ from what the registry renders."""
    text = generated()
    return [p for p in (TEMPLATE, K8S_TEMPLATE) if not p.exists() or p.read_text() != text]


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Render the Valkey ACL template from the key "
                                             "registry (shared/protocol/acl.py).")
    ap.add_argument("--write", action="store_true", help="write the shipped template files")
    ap.add_argument("--check", action="store_true", help="exit 1 if a shipped file is stale")
    args = ap.parse_args(argv)
    if args.write:
        for p in (TEMPLATE, K8S_TEMPLATE):
            p.write_text(generated())
            print(f"wrote {p}")
        return 0
    if args.check:
        bad = stale()
        for p in bad:
            print(f"stale: {p} ({HEADER_NOTE})")
        return 1 if bad else 0
    print(generated(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
