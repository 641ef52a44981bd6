"""The shipped ACL against the key registry (shared/protocol/streams.py: STREAM_WRITERS,
STREAM_CONSUMERS, KEY_READERS, KEY_WRITERS), on a Valkey started the way production starts it
(EmbeddedValkey(shipped=True): deploy/valkey/users.acl.template rendered by entrypoint.sh).

- Only the escrow writes reveals and only the dealer draws: the adjudicator's XADD to
  adj:reveals / adj:draws is refused (NOPERM) while it consumes both with its group (an ACL
  selector with the consumer's commands and no XADD).
- The gateway cannot read a game's private log; it reads the public copy the adjudicator makes
  in the step that ends the game (services/adjudicator/store.py).
- Games that ended before the copy existed get it from the upgrade step
  (services/adjudicator/migrate.py).
Every service user is checked for every rule ("nothing more"): ``ACL DRYRUN`` for the matrix,
real commands for the rules themselves."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis
from redis.exceptions import NoPermissionError, ResponseError

from services.adjudicator import core
from services.adjudicator.migrate import MARKER, publish_ended_logs
from services.adjudicator.store import Store
from shared.protocol import internal as im
from shared.protocol import keys, streams
from shared.protocol.streams import Keys
from shared.runtime.valkey import EmbeddedValkey
from shared.runtime.valkey_acl import password_users

pytestmark = pytest.mark.integration

# every user a service or a probe signs in as (admin is the operator's: everything)
USERS = [u for u in password_users() if u != "admin"]
# what a consumer group's member runs on its stream (shared/runtime/bus.py, service.py,
# liveness.py, metrics.py, redis.py; faststream's XREADGROUP and, for reclaim, XAUTOCLAIM)
CONSUMER_COMMANDS: list[tuple[str, ...]] = [
    ("XGROUP", "CREATE", "{s}", "g", "0", "MKSTREAM"),
    ("XREADGROUP", "GROUP", "g", "c", "COUNT", "10", "STREAMS", "{s}", ">"),
    ("XACK", "{s}", "g", "0-1"),
    ("XDEL", "{s}", "0-1"),
    ("XAUTOCLAIM", "{s}", "g", "c", "5000", "0-0", "COUNT", "10"),
    ("XPENDING", "{s}", "g", "-", "+", "10"),
    ("XINFO", "GROUPS", "{s}"),
    ("XINFO", "CONSUMERS", "{s}", "g"),
    ("XGROUP", "DELCONSUMER", "{s}", "g", "c"),
]
READ: dict[str, tuple[str, ...]] = {  # one read per key kind of KEY_READERS
    "state": ("HGET", "{k}", "doc"), "log": ("XRANGE", "{k}", "-", "+"),
    "publog": ("XRANGE", "{k}", "-", "+"), "esc_open": ("HGET", "{k}", "x"),
    "esc_keys": ("HGET", "{k}", "x25519"), "dealer": ("HGET", "{k}", "seed")}
WRITE: dict[str, tuple[str, ...]] = {
    "state": ("HSET", "{k}", "doc", "{{}}"), "log": ("XADD", "{k}", "*", "d", "{{}}"),
    "publog": ("XADD", "{k}", "*", "d", "{{}}"), "esc_open": ("HSET", "{k}", "x", "1"),
    "esc_keys": ("HSET", "{k}", "x25519", "00"), "dealer": ("HSET", "{k}", "seed", "00")}


@pytest.fixture(scope="module")
def server() -> Iterator[EmbeddedValkey]:
    s = EmbeddedValkey(shipped=True)
    s.start()
    try:
        yield s
    finally:
        s.stop()


def dry(admin: Any, user: str, cmd: tuple[str, ...], **fill: str) -> bool:
    """Whether the shipped ACL lets ``user`` run ``cmd`` (ACL DRYRUN: nothing runs)."""
    reply = admin.execute_command("ACL", "DRYRUN", user, *(x.format(**fill) for x in cmd))
    return bool(reply in (b"OK", "OK"))


def test_the_acl_grants_the_registry_and_nothing_more(server: EmbeddedValkey) -> None:
    wrong: list[str] = []
    with redis.Redis.from_url(server.url) as admin:
        for user in USERS:
            for base, writers in streams.STREAM_WRITERS.items():
                names = (f"{base}:0", f"{base}:7") if base in streams.SHARDED else (base,)
                for shard in names:
                    can = dry(admin, user, ("XADD", "{s}", "*", "d", "x"), s=shard)
                    if can != (user in writers):
                        wrong.append(f"{user} XADD {shard}: {can}")
            for base, consumers in streams.STREAM_CONSUMERS.items():
                for cmd in CONSUMER_COMMANDS:
                    can = dry(admin, user, cmd, s=f"{base}:0")
                    if can != (user in consumers):
                        wrong.append(f"{user} {' '.join(cmd[:2])} {base}: {can}")
            k = Keys("g-1")
            for attr, readers in streams.KEY_READERS.items():
                key = getattr(k, attr)
                if dry(admin, user, READ[attr], k=key) != (user in readers):
                    wrong.append(f"{user} reads {key}: {user not in readers}")
                writers = streams.KEY_WRITERS[attr]
                if dry(admin, user, WRITE[attr], k=key) != (user in writers):
                    wrong.append(f"{user} writes {key}: {user not in writers}")
    assert wrong == [], "\n".join(wrong)


def test_only_the_lobby_writes_the_session_key_registry(server: EmbeddedValkey) -> None:
    """Signed commands on the real server: the registry of keys that sign acts and commits is
    written by the lobby only and read by the adjudicator and the escrow; the gateway's user
    can neither (a stolen gateway password registers no key)."""
    registry = keys.lobby_session_keys("p-1")
    readers, writers = {"lobby", "adjudicator", "escrow"}, {"lobby"}
    wrong = []
    with redis.Redis.from_url(server.url) as admin:
        for user in USERS:
            if dry(admin, user, ("HGET", "{k}", "ab"), k=registry) != (user in readers):
                wrong.append(f"{user} reads {registry}")
            for cmd in (("HSET", "{k}", "ab", "1"), ("HDEL", "{k}", "ab"), ("DEL", "{k}")):
                if dry(admin, user, cmd, k=registry) != (user in writers):
                    wrong.append(f"{user} {cmd[0]} {registry}")
    assert wrong == [], wrong
    with redis.Redis.from_url(server.url_for("gateway")) as gw, \
            pytest.raises(NoPermissionError):
        gw.hset(registry, "ab" * 32, "9" * 15)


def test_the_registry_names_users_the_template_has() -> None:
    users = set(USERS)
    for table in (streams.STREAM_WRITERS, streams.STREAM_CONSUMERS, streams.KEY_READERS,
                  streams.KEY_WRITERS):
        for who in table.values():
            assert who <= users, who - users
    assert set(streams.KEY_WRITERS) == set(streams.KEY_READERS) == set(READ) == set(WRITE)
    assert all(hasattr(Keys("g"), attr) for attr in streams.KEY_READERS)


def test_the_adjudicator_consumes_reveals_and_draws_but_cannot_write_them(
        server: EmbeddedValkey) -> None:
    for base, writer in ((streams.ADJ_REVEALS, "escrow"), (streams.ADJ_DRAWS, "dealer")):
        stream = f"{base}:0"
        with redis.Redis.from_url(server.url_for("adjudicator")) as adj, \
                redis.Redis.from_url(server.url_for(writer)) as w:
            adj.xgroup_create(stream, streams.GROUP_ADJUDICATOR, id="0", mkstream=True)
            with pytest.raises(NoPermissionError, match="No permissions"):
                adj.xadd(stream, {"d": "{}"})
            sha = adj.script_load("return redis.call('XADD', KEYS[1], '*', 'd', '{}')")
            with pytest.raises(ResponseError, match=r"(?i)noperm|acl|permission"):
                adj.evalsha(sha, 1, stream)  # not through a script either
            first = w.xadd(stream, {"d": "1"})
            second = w.xadd(stream, {"d": "2"})
            got = adj.xreadgroup(streams.GROUP_ADJUDICATOR, "a-1", {stream: ">"}, count=10)
            assert [e[0] for e in got[0][1]] == [first, second]
            assert adj.xpending(stream, streams.GROUP_ADJUDICATOR)["pending"] == 2
            claimed = adj.xautoclaim(stream, streams.GROUP_ADJUDICATOR, "a-2", 0, "0-0")
            assert [e[0] for e in claimed[1]] == [first, second]
            assert adj.xack(stream, streams.GROUP_ADJUDICATOR, first, second) == 2
            assert adj.xdel(stream, first, second) == 2
            assert adj.xinfo_groups(stream)[0]["pending"] == 0
            assert len(adj.xinfo_consumers(stream, streams.GROUP_ADJUDICATOR)) == 2
            assert adj.xgroup_delconsumer(stream, streams.GROUP_ADJUDICATOR, "a-1") == 0
            with pytest.raises(NoPermissionError):  # a writer reads nothing back
                w.xrange(stream)


def _new_doc(game_id: str) -> core.GameDoc:
    players = [im.PlayerRef(player_id="p0", name="a"), im.PlayerRef(player_id="p1", name="b")]
    eff = core.create(im.CreateGame(game_id=game_id, game="duel", players=players))
    assert eff.doc is not None
    return eff.doc


async def test_the_log_is_the_gateways_only_through_its_copy_at_the_end(
        server: EmbeddedValkey) -> None:
    k = Keys("g-pub")
    adj = aioredis.Redis.from_url(server.url_for("adjudicator"))
    try:
        store = Store(adj)
        doc = _new_doc("g-pub")
        views = core.render_views(doc, [])
        assert (await store.commit(-1, doc, [{"seq": 0, "move": "a"}], [], views)).ok
        one = doc.model_copy(update={"seq": 1})
        assert (await store.commit(0, one, [{"seq": 1, "move": "b"}], [], views)).ok
        with redis.Redis.from_url(server.url_for("gateway")) as gw:
            with pytest.raises(NoPermissionError, match="No permissions"):
                gw.xrange(k.log)
            assert gw.xrange(k.publog) == []  # playing: no public copy yet
            ended = one.model_copy(update={"seq": 2, "stage": "ended"})
            assert (await store.commit(1, ended, [{"seq": 2, "move": "c"}], [], views)).ok
            public = [f[b"d"] for _, f in gw.xrange(k.publog)]
            assert public == [b'{"seq":0,"move":"a"}', b'{"seq":1,"move":"b"}',
                              b'{"seq":2,"move":"c"}']
            with pytest.raises(NoPermissionError):  # read only
                gw.xadd(k.publog, {"d": "{}"})
            with pytest.raises(NoPermissionError):
                gw.xrange(k.log)
            # a later commit of the ended game (the dealer's reveal) keeps the copy whole
            later = ended.model_copy(update={"seq": 3})
            assert (await store.commit(2, later, [], [{"type": "seed_revealed"}], views)).ok
            assert len(gw.xrange(k.publog)) == 3
        await store.expire_live("g-pub", 2, 60_000)  # archived: the copy expires with the rest
        with redis.Redis.from_url(server.url) as admin:
            assert 0 < admin.pttl(k.publog) <= 60_000
    finally:
        await adj.aclose()


def test_games_ended_before_the_copy_existed_get_it_from_the_upgrade_step(
        server: EmbeddedValkey) -> None:
    ended, running = _new_doc("g-old"), _new_doc("g-run")
    ended = ended.model_copy(update={"stage": "ended"})
    with redis.Redis.from_url(server.url) as admin:
        admin.delete(MARKER)
        for doc in (ended, running):
            k = Keys(doc.game_id)
            admin.hset(k.state, mapping={"seq": "0", "doc": doc.model_dump_json()})
            admin.xadd(k.log, {"d": '{"seq":0}'})
        assert publish_ended_logs(admin) == 1
        assert admin.xrange(Keys("g-old").publog)[0][1] == {b"d": b'{"seq":0}'}
        assert not admin.exists(Keys("g-run").publog)  # its copy comes with its end
        assert admin.get(MARKER) == b"1"
        admin.delete(Keys("g-old").publog)
        assert publish_ended_logs(admin) == 0  # done once: the marker skips the scan
        assert publish_ended_logs(admin, force=True) == 1
        assert publish_ended_logs(admin, force=True) == 0  # a copy that exists is kept
