"""Who a game waits for, as the adjudicator publishes it (services/adjudicator/turns.py),
through its ports (in-memory fakes; the Redis commit's own step in
tests/integration/test_turns_store.py): a ``TurnsChanged`` with every commit that changes the
awaited seats or ends the game, in seq order, naming seats, players and clocks only; a
turn-based game's end moving on with its clocks; each seat's time bank."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.adjudicator import service as adj_service
from services.adjudicator.service import Adjudicator
from shared.protocol import internal as im
from shared.protocol.turns import TurnsChanged, Waiting
from shared.runtime.settings import Settings
from tests.service.test_adjudicator import KEYS, REGISTRY, FakeArchive
from tests.support.fakes import FakeAdjudicatorStore, FakePublisher

pytestmark = pytest.mark.service

DAY = 86_400_000
T0 = 1_800_000_000_000


class Clock:
    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> int:
        return self.t


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(adj_service, "now_ms", c)
    return c


async def started(pace: str = "turn-based", bank: int = 0, turn: int = DAY,
                  rounds: int = 1, **settings: Any
                  ) -> tuple[Adjudicator, FakeAdjudicatorStore, FakePublisher]:
    """A duel of p0 and p1 at seat 0's call (seed committed, first seat drawn)."""
    store, out = FakeAdjudicatorStore(), FakePublisher()
    adj = Adjudicator(Settings(**settings), store, out, FakeArchive(), REGISTRY)
    players = [im.PlayerRef(player_id=f"p{i}", name=f"n{i}") for i in range(2)]
    await adj.dispatch(im.CreateGame(
        game_id="g", game="duel", options={"rounds": rounds}, players=players,
        client_entropy=False, pace=pace, turn_timeout_ms=turn,  # type: ignore[arg-type]
        round_timeout_ms=2 * DAY, time_bank_ms=bank).model_dump(mode="json"))
    await adj.on_seed(im.SeedCommitted(game_id="g", commitment="c" * 64))
    await adj.on_draw(im.DrawMade(game_id="g", label="setup:first", values=[0]))
    return adj, store, out


def call(seat: int, cmd_id: str, stake: int = 2) -> im.SubmitAction:
    action = {"type": "call", "stake": stake}
    signed = KEYS[seat].sign_act("g", seat, cmd_id, action, None)
    return im.SubmitAction(cmd_id=cmd_id, game_id="g", seat=seat, player_id=f"p{seat}",
                           action=action, **signed)


def waits(entry: dict[str, Any]) -> list[tuple[int, str, int, int | None]]:
    return [(w["seat"], w["player_id"], w["since_ms"], w["deadline_ms"])
            for w in entry["waiting"]]


async def test_every_change_of_who_the_game_waits_for_is_published_in_order(
        clock: Clock) -> None:
    adj, store, _ = await started()
    # created (nobody awaited yet: the seed), then seat 0's call with its clock
    assert [waits(e) for e in store.turns] == [[], [(0, "p0", T0, T0 + DAY)]]
    clock.t += 1_000
    await adj.on_action(call(0, "c1"))  # the sealed picks: both seats, the round's deadline
    assert waits(store.turns[-1]) == [(0, "p0", T0, T0 + 1_000 + 2 * DAY),
                                      (1, "p1", T0 + 1_000, T0 + 1_000 + 2 * DAY)]
    clock.t += 1_000
    await adj.on_revealed(im.RoundRevealed(game_id="g", round_id="pick:1",
                                           choices={"s0": 7, "s1": 3}))
    assert waits(store.turns[-1]) == []  # the die: the dealer's, nobody's turn
    n = len(store.turns)
    await adj.on_revealed(im.RoundRevealed(game_id="g", round_id="pick:1",
                                           choices={"s0": 7, "s1": 3}))
    assert len(store.turns) == n  # a redelivered reveal changes nothing: no entry
    await adj.on_draw(im.DrawMade(game_id="g", label="dice:round:1", values=[5]))
    last = store.turns[-1]
    assert last["ended"] and last["waiting"] == []
    seqs = [e["seq"] for e in store.turns]
    assert seqs == sorted(set(seqs))  # one per change, in the game's order
    assert all(e["pace"] == "turn-based" and e["players"] == ["p0", "p1"]
               for e in store.turns)


async def test_a_real_time_game_is_published_at_its_start_and_end_only(clock: Clock) -> None:
    adj, store, out = await started(pace="real-time")
    assert len(store.turns) == 1 and waits(store.turns[0]) == []  # created: it runs
    await adj.on_action(call(0, "c1", stake=3))
    opened = out.bodies("open_round")
    assert opened and all(m["pace"] == "real-time" for m in opened)  # no seat_committed
    await adj.on_revealed(im.RoundRevealed(game_id="g", round_id="pick:1",
                                           choices={"s0": 9, "s1": 8}))
    assert len(store.turns) == 1  # its moves are followed at its table, not here
    doc = await store.load("g")
    assert doc is not None and doc.waiting == []  # the die: the document still tracks waits
    await adj.on_draw(im.DrawMade(game_id="g", label="dice:round:1", values=[6]))
    assert len(store.turns) == 2 and store.turns[-1]["ended"]
    assert all(e["waiting"] == [] and e["round_id"] is None and e["pace"] == "real-time"
               for e in store.turns)


async def test_an_entry_carries_seats_players_and_clocks_never_a_choice(clock: Clock) -> None:
    adj, store, _ = await started(pace="turn-based")
    await adj.on_action(call(0, "c1", stake=3))
    await adj.on_revealed(im.RoundRevealed(game_id="g", round_id="pick:1",
                                           choices={"s0": 9, "s1": 8}))
    await adj.on_draw(im.DrawMade(game_id="g", label="dice:round:1", values=[6]))
    assert len(store.turns) >= 4 and store.turns[-1]["ended"]
    fields, waiting = set(TurnsChanged.model_fields), set(Waiting.model_fields)
    for e in store.turns:
        assert set(e) == fields  # the contract's fields, nothing added
        assert all(set(w) == waiting for w in e["waiting"])
        # a sealed round's id is public (every view's node names it): nothing else of it
        assert e["round_id"] in (None, "pick:1")
        text = json.dumps({k: v for k, v in e.items() if k != "round_id"})
        for secret in ('"stake"', '"choices"', '"s0"', '"pick', '"values"', "nonce", "view",
                       "hand", "seed"):
            assert secret not in text, (secret, e)
        assert e["pace"] == "turn-based"


async def test_a_turn_based_game_lives_while_its_clocks_move_it(clock: Clock) -> None:
    adj, store, _ = await started(turn=DAY, game_lifetime_s=3600,
                                  turn_based_lifetime_max_s=30 * 86400)
    doc = await store.load("g")
    assert doc is not None and doc.expires_cap_ms == T0 + 30 * DAY
    stall = 2 * DAY * 3 + 3_600_000  # the longest clock (an ordered round of 2) + lifetime
    assert doc.stall_ms == stall and doc.expires_ms == T0 + stall
    assert store.timers.due["g|expire"] == T0 + stall
    clock.t += DAY  # a move a day later: the end moves on, its timer with it
    await adj.on_action(call(0, "c1"))
    doc = await store.load("g")
    assert doc is not None and doc.expires_ms == T0 + DAY + stall
    assert store.timers.due["g|expire"] == T0 + DAY + stall
    clock.t = T0 + stall  # the first end's time: not the game's end any more
    assert await adj.on_timer("g|expire") is False
    assert store.timers.due["g|expire"] == T0 + DAY + stall  # armed again for the new end
    clock.t = T0 + DAY + stall  # nobody moved since: the game ends, the readers are told
    assert await adj.on_timer("g|expire") is True
    doc = await store.load("g")
    assert doc is not None and doc.stage == "ended"
    assert store.turns[-1]["ended"] and store.turns[-1]["waiting"] == []


async def test_a_real_time_game_keeps_its_fixed_lifetime(clock: Clock) -> None:
    adj, store, _ = await started(pace="real-time", turn=60_000, game_lifetime_s=3600)
    clock.t += 30_000
    await adj.on_action(call(0, "c1"))
    doc = await store.load("g")
    assert doc is not None and doc.expires_ms == T0 + 3_600_000 and doc.expires_cap_ms is None


async def test_the_time_bank_extends_a_late_move_and_is_spent_by_it(clock: Clock) -> None:
    adj, store, _ = await started(turn=5_000, bank=10_000, rounds=2)
    doc = await store.load("g")
    assert doc is not None and doc.bank == [10_000, 10_000]
    assert doc.deadline_ms == T0 + 15_000  # the move's clock, then the bank
    view = store.views["g"][1][-1]
    assert view["node"]["time_bank_ms"] == [10_000, 10_000]  # every seat sees the clocks
    clock.t += 8_000  # 3 s beyond the move's clock
    await adj.on_action(call(0, "c1"))
    doc = await store.load("g")
    assert doc is not None and doc.bank == [7_000, 10_000]
    await adj.on_revealed(im.RoundRevealed(game_id="g", round_id="pick:1",
                                           choices={"s0": 1, "s1": 2}))
    await adj.on_draw(im.DrawMade(game_id="g", label="dice:round:1", values=[1]))
    doc = await store.load("g")  # round 2: seat 1 calls, with its whole bank
    assert doc is not None and doc.deadline_ms == clock.t + 15_000
    clock.t = doc.deadline_ms
    await adj.on_timer(f"g|{doc.seq}")  # its clock and bank ran out: the default move
    doc = await store.load("g")
    assert doc is not None and doc.bank == [7_000, 0]
    assert store.logs["g"][-1]["by"] == "timeout"


async def test_a_sealed_round_s_entry_names_its_round_and_a_turn_s_does_not(
        clock: Clock) -> None:
    adj, store, _ = await started()
    assert store.turns[-1]["round_id"] is None  # seat 0's call: a turn
    await adj.on_action(call(0, "c1"))
    assert store.turns[-1]["round_id"] == "pick:1"  # the escrow's SeatCommitted matches it
    await adj.on_revealed(im.RoundRevealed(game_id="g", round_id="pick:1",
                                           choices={"s0": 7, "s1": 3}))
    assert store.turns[-1]["round_id"] is None
