"""The atomic steps against a real server: the adjudicator's compare-and-set commit and the
escrow's commit / close scripts."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.adjudicator import core
from services.adjudicator.store import Store
from services.escrow.service import Escrow
from services.escrow.store import EscrowStore
from shared.protocol import internal as im
from shared.protocol.streams import Keys
from shared.runtime.session_keys import Registered
from shared.runtime.settings import Settings
from tests.support.sealing import sealed_commit

pytestmark = pytest.mark.integration
# the escrow's mechanics, driven in process as the gateway would: signed commits are
# tests/reliability/test_forged_seats.py's (and tests/service/test_signed_commands.py's)
UNSIGNED = Settings(require_signatures=False)


class Sink:
    """Collects what a service would publish (the stores under test are the real thing)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def publish(self, body: dict[str, Any], stream: str, **_: Any) -> None:
        self.sent.append((stream, body))



def new_doc(game_id: str) -> core.GameDoc:
    players = [im.PlayerRef(player_id="p0", name="a"), im.PlayerRef(player_id="p1", name="b")]
    eff = core.create(im.CreateGame(game_id=game_id, game="duel", players=players))
    assert eff.doc is not None
    return eff.doc


async def test_compare_and_set_lets_exactly_one_writer_win(r: Any) -> None:
    store = Store(r)
    doc = new_doc("g-cas")
    views = core.render_views(doc, [])
    assert (await store.commit(-1, doc, [], [], views)).ok
    assert not (await store.commit(-1, doc, [], [], views)).ok  # create is once only
    nxt = doc.model_copy(update={"seq": 1})
    results = await asyncio.gather(*[store.commit(0, nxt, [{"i": i}], [], views)
                                     for i in range(10)])
    assert sum(res.ok for res in results) == 1
    assert await r.xlen(Keys("g-cas").log) == 1
    loaded = await store.load("g-cas")
    assert loaded is not None and loaded.seq == 1


async def test_a_move_with_record_entries_marks_its_views_with_the_last_one(r: Any) -> None:
    """Protocol v3: every view entry a move writes carries ``r``, the id of the
    last record entry the same atomic step wrote, so the gateway can send a v3 watch the view
    and those entries in one frame; a move without record entries leaves ``r`` out."""
    store = Store(r)
    doc = new_doc("g-rmark")
    views = core.render_views(doc, [])
    k = Keys("g-rmark")
    assert (await store.commit(-1, doc, [], [{"type": "a"}, {"type": "b"}], views)).ok
    last = (await r.xrevrange(k.record, count=1))[0][0]
    for key in (k.spectator, k.view(0), k.view(1)):
        (_, fields), = await r.xrange(key)
        assert fields[b"r"] == last
    assert (await store.commit(0, doc.model_copy(update={"seq": 1}), [], [], views)).ok
    for key in (k.spectator, k.view(0), k.view(1)):
        assert b"r" not in (await r.xrevrange(key, count=1))[0][1]


async def test_a_command_id_applies_once(r: Any) -> None:
    store = Store(r)
    doc = new_doc("g-dup")
    views = core.render_views(doc, [])
    await store.commit(-1, doc, [], [], views)
    one = doc.model_copy(update={"seq": 1})
    two = doc.model_copy(update={"seq": 2})
    assert (await store.commit(0, one, [], [], views, cmd_id="c1", seat=0)).ok
    res = await store.commit(1, two, [], [], views, cmd_id="c1", seat=0)
    assert res.duplicate and not res.ok
    assert (await store.load("g-dup")).seq == 1  # type: ignore[union-attr]
    assert await store.remember_rejection("g-dup", 0, "c2")
    assert not await store.remember_rejection("g-dup", 0, "c2")
    assert await store.command_known("g-dup", 0, "c1")
    assert await store.command_known("g-dup", 0, "c2")
    assert not await store.command_known("g-dup", 1, "c1")  # ids are per (game, seat)


def _commit(game: str, seat: int, slot: str, choice: int) -> im.CommitChoice:
    return sealed_commit(game, "pick:1", slot, seat, choice)


async def test_escrow_reveals_once_after_all_commit_and_refuses_after_close(r: Any) -> None:
    sink = Sink()
    esc = Escrow(UNSIGNED, EscrowStore(r), sink, Registered(r))
    spec = im.OpenRound(game_id="g-esc", game="duel", round_id="pick:1", deadline_ms=10**13,
                        slots=[im.SlotSpec(seat=i, key=f"s{i}", allowed=list(range(10)),
                                           default=0) for i in range(2)])
    await esc.on_open(spec)
    await esc.on_open(spec)  # duplicate open: no second round_opened
    await esc.on_commit(_commit("g-esc", 0, "s0", 7))
    await esc.on_commit(_commit("g-esc", 0, "s0", 8))  # second commit for the same slot
    assert not [b for _, b in sink.sent if b.get("type") == "round_revealed"]
    await esc.on_commit(_commit("g-esc", 1, "s1", 3))
    await esc.on_commit(_commit("g-esc", 1, "s1", 4))  # after close
    reveals = [b for _, b in sink.sent if b.get("type") == "round_revealed"]
    assert len(reveals) >= 1 and all(x["choices"] == {"s0": 7, "s1": 3} for x in reveals)
    codes = [b.get("code") for _, b in sink.sent if b.get("type") == "reply" and not b["ok"]]
    assert codes == ["escrow/already_committed", "escrow/closed"]
    rec = [e for _, e in await r.xrange(Keys("g-esc").record)]
    kinds = [__import__("json").loads(e[b"d"])["type"] for e in rec]
    assert kinds == ["round_opened", "committed", "committed", "round_closed", "round_revealed"]
    # both commits got their receipt; the last one's travels with the reveal and stands for
    # the notify (one publish fewer); the close also removed the round's deadline timer
    oks = [b["slot"] for _, b in sink.sent if b.get("type") == "reply" and b["ok"]]
    assert oks == ["s0", "s1"]
    # each accepted commit is also told to the turns stream (who a game still waits for)
    told = [(b["seat"], b["round_id"]) for _, b in sink.sent if b.get("type") == "seat_committed"]
    assert told == [(0, "pick:1"), (1, "pick:1")]
    sent = [(b.get("type"), b.get("slot"), b.get("code")) for _, b in sink.sent
            if b.get("type") != "seat_committed"]
    assert sent == [("notify", None, None),  # the open
                    ("reply", "s0", None), ("reply", "s0", "escrow/already_committed"),
                    ("round_revealed", None, None), ("reply", "s1", None),  # no notify
                    ("round_revealed", None, None), ("reply", "s1", "escrow/closed")]
    assert await esc.store.timers.due("g-esc|pick:1") is None


async def test_escrow_deadline_closes_with_defaults(r: Any) -> None:
    sink = Sink()
    esc = Escrow(UNSIGNED, EscrowStore(r), sink, Registered(r))
    spec = im.OpenRound(game_id="g-late", game="duel", round_id="pick:1", deadline_ms=0,
                        slots=[im.SlotSpec(seat=i, key=f"s{i}", allowed=list(range(10)),
                                           default=5) for i in range(2)])
    await esc.on_open(spec)
    await esc.on_commit(_commit("g-late", 0, "s0", 9))
    await esc.close(spec)
    reveal = next(b for _, b in sink.sent if b.get("type") == "round_revealed")
    assert reveal["choices"] == {"s0": 9, "s1": 5} and reveal["defaulted"] == ["s1"]
