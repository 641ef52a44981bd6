"""Signed commands at the services that check them, driven in process as the
gateway's Redis user would drive them: an act (adjudicator) or a commit (escrow) for a seat is
applied only when signed, over exactly that game, seat, command and body, by a session key the
lobby registered for the player the game seats there, never the ``player_id`` stamped in the
message. Anything else is refused ``auth/bad_signature`` and changes nothing; the record keeps
the signature. With EMPIRE_REQUIRE_SIGNATURES=0 an unsigned command passes, a bad signature
still does not."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from services.escrow.service import Escrow
from services.escrow.store import EscrowStore
from shared.fairness import signing
from shared.protocol import internal as im
from shared.protocol import keys
from shared.protocol.streams import Keys
from shared.runtime import session_keys
from shared.runtime.session_keys import Registered, SessionKey
from shared.runtime.settings import Settings
from tests.integration.test_command_ids import Sink, playing_duel
from tests.support.sealing import sealed_commit

pytestmark = pytest.mark.integration
SIGNED = Settings()  # the default: signatures required


async def _register(r: Any, player: str, key: SessionKey) -> None:
    now = int(time.time() * 1000)
    await session_keys.register(r, player, key.public, now + 60_000, now)


def _act(gid: str, seat: int, cmd: str, key: SessionKey | None, *, signed_seat: int | None = None,
         stake: int = 1, signed_stake: int | None = None) -> im.SubmitAction:
    action = {"type": "call", "stake": stake}
    sig = {} if key is None else key.sign_act(
        gid, seat if signed_seat is None else signed_seat, cmd,
        {"type": "call", "stake": stake if signed_stake is None else signed_stake}, None)
    return im.SubmitAction(cmd_id=cmd, game_id=gid, seat=seat, player_id=f"p{seat}",
                           action=action, **sig)


async def test_an_act_is_applied_only_when_its_seats_player_signed_it(r: Any) -> None:
    gid = "g-signed"
    adj, sink = await playing_duel(r, gid, SIGNED)
    mine, theirs, stranger = SessionKey(), SessionKey(), SessionKey()
    await _register(r, "p0", mine)
    await _register(r, "p1", theirs)
    seq0 = (await adj.store.load(gid)).seq  # type: ignore[union-attr]
    forged = [
        _act(gid, 0, "c-none", None),  # unsigned
        _act(gid, 0, "c-stranger", stranger),  # a key nobody registered
        _act(gid, 0, "c-theirs", theirs),  # the other seat's player's key
        _act(gid, 0, "c-seat", mine, signed_seat=1),  # signed for another seat
        _act(gid, 0, "c-body", mine, signed_stake=2),  # another action than signed
    ]
    # stamped with player p0 by the forger: the check reads the seat's player from the game
    stamped = _act(gid, 0, "c-stamp", theirs).model_copy(update={"player_id": "p1"})
    for msg in [*forged, stamped]:
        await adj.on_action(msg)
        assert sink.replies()[-1]["code"] == "auth/bad_signature", msg.cmd_id
        assert sink.replies()[-1]["cmd_id"] == msg.cmd_id
    assert (await adj.store.load(gid)).seq == seq0  # type: ignore[union-attr]
    assert await r.xlen(Keys(gid).log) == 1  # the setup draw only: nothing was applied
    honest = _act(gid, 0, "c-honest", mine)
    await adj.on_action(honest)
    assert (await adj.store.load(gid)).seq == seq0 + 1  # type: ignore[union-attr]
    last = json.loads((await r.xrevrange(Keys(gid).log, count=1))[0][1][b"d"])
    assert last["by"] == "seat" and last["cmd_id"] == "c-honest"
    assert (last["key"], last["sig"], last["expected_seq"]) == (honest.key, honest.sig, None)
    assert signing.verify(last["key"], last["sig"], signing.message(
        gid, 0, "c-honest", "act", signing.act_body(last["move"]["action"], None)))
    # an expired registration no longer signs
    now = int(time.time() * 1000)
    await r.hset(keys.lobby_session_keys("p1"), theirs.public, now - 1)
    await adj.on_action(_act(gid, 1, "c-late", theirs))
    assert sink.replies()[-1]["code"] == "auth/bad_signature"


async def test_unsigned_acts_pass_only_when_signatures_are_not_required(r: Any) -> None:
    gid = "g-optional"
    adj, sink = await playing_duel(r, gid, Settings(require_signatures=False))
    seq0 = (await adj.store.load(gid)).seq  # type: ignore[union-attr]
    await adj.on_action(_act(gid, 0, "c-bad", SessionKey()))  # present: still checked
    assert sink.replies()[-1]["code"] == "auth/bad_signature"
    await adj.on_action(_act(gid, 0, "c-none", None))
    assert (await adj.store.load(gid)).seq == seq0 + 1  # type: ignore[union-attr]


def _spec(gid: str) -> im.OpenRound:
    return im.OpenRound(game_id=gid, game="duel", round_id="pick:1", deadline_ms=10**13,
                        slots=[im.SlotSpec(seat=i, player_id=f"p{i}", key=f"s{i}",
                                           allowed=list(range(10)), default=0)
                               for i in range(2)])


def _signed(c: im.CommitChoice, key: SessionKey, seat: int | None = None) -> im.CommitChoice:
    assert c.sealed is not None
    return c.model_copy(update=key.sign_commit(
        c.game_id, c.seat if seat is None else seat, c.cmd_id, c.round_id, c.slot,
        c.commitment, c.sealed, c.public))


async def test_a_commit_is_taken_only_when_its_seats_player_signed_it(r: Any) -> None:
    gid = "g-esc-signed"
    sink = Sink()
    esc = Escrow(SIGNED, EscrowStore(r), sink, Registered(r))
    await esc.on_open(_spec(gid))
    mine, theirs = SessionKey(), SessionKey()
    await _register(r, "p0", mine)
    await _register(r, "p1", theirs)
    base = sealed_commit(gid, "pick:1", "s0", 0, 7, cmd_id="k-0")
    other = sealed_commit(gid, "pick:1", "s0", 0, 8, cmd_id="k-0")
    forged = [base,  # unsigned
              _signed(base, SessionKey()),  # an unregistered key
              _signed(base, theirs),  # the other seat's player's key
              _signed(base, mine, seat=1),  # signed for another seat
              _signed(base, mine).model_copy(update={"sealed": other.sealed}),  # other opening
              _signed(base, mine).model_copy(update={"commitment": other.commitment})]
    for msg in forged:
        await esc.on_commit(msg)
        last = [b for _, b in sink.sent if b.get("type") == "reply"][-1]
        assert (last["ok"], last["code"]) == (False, "auth/bad_signature")
    assert await r.hlen(Keys(gid).esc_open) == 0  # nothing taken
    honest = _signed(base, mine)
    await esc.on_commit(honest)
    last = [b for _, b in sink.sent if b.get("type") == "reply"][-1]
    assert last["ok"] and last["commitment"] == base.commitment
    rec = [json.loads(e[b"d"]) for _, e in await r.xrange(Keys(gid).record)]
    committed = next(e for e in rec if e["type"] == "committed")
    assert committed["cmd_id"] == "k-0" and committed["key"] == mine.public
    assert committed["sealed_sha256"] == signing.sealed_digest(honest.sealed or "")
    assert signing.verify(committed["key"], committed["sig"], signing.message(
        gid, 0, "k-0", "commit", signing.commit_body(
            "pick:1", "s0", committed["commitment"], committed["sealed_sha256"],
            committed["public"])))


async def test_a_round_opened_before_signed_commands_takes_commits_only_when_not_required(
        r: Any) -> None:
    """A round whose spec names no player (opened by the previous release) cannot check
    whose key signs: its commits pass only with EMPIRE_REQUIRE_SIGNATURES=0 (the rolling
    upgrade's window), signed or not."""
    old = _spec("g-old").model_copy(update={"slots": [
        s.model_copy(update={"player_id": ""}) for s in _spec("g-old").slots]})
    for settings, ok in ((SIGNED, False), (Settings(require_signatures=False), True)):
        await r.delete(*[k async for k in r.scan_iter("esc:{g-old}*")] or ["x"])
        await r.delete(Keys("g-old").record)
        sink = Sink()
        esc = Escrow(settings, EscrowStore(r), sink, Registered(r))
        await esc.on_open(old)
        key = SessionKey()
        await esc.on_commit(_signed(sealed_commit("g-old", "pick:1", "s0", 0, 7, cmd_id="k"),
                                    key))
        last = [b for _, b in sink.sent if b.get("type") == "reply"][-1]
        assert last["ok"] is ok, last


async def test_a_withdrawn_key_stops_verifying_within_the_recheck(r: Any) -> None:
    """The lobby withdraws a revoked session's key from the registry; the services' memory of
    a found key holds only ``recheck_ms``, so the key stops verifying by then (a fixed clock:
    nothing waits)."""
    key = SessionKey()
    now = 1_000_000
    await session_keys.register(r, "p-rev", key.public, now + 3_600_000, now)
    found = Registered(r, recheck_ms=5_000)
    assert await found("p-rev", key.public, now)
    await session_keys.unregister(r, "p-rev", key.public)
    assert await found("p-rev", key.public, now + 4_999)  # remembered, within the recheck
    assert not await found("p-rev", key.public, now + 5_000)  # read again: withdrawn
    assert ("p-rev", key.public) not in found.found
