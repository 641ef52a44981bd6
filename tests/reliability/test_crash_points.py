"""Deterministic crash points: a service dies right after its atomic Redis step and before it
published what follows (or acknowledged its input); the input is then redelivered to a fresh
replica (the consumer group's reclaim). The game must carry on and the sender must get the
answer its message deserves. The random SIGKILLs of test_crashes hit these windows only by
chance; here each one is hit on purpose, against a real Valkey.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.adjudicator.service import Adjudicator
from services.adjudicator.store import Store
from services.escrow.service import Escrow
from services.escrow.store import EscrowStore
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.runtime.archive import ValkeyArchive
from shared.runtime.session_keys import Registered
from shared.runtime.settings import Settings
from shared.runtime.valkey import EmbeddedValkey
from tests.support.sealing import opening_of, sealed_commit, seed_escrow_key

pytestmark = pytest.mark.reliability


class Crash(Exception):
    """The process died here."""


class Sink:
    """A broker that records what is published; ``die_after`` publishes, it 'crashes'."""

    def __init__(self, die_after: int | None = None) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.die_after = die_after

    async def publish(self, body: dict[str, Any], stream: str, **_: Any) -> None:
        if self.die_after is not None and len(self.sent) >= self.die_after:
            raise Crash(stream)
        self.sent.append((stream, body))

    def types(self) -> list[str]:
        return [b.get("type", "?") for _, b in self.sent]


@pytest.fixture(scope="module")
async def r() -> AsyncIterator[Any]:
    server = EmbeddedValkey()
    try:
        client = aioredis.Redis.from_url(server.start())
        await seed_escrow_key(client)
        yield client
        await client.aclose()
    finally:
        server.stop()


# crash points of the services' mechanics, driven in process as the gateway would: signed
# commands are tests/integration/test_signed_commands.py's
UNSIGNED = Settings(require_signatures=False)


def _adj(r: Any, sink: Sink) -> Adjudicator:
    return Adjudicator(UNSIGNED, Store(r), sink, ValkeyArchive(r), Registered(r))


async def _redelivered(r: Any, msg: Any, handler: str) -> Sink:
    """Crash while handling ``msg`` right after its commit, then redeliver it to a new
    replica; returns what the new replica published."""
    with pytest.raises(Crash):
        await getattr(_adj(r, Sink(die_after=0)), handler)(msg)
    again = Sink()
    await getattr(_adj(r, again), handler)(msg)
    return again


async def _new_game(r: Any, game_id: str, rounds: int = 1) -> None:
    players = [im.PlayerRef(player_id=f"p{i}", name=f"n{i}") for i in range(2)]
    await _adj(r, Sink()).on_create(
        im.CreateGame(
            game_id=game_id,
            game="duel",
            options={"rounds": rounds},
            players=players,
            client_entropy=False,
        )
    )


async def test_adjudicator_resends_what_follows_a_redelivered_seed_draw_and_reveal(r: Any) -> None:
    gid = "g-crash-adj"
    await _new_game(r, gid)
    # the dealer's seed commitment: the adjudicator commits, dies before asking for a draw
    out = await _redelivered(r, im.SeedCommitted(game_id=gid, commitment="c" * 64), "on_seed")
    assert "draw_request" in out.types(), out.types()  # the first draw is asked again
    # the first-seat draw, then the caller's call (through the normal path)
    await _adj(r, Sink()).on_draw(im.DrawMade(game_id=gid, label="setup:first", values=[0]))
    await _adj(r, Sink()).on_action(
        im.SubmitAction(
            cmd_id="c1", game_id=gid, seat=0, player_id="p0", action={"type": "call", "stake": 2}
        )
    )
    # the escrow's reveal: applied, then the process dies before asking for the die
    out = await _redelivered(
        r,
        im.RoundRevealed(game_id=gid, round_id="pick:1", choices={"s0": 3, "s1": 5}),
        "on_revealed",
    )
    assert "draw_request" in out.types(), out.types()
    # the die ends the game: applied, then dead before game over reached scoring/dealer
    out = await _redelivered(
        r, im.DrawMade(game_id=gid, label="dice:round:1", values=[5]), "on_draw"
    )
    assert {"game_ended", "reveal_seed"} <= set(out.types()), out.types()
    doc = await Store(r).load(gid)
    assert doc is not None and doc.stage == "ended" and doc.seq == 5  # each applied once


def _commit(gid: str, rid: str, seat: int, choice: int) -> im.CommitChoice:
    return sealed_commit(gid, rid, f"s{seat}", seat, choice)


async def _round(r: Any, gid: str) -> tuple[im.OpenRound, Escrow]:
    spec = im.OpenRound(
        game_id=gid,
        game="duel",
        round_id="pick:1",
        deadline_ms=10**13,
        slots=[
            im.SlotSpec(seat=i, key=f"s{i}", allowed=list(range(10)), default=0) for i in range(2)
        ],
    )
    esc = Escrow(UNSIGNED, EscrowStore(r), Sink(), Registered(r))
    await esc.on_open(spec)
    return spec, esc


async def _store_only(esc: Escrow, c: Any, choice: int) -> None:
    """The escrow's commit script alone: the commit is stored and recorded, nothing after
    (no slot count: the script does not take the close's first step)."""
    k = Keys(c.game_id)
    opening = json.dumps({"choice": choice, "nonce": opening_of(c)[1]}, separators=(",", ":"))
    assert isinstance(esc.store, EscrowStore)
    await esc.store._commit(
        keys=[k.esc_status, k.esc_commits(c.round_id), k.esc_open, k.record, k.esc_round],
        args=[c.round_id, c.slot, c.commitment, opening, "", "{}"],
    )


def _replies(sink: Sink) -> list[tuple[bool, str | None]]:
    return [(b["ok"], b.get("code")) for _, b in sink.sent if b.get("type") == "reply"]


async def test_escrow_finishes_a_close_cut_short_and_acknowledges_redelivered_commits(
    r: Any,
) -> None:
    gid = "g-crash-esc"
    _spec, esc = await _round(r, gid)
    await esc.on_commit(_commit(gid, "pick:1", 0, 7))
    last = _commit(gid, "pick:1", 1, 3)
    # the last commit is stored, the close starts ('closing') and the process dies
    await _store_only(esc, last, 3)
    assert await esc.store.begin_close(gid, "pick:1") == "closing"
    # the commit is redelivered to another replica
    sink = Sink()
    await Escrow(UNSIGNED, EscrowStore(r), sink, Registered(r)).on_commit(last)
    reveals = [b for s, b in sink.sent if s.startswith(streams.ADJ_REVEALS)]
    assert reveals and reveals[0]["choices"] == {"s0": 7, "s1": 3}, sink.types()
    assert _replies(sink) == [(True, None)]  # its own commit, not "escrow/closed"


async def test_escrow_closes_when_the_last_commit_is_redelivered_before_the_close(r: Any) -> None:
    gid = "g-crash-esc2"
    _spec, esc = await _round(r, gid)
    await esc.on_commit(_commit(gid, "pick:1", 0, 1))
    last = _commit(gid, "pick:1", 1, 2)
    # stored and recorded, then dead before the close and before the reply
    await _store_only(esc, last, 2)
    sink = Sink()
    await Escrow(UNSIGNED, EscrowStore(r), sink, Registered(r)).on_commit(last)
    assert any(s.startswith(streams.ADJ_REVEALS) for s, _ in sink.sent), sink.types()
    assert _replies(sink) == [(True, None)]  # not "escrow/already_committed"
    # a different commitment for the same slot is still refused
    other = Sink()
    await Escrow(UNSIGNED, EscrowStore(r), other, Registered(r)).on_commit(
        _commit(gid, "pick:1", 1, 9))
    assert _replies(other) == [(False, "escrow/closed")]
