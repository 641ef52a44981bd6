"""The shipped ACL is generated from the key registry (shared/protocol/acl.py, keys.py,
streams.py) and keeps the fairness rules of streams.STREAM_WRITERS, STREAM_CONSUMERS,
KEY_READERS and KEY_WRITERS, checked here without a server; the same rules
run against a real Valkey with ACL DRYRUN in tests/integration/test_acl_registry.py."""

from __future__ import annotations

import pytest

from shared.protocol import acl, keys, streams
from shared.protocol.streams import Keys
from shared.runtime import timers, valkey_acl

pytestmark = pytest.mark.unit

SERVICES = ["adjudicator", "escrow", "dealer", "scoring", "lobby", "bots", "notifier", "gateway"]
CONSUMER = set(acl.CONSUMER) | {"xdel"}


def test_the_shipped_templates_are_what_the_registry_renders() -> None:
    assert valkey_acl.stale() == [], "run `make acl` and commit the result"


def test_the_template_declares_every_user_of_the_registry_once() -> None:
    rules = valkey_acl.template_rules(acl.render())
    assert list(rules) == [u.name for u in acl.USERS]
    assert set(valkey_acl.password_users(acl.render())) == {
        u.name for u in acl.USERS if u.password}


def test_only_the_named_writer_may_add_to_a_trusted_stream() -> None:
    for base, writers in streams.STREAM_WRITERS.items():
        names = (f"{base}:0", f"{base}:7") if base in streams.SHARDED else (base,)
        for shard in names:
            can = {u for u in SERVICES
                   if (a := acl.access(u, shard)).write and "xadd" in a.commands}
            assert can == writers, (shard, can)


def test_only_the_named_consumer_may_consume_a_trusted_stream() -> None:
    for base, consumers in streams.STREAM_CONSUMERS.items():
        can = {u for u in SERVICES
               if (a := acl.access(u, f"{base}:0")).read and a.commands >= CONSUMER}
        assert can == consumers, (base, can)


def test_a_games_private_keys_have_only_their_named_readers_and_writers() -> None:
    k = Keys("g-1")
    for attr, readers in streams.KEY_READERS.items():
        key = getattr(k, attr)
        assert {u for u in SERVICES if acl.access(u, key).read} == readers, key
        assert {u for u in SERVICES if acl.access(u, key).write} == streams.KEY_WRITERS[attr]


def test_the_gateway_reads_the_log_only_through_its_public_copy() -> None:
    k = Keys("g-1")
    assert not acl.access("gateway", k.log).read
    assert not acl.access("gateway", k.state).read
    assert acl.access("gateway", k.publog).read and not acl.access("gateway", k.publog).write
    assert not acl.access("gateway", k.esc_open).read
    assert not acl.access("gateway", k.dealer).read


def test_only_the_lobby_writes_the_session_key_registry() -> None:
    """Signed commands: the keys that sign acts and commits are registered by the lobby only;
    the adjudicator and the escrow read them to verify; the gateway can do neither."""
    key = keys.lobby_session_keys("p-1")
    assert {u for u in SERVICES if acl.access(u, key).write} == {"lobby"}
    assert {u for u in SERVICES if acl.access(u, key).read} == {"lobby", "adjudicator",
                                                                  "escrow"}
    assert "hget" in acl.access("adjudicator", key).commands
    assert "hget" in acl.access("escrow", key).commands


def test_every_key_a_builder_makes_is_granted_to_a_service() -> None:
    k = Keys("g-1")
    made = [k.meta, k.state, k.log, k.publog, k.record, k.cmds, k.spectator, k.result,
            k.esc_round, k.esc_status, k.esc_open, k.dealer, k.chat("seats"),
            k.chat("spectators"), k.chat_ids, k.esc_commits("r1"), k.refusals(0), k.view(1),
            streams.table_chat("t-1"), streams.table_chat_ids("t-1"), streams.chat_mutes("p"),
            streams.chat_silenced("p"), streams.TIMERS_ADJ, streams.TIMERS_ESC,
            timers.key_for(streams.TIMERS_ADJ, "g-1", 4),
            timers.key_for(streams.TIMERS_ESC, "g-1", 4),
            keys.LOBBY_OPEN_TABLES, keys.LOBBY_IDLE_TABLES, keys.LOBBY_LIVE_GAMES,
            keys.LOBBY_AUDIT, keys.LOBBY_ERASED, keys.lobby_player("p"),
            keys.lobby_handle("h"), keys.lobby_session("s"), keys.lobby_sessions("p"),
            keys.lobby_revoked("s"), keys.lobby_credentials("p"), keys.lobby_passkey("c"),
            keys.lobby_challenge("c"), keys.lobby_failures("f"), keys.lobby_table("t"),
            keys.lobby_session_keys("p"),
            keys.lobby_invite("i"), *keys.lobby_quota("{p}"), keys.BOTS_ACTIVE,
            keys.bots_lease("g|1"), keys.leaderboard("empire"), keys.ratings("empire"),
            keys.player_history("p"), keys.game_history("empire"),
            keys.lease("adj-timer:x"), keys.lease("esc-timer:x"), keys.RATE_PREFIX + "ip:x",
            keys.archive("g-1")]
    made += [f"{s}:0" for s in streams.SHARDED]
    made += [streams.GAME_ENDED, streams.BOTS_IN, streams.LOBBY_RPC, streams.GW_UPDATES,
             streams.DEAD_LETTERS, streams.CHAT_REPORTS]
    orphans = [key for key in made if not any(acl.access(u, key).read
                                              or acl.access(u, key).write for u in SERVICES)]
    assert orphans == []


def test_the_turns_stream_is_written_by_the_adjudicator_and_escrow_read_by_the_lobby() -> None:
    from shared.protocol.turns import TURNS
    lobby = acl.access("lobby", TURNS)
    assert lobby.read and lobby.commands >= set(acl.CONSUMER) and "xadd" not in lobby.commands
    assert {u for u in SERVICES if "xadd" in (a := acl.access(u, TURNS)).commands
            and a.write} == {"adjudicator", "escrow"}
    escrow = acl.access("escrow", TURNS)  # SeatCommitted: appended, never read back
    assert escrow.write and not escrow.read
    assert not acl.access("gateway", TURNS).read  # clients' side never reads it whole
