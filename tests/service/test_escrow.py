"""The escrow's behaviour through its ports (no server): the store and the publisher are the
in-memory fakes of tests/support/fakes (checked against the Redis store in
tests/integration/test_store_contracts.py); commits are sealed to the test escrow key as the
clients seal them (tests/support/sealing.py)."""

from __future__ import annotations

from typing import Any

import pytest

from services.escrow.service import Escrow
from shared.fairness.commitments import commitment
from shared.protocol import internal as im
from shared.protocol import streams
from shared.rules.api import Simultaneous
from shared.rules.empire_engine import GAME as EMPIRE_ENGINE
from shared.rules.empire_engine.scenario import position
from shared.runtime.session_keys import SessionKey
from shared.runtime.settings import Settings
from tests.support.fakes import FakeEscrowStore, FakeKeyRegistry, FakePublisher
from tests.support.sealing import ESCROW_KEY, sealed_commit

pytestmark = pytest.mark.service

GID, RID = "g-1", "pick:1"
REVEALS = streams.sharded(streams.ADJ_REVEALS, GID, 1)


# the mechanics below run unsigned; signed commits: the last test
UNSIGNED = Settings(require_signatures=False)
KEYS = [SessionKey(), SessionKey()]
REGISTRY = FakeKeyRegistry()
for _i, _k in enumerate(KEYS):
    REGISTRY.register(f"p{_i}", _k.public)


def escrow(settings: Settings = UNSIGNED) -> tuple[Escrow, FakeEscrowStore, FakePublisher]:
    store, out = FakeEscrowStore(), FakePublisher()
    store.keys["x25519"] = ESCROW_KEY  # the escrow's key, as its first replica made it
    return Escrow(settings, store, out, REGISTRY), store, out


def duel(deadline_ms: int = 10**13) -> im.OpenRound:
    return im.OpenRound(game_id=GID, game="duel", round_id=RID, deadline_ms=deadline_ms,
                        slots=[im.SlotSpec(seat=i, key=f"s{i}", allowed=list(range(10)),
                                           default=5) for i in range(2)])


def commit(seat: int, choice: Any, slot: str = "", rid: str = RID,
           public: dict[str, Any] | None = None) -> im.CommitChoice:
    c = sealed_commit(GID, rid, slot or f"s{seat}", seat, choice, cmd_id=f"k{seat}-{slot}")
    return c.model_copy(update={"public": public}) if public is not None else c


def replies(out: FakePublisher) -> list[tuple[bool, str | None, str | None]]:
    return [(b["ok"], b.get("code"), b.get("slot")) for b in out.bodies("reply")]


def record(store: FakeEscrowStore) -> list[str]:
    return [e["type"] for e in store.records.get(GID, [])]


def reveals(out: FakePublisher) -> list[dict[str, Any]]:
    return [b for s, b in out.sent if s == REVEALS]


async def test_a_commit_is_kept_recorded_and_acknowledged() -> None:
    esc, store, out = escrow()
    await esc.on_open(duel())
    c = commit(0, 7)
    await esc.on_commit(c)
    assert replies(out) == [(True, None, "s0")]
    (receipt,) = out.bodies("reply")
    assert (receipt["cmd_id"], receipt["commitment"]) == (c.cmd_id, c.commitment)
    assert await store.commitment(GID, RID, "s0") == c.commitment
    assert record(store) == ["round_opened", "committed"]
    committed = store.records[GID][1]
    assert committed["commitment"] == c.commitment and "choice" not in committed
    assert reveals(out) == []  # s1 has not committed


async def test_a_second_commit_of_the_same_slot_is_refused_and_the_first_stands() -> None:
    esc, store, out = escrow()
    await esc.on_open(duel())
    first = commit(0, 7)
    await esc.on_commit(first)
    await esc.on_commit(commit(0, 8))
    assert replies(out) == [(True, None, "s0"), (False, "escrow/already_committed", "s0")]
    assert await store.commitment(GID, RID, "s0") == first.commitment
    assert record(store) == ["round_opened", "committed"]


async def test_the_round_closes_when_every_slot_committed_and_the_reveal_is_published() -> None:
    esc, store, out = escrow()
    await esc.on_open(duel())
    assert f"{GID}|{RID}" in store.timers.due  # the round's deadline armed at open
    await esc.on_commit(commit(0, 7))
    await esc.on_commit(commit(1, 3))
    (reveal,) = reveals(out)
    assert (reveal["type"], reveal["choices"], reveal["defaulted"]) == (
        "round_revealed", {"s0": 7, "s1": 3}, [])
    assert replies(out) == [(True, None, "s0"), (True, None, "s1")]
    assert store.status[(GID, RID)] == "closed"
    assert record(store) == ["round_opened", "committed", "committed", "round_closed",
                             "round_revealed"]
    rows = store.records[GID][-1]["openings"]  # the openings made public: each verifies
    assert all(commitment(GID, RID, r["slot"], r["seat"], r["choice"], r["nonce"])
               == r["commitment"] for r in rows)
    assert f"{GID}|{RID}" not in store.timers.due  # the deadline dropped with the close
    await esc.on_commit(commit(1, 4))  # after the close: refused, the reveal sent again
    assert replies(out)[-1] == (False, "escrow/closed", "s1")
    assert [r["choices"] for r in reveals(out)] == [{"s0": 7, "s1": 3}] * 2


async def test_the_deadline_defaults_a_slot_nobody_committed() -> None:
    esc, store, out = escrow()
    await esc.on_open(duel(deadline_ms=1_000))
    await esc.on_commit(commit(0, 9))
    assert await store.timers.poll_once(esc.on_timer, 999) == 0  # not due yet
    assert reveals(out) == []
    assert await store.timers.poll_once(esc.on_timer, 1_000) == 1
    (reveal,) = reveals(out)
    assert (reveal["choices"], reveal["defaulted"]) == ({"s0": 9, "s1": 5}, ["s1"])
    defaulted = store.records[GID][-1]["openings"][1]
    assert defaulted["defaulted"] and defaulted["default_salt"] is not None
    assert store.timers.due == {}  # fired once, then gone
    await esc.on_commit(commit(1, 2))  # too late
    assert replies(out)[-1] == (False, "escrow/closed", "s1")


def empire_engine_round() -> im.OpenRound:
    """The Empire Engine's first plan round for two seats, as the adjudicator opens it: a
    fixed order (EE-1), each slot's engine public, its action hidden."""
    node = EMPIRE_ENGINE.next(position(2, start_player=0))
    assert isinstance(node, Simultaneous) and node.ordered
    return im.OpenRound(
        game_id=GID, game="empire-engine", round_id=node.round_id, ordered=True,
        deadline_ms=10**13, slots=[im.SlotSpec(seat=s.seat, key=s.key, default=s.default,
                                               allowed=list(s.allowed or ()),
                                               public_keys=list(s.public_keys))
                                   for s in node.slots])


async def test_an_ordered_round_shows_later_seats_the_earlier_seats_public_part() -> None:
    esc, store, out = escrow()
    spec = empire_engine_round()
    assert [s.key for s in spec.slots] == ["s0:1", "s1:1", "s1:2", "s0:2"]
    rid = spec.round_id
    await esc.on_open(spec)
    first = {"engine": "R", "top": "export"}
    await esc.on_commit(commit(1, {"engine": "L", "top": "arm"}, "s1:1", rid,
                               public={"engine": "L"}))  # seat 0 has not committed yet
    await esc.on_commit(commit(0, first, "s0:1", rid, public={"engine": "L"}))  # a lie
    await esc.on_commit(commit(0, first, "s0:1", rid, public={"engine": "R"}))
    assert replies(out) == [(False, "escrow/out_of_order", "s1:1"),
                            (False, "escrow/public_mismatch", "s0:1"), (True, None, "s0:1")]
    committed = store.records[GID][-1]
    assert committed["type"] == "committed" and committed["public"] == {"engine": "R"}
    assert "top" not in str(committed)  # the action stays sealed until the reveal
    for key, seat, choice in (("s1:1", 1, {"engine": "L", "top": "arm"}),
                              ("s1:2", 1, {"engine": "R", "top": "defend"}),
                              ("s0:2", 0, {"engine": "L", "top": "produce"})):
        await esc.on_commit(commit(seat, choice, key, rid, public={"engine": choice["engine"]}))
    (reveal,) = reveals(out)
    assert reveal["choices"]["s0:1"] == first and reveal["defaulted"] == []
    assert [e.get("public") for e in store.records[GID] if e["type"] == "committed"] == [
        {"engine": "R"}, {"engine": "L"}, {"engine": "R"}, {"engine": "L"}]


async def test_a_commit_whose_seal_does_not_open_for_its_slot_is_refused() -> None:
    esc, store, out = escrow()
    await esc.on_open(duel())
    good = commit(0, 7)
    other_round = commit(0, 7, rid="pick:2")  # sealed for another round
    await esc.on_commit(good.model_copy(update={"sealed": other_round.sealed}))
    assert replies(out) == [(False, "escrow/bad_seal", "s0")]
    assert await store.commitment(GID, RID, "s0") is None
    assert record(store) == ["round_opened"]
    await esc.on_commit(good)  # the slot is still free for the seat's real commit
    assert replies(out)[-1] == (True, None, "s0")


def signed(c: im.CommitChoice, key: SessionKey) -> im.CommitChoice:
    assert c.sealed is not None
    return c.model_copy(update=key.sign_commit(c.game_id, c.seat, c.cmd_id, c.round_id, c.slot,
                                               c.commitment, c.sealed, c.public))


async def test_a_commit_not_signed_by_the_seat_s_player_is_refused_bad_signature() -> None:
    """Signed commits: whoever writes the commit stream cannot commit for a seat without its
    player's registered key (the player the round's spec seats there, never the one the
    message names): unsigned, by another seat's player, or for a changed commitment — each
    refused auth/bad_signature, nothing kept; the seat's own signed commit then stands."""
    esc, store, out = escrow(Settings())
    spec = duel()
    spec = spec.model_copy(update={"slots": [sl.model_copy(update={"player_id": f"p{sl.seat}"})
                                             for sl in spec.slots]})
    await esc.on_open(spec)
    honest = commit(0, 7)
    await esc.on_commit(honest)  # unsigned
    await esc.on_commit(signed(honest, KEYS[1]))  # the other seat's player's key
    other = commit(0, 8)
    forged = signed(honest, KEYS[0]).model_copy(update={"commitment": other.commitment,
                                                        "sealed": other.sealed})
    await esc.on_commit(forged)  # a signature over another commitment
    assert replies(out) == [(False, "auth/bad_signature", "s0")] * 3, replies(out)
    assert await store.commitment(GID, RID, "s0") is None
    await esc.on_commit(signed(honest, KEYS[0]))
    assert replies(out)[-1] == (True, None, "s0")
    assert await store.commitment(GID, RID, "s0") == honest.commitment
