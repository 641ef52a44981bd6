"""Least privilege: every service connects to Redis as its own ACL user
(deploy/valkey/users.acl.template, rendered by deploy/valkey/entrypoint.sh; the supervisor's
private Valkey starts the same way with random passwords) that can touch only its own keys and
streams.

- Games play under exactly these rules with no ACL denial (the command list is the minimal
  working set, not ``+@all``).
- The adjudicator's user cannot read the escrow's sealed openings (``esc:*``) or the dealer's
  seed (``dealer:*``), by any command, script or scan; no user but the owner can.
- Only the escrow can write reveals, only the dealer draws (the adjudicator consumes them
  through an ACL selector without XADD); the gateway cannot read a game's authoritative state
  nor its private move log, only the log's public copy made when the game ended.
- The rendered deploy file loads into Valkey (``aclfile``) with the same effect; nobody can
  sign in as its default user (off), which keeps every permission only for AOF replay
  (valkey-io/valkey#3983, tests/reliability/test_valkey_restart.py).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.exceptions import AuthenticationError, ConnectionError, ResponseError

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from services.supervisor import SERVICES, Proc, Supervisor
from shared.protocol.streams import Keys
from shared.runtime.valkey import EmbeddedValkey
from shared.runtime.valkey_acl import template_rules
from tests.reliability.conftest import report, retry

pytestmark = pytest.mark.reliability

READS: list[tuple[str, ...]] = [
    ("HGETALL", "{key}"),
    ("HGET", "{key}", "seed"),
    ("HKEYS", "{key}"),
    ("HVALS", "{key}"),
    ("HSCAN", "{key}", "0"),
    ("HRANDFIELD", "{key}"),
    ("HLEN", "{key}"),
    ("DUMP", "{key}"),
    ("GET", "{key}"),
    ("TYPE", "{key}"),
    ("EXISTS", "{key}"),
    ("XRANGE", "{key}", "-", "+"),
    ("SCAN", "0", "MATCH", "{prefix}*"),
    ("KEYS", "{prefix}*"),
    ("OBJECT", "ENCODING", "{key}"),
    ("COPY", "{key}", "g:{{x}}:state"),
    ("RENAME", "{key}", "g:{{x}}:state"),
    ("EVAL", "return redis.call('HGETALL', KEYS[1])", "1", "{key}"),
    ("EVAL", "return redis.call('HGETALL', ARGV[1])", "0", "{key}"),
    ("MONITOR",),
    ("ACL", "SETUSER", "{user}", "~*"),
    ("CONFIG", "SET", "aclfile", "/tmp/x"),
    ("FLUSHALL",),
    ("SORT", "{key}"),
    ("MEMORY", "USAGE", "{key}"),
]


def _denied(r: Any, cmd: tuple[str, ...]) -> bool:
    try:
        r.execute_command(*cmd)
    except ResponseError as exc:  # NOPERM, or "ACL failure in script"
        text = str(exc).lower()
        return "permission" in text or "acl" in text or "noperm" in text
    return False


def _script_denied(r: Any, key: str) -> bool:
    """EVALSHA (which every script-running service needs) on the key, declared or not."""
    sha = r.script_load("return redis.call('HGETALL', KEYS[1] or ARGV[1])")
    return all(_denied(r, c) for c in (("EVALSHA", sha, "1", key), ("EVALSHA", sha, "0", key)))


def _probe(url: str, user: str, key: str, prefix: str) -> list[str]:
    """The read commands that were NOT refused (empty = the key is out of reach)."""
    allowed = []
    with redis.Redis.from_url(url) as r:
        for cmd in READS:
            filled = tuple(x.format(key=key, prefix=prefix, user=user) for x in cmd)
            if not _denied(r, filled):
                allowed.append(" ".join(filled[:2]))
        if "+script|load" in " ".join(template_rules()[user]) and not _script_denied(
            r, key
        ):
            allowed.append("EVALSHA")
    return allowed


def _can_xadd(url: str, stream: str) -> bool:
    with redis.Redis.from_url(url) as r:
        try:
            r.xadd(stream, {"d": "{}"}, maxlen=10)
            return True
        except ResponseError:
            return False


async def _played_game(url: str) -> str:
    async with Client(url) as c:
        await retry(c.sign_in, "acl-host")
        t = await retry(c.create_table, "duel", 2, {"rounds": 1})
        await retry(c.add_bot, t["table_id"])
        gid = str(await retry(c.start, t["table_id"]))
        await play_seat(c, gid)
    return gid


async def test_each_service_is_its_own_user_and_cannot_read_secrets(hall: Supervisor) -> None:
    assert hall.valkey is not None and set(hall.service_urls) == set(SERVICES)
    for svc in SERVICES:  # each process got its own user in EMPIRE_REDIS_URL
        env = hall.env(Proc(svc, 0))
        assert env["EMPIRE_REDIS_URL"].startswith(f"redis://{svc}:"), svc
    gid = await _played_game(hall.url)
    k = Keys(gid)
    with redis.Redis.from_url(hall.redis_url or "", decode_responses=True) as admin:
        # the secrets exist (the escrow's openings, the dealer's seed) ...
        assert admin.hlen(k.esc_open) >= 2 and admin.hget(k.dealer, "seed")
        # ... and nothing the services did while playing was refused by an ACL
        denials = [e for e in admin.acl_log() if e.get("username") in SERVICES]
        assert denials == [], denials[:3]
        # nobody signs in as the default user: an anonymous client can run nothing
        with (
            pytest.raises((AuthenticationError, ResponseError, ConnectionError)),
            redis.Redis(port=hall.valkey.port) as anon,
        ):
            anon.get(k.state)
    matrix: dict[str, dict[str, list[str]]] = {}
    for svc in SERVICES:
        url = hall.service_urls[svc]
        row = {}
        if svc != "escrow":
            row["esc_open"] = _probe(url, svc, k.esc_open, "esc:")
        if svc != "dealer":
            row["dealer_seed"] = _probe(url, svc, k.dealer, "dealer:")
        matrix[svc] = row
        assert all(v == [] for v in row.values()), (svc, row)
    # writers: only the escrow writes reveals, only the dealer draws (the adjudicator reads
    # them through its consumer group: a selector with the consumer's commands, no XADD)
    for svc in SERVICES:
        url = hall.service_urls[svc]
        assert _can_xadd(url, "adj:reveals:0") == (svc == "escrow"), svc
        assert _can_xadd(url, "adj:draws:0") == (svc == "dealer"), svc
        assert _can_xadd(url, "esc:open:0") == (svc in ("adjudicator", "escrow")), svc
    with redis.Redis.from_url(hall.service_urls["gateway"]) as gw:
        assert _denied(gw, ("HGET", k.state, "doc")), "the gateway read the game's state"
        assert _denied(gw, ("XADD", "adj:control:0", "*", "d", "{}"))  # cannot create games
        assert _denied(gw, ("XRANGE", k.log, "-", "+")), "the gateway read the private log"
        with redis.Redis.from_url(hall.redis_url or "") as admin:
            log = admin.xrange(k.log)
        assert log and gw.xrange(k.publog) == log  # the public copy, made at the end
    with redis.Redis.from_url(hall.redis_url or "", decode_responses=True) as admin:
        probes = [e for e in admin.acl_log(count=1000) if e.get("username") == "gateway"]
        assert probes, "the denials above are in the ACL log (it keeps the latest 128)"
        admin.acl_log_reset()
    report(
        "least-privilege",
        {
            "users": list(SERVICES),
            "probed_commands": len(READS) + 2,
            "denied_reads_of_secrets": "all",
            "matrix": matrix,
        },
    )


@pytest.mark.full
def test_the_deploy_acl_file_loads_and_locks_the_same_way() -> None:
    """The shipped files as production starts them (entrypoint.sh renders the template)."""
    tmp = Path(tempfile.mkdtemp(prefix="empire-acl-"))
    server = EmbeddedValkey(data_dir=str(tmp), shipped=True)
    try:
        server.start()
        with redis.Redis(port=server.port) as anon:  # default user off: not even PING
            for cmd in (("PING",), ("GET", "esc:{g-1}:open"), ("HGETALL", "dealer:{g-1}:seed")):
                with pytest.raises((AuthenticationError, ResponseError, ConnectionError)):
                    anon.execute_command(*cmd)
        with pytest.raises((AuthenticationError, ResponseError)), redis.Redis(
                port=server.port, username="default", password="") as dflt:
            dflt.ping()
        urls = {svc: server.url_for(svc) for svc in SERVICES}
        with redis.Redis.from_url(server.url_for("health")) as health:  # probes: PING, INFO
            assert health.ping()
            assert _denied(health, ("GET", "esc:{g-1}:open"))
        with redis.Redis.from_url(urls["escrow"]) as esc:
            esc.hset("esc:{g-1}:open", "pick:1/s0", '{"choice":1}')
        with redis.Redis.from_url(urls["dealer"]) as dealer:
            dealer.hset("dealer:{g-1}:seed", "seed", "00" * 32)
        for svc in SERVICES:
            if svc != "escrow":
                assert _probe(urls[svc], svc, "esc:{g-1}:open", "esc:") == [], svc
            if svc != "dealer":
                assert _probe(urls[svc], svc, "dealer:{g-1}:seed", "dealer:") == [], svc
        rendered = server.acl_path.read_text()
        assert "@PASSWORD@" not in rendered
        assert not any(pw in rendered for pw in server.passwords.values())  # hashes only
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def test_with_redis_url_every_service_uses_the_given_url_as_is() -> None:
    sup = Supervisor(redis_url="redis://example:6379/3")
    assert {sup.env(Proc(s, 0))["EMPIRE_REDIS_URL"] for s in SERVICES} == {"redis://example:6379/3"}
