"""Random legal play of Empire (hypothesis): 2-6 seats, both versions, every option.

Every game must end after exactly six developments, ``apply`` must never raise (bad moves
are Rejections that leave the state alone), every listed legal action must be accepted, and
every card and gold piece must stay accounted for (E-5): with the unlimited bank,
taken - returned == cards on the table (hands + auction row + claim stacks); with strict
supply, bank + hands + row + stacks == the component counts, and the bank never goes
negative. Random trades (offers from any seat, answers, cancels) are mixed in.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.fairness.draws import draw
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    JointAction,
    Json,
    Move,
    Rejection,
    Simultaneous,
    Terminal,
    Transition,
    Turn,
)
from shared.rules.empire import GAME
from shared.rules.empire.data import KINDS, SUPPLY
from shared.rules.empire.exploration import tradeable
from shared.rules.empire.state import EmpireState

pytestmark = pytest.mark.property

GARBAGE: list[Any] = [
    None,
    5,
    "pass",
    {"type": "raise", "bid": -1},
    {"type": "raise", "bid": 10**9},
    {"type": "nope"},
    {"type": "accept", "offer": 10**6},
    {"type": "offer_trade", "to": 0, "give": {"nation": 1}},
    {"type": "offer_trade", "to": 63, "give": {"goods": 1}},
    {"type": "done", "extra": 1},
]


def on_table(state: EmpireState, kind: str) -> int:
    total = sum(h.get(kind) for h in state.holdings)  # type: ignore[arg-type]
    total += sum(1 for card in state.row if card == kind)
    if state.claim is not None:
        total += sum(s.get(kind) for s in state.claim.stacks)  # type: ignore[arg-type]
    return total


def check_invariants(state: EmpireState) -> None:
    for kind in KINDS:
        out = state.bank_taken.get(kind) - state.bank_returned.get(kind)
        assert out == on_table(state, kind), kind
        if state.options.strict_supply:
            bank = SUPPLY[kind] - out
            assert bank >= 0, kind
            assert bank + on_table(state, kind) == SUPPLY[kind], kind
    if state.auction is not None:
        a = state.auction
        for seat, bid in enumerate(a.bids):  # E-3: a live bid is always covered
            assert a.withdrawn[seat] or bid <= state.holdings[seat].gold


def random_offer(state: EmpireState, rng: random.Random) -> Act:
    seat = rng.randrange(state.n)
    to = rng.choice([s for s in range(state.n) if s != seat])
    have = tradeable(state, seat).as_dict()
    give = {k: rng.randint(0, v) for k, v in have.items() if v and rng.random() < 0.4}
    get = {k: rng.randint(1, 3) for k in KINDS if rng.random() < 0.2}
    if not any(give.values()) and not get:
        get = {"gold": 1}
    return Act(seat=seat, action={"type": "offer_trade", "to": to, "give": give, "get": get})


def must_apply(state: EmpireState, move: Move) -> Transition:
    result = GAME.apply(state, move)
    assert isinstance(result, Transition), (move, result)
    return result


def play_random(n: int, options: dict[str, Json], seed: int) -> tuple[EmpireState, list[str]]:
    rng = random.Random(seed)
    key = seed.to_bytes(8, "big") * 4
    state: EmpireState = GAME.setup(options, n)
    kinds: list[str] = []
    for step in range(50_000):
        check_invariants(state)
        node = GAME.next(state)
        if isinstance(node, Terminal):
            return state, kinds
        if step % 97 == 0:
            data = json.loads(json.dumps(GAME.encode(state)))
            assert GAME.decode(data) == state
            for seat in (None, *range(n)):
                json.dumps(GAME.view(state, seat))
        move: Move
        if isinstance(node, Chance):
            values = draw(key, node.label, node.draw, node.n, node.count)
            move = ChanceOutcome(label=node.label, values=tuple(values))
        elif isinstance(node, Simultaneous):
            assert len({s.key for s in node.slots}) == len(node.slots)
            choices: dict[str, Json] = {}
            for slot in node.slots:
                assert GAME.check_choice(slot, slot.default)
                choices[slot.key] = rng.choice(list(slot.allowed or ()))
            move = JointAction(round_id=node.round_id, choices=choices)
        else:
            assert isinstance(node, Turn) and node.seats
            for seat in node.seats:
                legal = GAME.legal_actions(state, seat)
                assert legal and GAME.default_action(state, seat) in legal
            roll = rng.random()
            if roll < 0.02:
                bad = Act(seat=rng.randrange(-1, n + 1), action=rng.choice(GARBAGE))
                assert isinstance(GAME.apply(state, bad), Rejection), bad
                continue
            elif roll < 0.08:
                move = random_offer(state, rng)
            else:
                others = [s for s in node.open_to if GAME.legal_actions(state, s)]
                seat = rng.choice(others) if others and roll < 0.2 else rng.choice(node.seats)
                legal = list(GAME.legal_actions(state, seat))
                if step % 23 == 0:  # every listed action must be accepted
                    for action in rng.sample(legal, min(4, len(legal))):
                        must_apply(state, Act(seat=seat, action=action))
                move = Act(seat=seat, action=rng.choice(legal))
        result = GAME.apply(state, move)
        if isinstance(result, Rejection):
            # Only random offers may be refused (e.g. more open offers than allowed).
            assert isinstance(move, Act) and isinstance(move.action, dict)
            assert move.action.get("type") == "offer_trade", (move, result)
            continue
        state = result.state
        kinds.extend(e.type for e in result.events)
    raise AssertionError("game did not end")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(min_value=2, max_value=6),
    version=st.sampled_from(["beginner", "standard"]),
    strict=st.booleans(),
    min_one=st.booleans(),
    memory=st.booleans(),
    cap=st.sampled_from([None, 1, 3]),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_random_play_ends_after_six_developments(
    n: int, version: str, strict: bool, min_one: bool, memory: bool, cap: int | None, seed: int
) -> None:
    options: dict[str, Json] = {
        "version": version,
        "strict_supply": strict,
        "min_winning_bid_one": min_one,
        "memory_mode": memory,
        "claim_collision_cap": cap,
    }
    state, kinds = play_random(n, options, seed)
    assert state.phase == "ended" and state.round == 6 and state.developments == 6
    assert kinds.count("development_phase") == 6 and kinds.count("game_ended") == 1
    assert kinds.count("auction_opened") + kinds.count("auction_skipped") == 25
    outcome = GAME.score(state)
    assert [r.seat for r in outcome.results] == list(range(n))
    assert outcome.winners and all(1 <= r.place <= n for r in outcome.results)


JSON_LEAF = st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=False)
JSON_LEAF = JSON_LEAF | st.sampled_from(["", "pass", "raise", "goods", "gold", "1"])
JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["type", "bid", "to", "give", "get", "offer", "x"]), inner,
                      max_size=4),
    max_leaves=8,
)  # fmt: skip
TYPED = st.builds(
    lambda t, rest: {"type": t, **rest},
    st.sampled_from(["raise", "pass", "withdraw", "offer_trade", "accept", "decline", "cancel",
                     "done", "bid"]),
    st.dictionaries(st.sampled_from(["bid", "to", "give", "get", "offer"]), JSON, max_size=3),
)  # fmt: skip


def _sample_states() -> list[EmpireState]:
    states: list[EmpireState] = []
    seen: set[str] = set()
    rng = random.Random(7)
    key = bytes(32)
    state: EmpireState = GAME.setup({"version": "standard"}, 3)
    while not isinstance(node := GAME.next(state), Terminal):
        if state.phase not in seen or rng.random() < 0.01:
            seen.add(state.phase)
            states.append(state)
        move: Move
        if isinstance(node, Chance):
            values = draw(key, node.label, node.draw, node.n, node.count)
            move = ChanceOutcome(label=node.label, values=tuple(values))
        elif isinstance(node, Simultaneous):
            choices = {s.key: rng.choice(list(s.allowed or ())) for s in node.slots}
            move = JointAction(round_id=node.round_id, choices=choices)
        else:
            seat = node.seats[0]
            move = Act(seat=seat, action=rng.choice(list(GAME.legal_actions(state, seat))))
        state = must_apply(state, move).state
    states.append(state)
    return states


SAMPLE_STATES = _sample_states()


@settings(max_examples=300, deadline=None)
@given(
    index=st.integers(min_value=0, max_value=len(SAMPLE_STATES) - 1),
    seat=st.integers(min_value=-2, max_value=5),
    action=JSON | TYPED,
)
def test_apply_never_raises_on_arbitrary_actions(index: int, seat: int, action: Any) -> None:
    state = SAMPLE_STATES[index]
    result = GAME.apply(state, Act(seat=seat, action=action))
    assert isinstance(result, Rejection | Transition)
    if isinstance(result, Transition):
        check_invariants(result.state)
