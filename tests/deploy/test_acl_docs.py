"""docs/operations.md "Redis ACL users" says what users.acl.template grants: every service user
starts from ``-@all`` and gets an explicit command list (no category), so no dangerous or
keyspace-wide command runs; only admin (and the off default user, for AOF replay) have
``+@all``. The paragraph said ``+@all -@dangerous`` before, which the template never was."""

from __future__ import annotations

import pytest

from shared.runtime.valkey_acl import TEMPLATE
from tests.deploy.stack import ROOT

pytestmark = pytest.mark.deploy

FORBIDDEN = {"flushall", "flushdb", "config", "keys", "scan", "debug", "eval", "monitor", "acl",
             "shutdown", "module", "function", "save", "bgsave", "bgrewriteaof", "replicaof"}


def users() -> dict[str, list[str]]:
    out = {}
    for line in TEMPLATE.read_text().splitlines():
        if line.startswith("user "):
            words = line.split()
            out[words[1]] = words[2:]
    return out


def test_service_users_get_explicit_commands_only() -> None:
    rules = users()
    assert rules["admin"].count("+@all") == 1 and "off" in rules["default"]
    services = {u: r for u, r in rules.items() if u not in ("admin", "default")}
    assert {"adjudicator", "escrow", "dealer", "scoring", "lobby", "bots", "gateway"} <= set(
        services)
    for user, words in services.items():
        assert "-@all" in words, user
        categories = [w for w in words if w.lstrip("(").startswith("+@")]
        assert categories == [], (user, categories)
        granted = {w.lstrip("(").rstrip(")")[1:].split("|")[0].lower() for w in words
                   if w.lstrip("(").startswith("+")}
        assert not granted & FORBIDDEN, (user, granted & FORBIDDEN)


def test_the_operations_guide_says_so() -> None:
    text = (ROOT / "docs" / "operations.md").read_text()
    section = text[text.index("## Redis ACL users"):]
    section = section[: section.index("\n## ", 5)]
    assert "-@dangerous" not in section
    assert "starts from `-@all`" in section
