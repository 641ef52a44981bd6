"""The fast playout engines equal the contract path move by move (issue 22, ``_kit/fast.py``).

For every game with a ``fast`` module, over many seeds, seat counts and option sets: the fast
random playout and ``_kit.playout.play`` (random seats, the same seed and draw key) make the
same move at every step, reach the same state after every move (``to_state`` of the compact
state against the contract's state, as models and as encoded JSON), end at the same step and
score the same. ``from_state`` and ``to_state`` round-trip every state on the way.
"""

from __future__ import annotations

from typing import Any

import pytest

from shared.rules import registry
from shared.rules._kit.fast import FastMove
from shared.rules._kit.playout import play
from shared.rules.api import Act, ChanceOutcome, JointAction, Json, Move

pytestmark = pytest.mark.property

# game -> (seat counts, option sets, seeds per seat count and option set)
CASES: dict[str, tuple[tuple[int, ...], tuple[dict[str, Json], ...], int]] = {
    "empire": (
        (2, 4, 6),
        ({}, {"version": "beginner"},
         {"strict_supply": True, "min_winning_bid_one": True, "claim_collision_cap": 1}),
        10,
    ),
    "empire-engine": (
        (2, 3, 4),
        ({}, {"long_game": True, "random_start_player": False},
         {"hidden_score_piles": False, "majority_bonus_at_zero": True}),
        40,
    ),
}


def as_fast_move(move: Move) -> FastMove:
    if isinstance(move, ChanceOutcome):
        return ("chance", move.label, tuple(move.values))
    if isinstance(move, JointAction):
        return ("joint", move.round_id, move.choices)
    assert isinstance(move, Act)
    return ("act", move.seat, move.action)


def test_every_fast_engine_is_checked() -> None:
    assert set(CASES) == set(registry.fast_names())


def cases() -> list[Any]:
    return [pytest.param(name, n, opts, id=f"{name}-{n}p-{i}")
            for name, (seats, option_sets, _) in CASES.items()
            for n in seats for i, opts in enumerate(option_sets)]


def check_equal(name: str, n: int, options: dict[str, Json], seed: int) -> None:
    """The fast random playout of ``seed`` makes the contract path's moves and states."""
    game = registry.get(name)
    fast = registry.get_fast(name)
    before: list[Any] = []  # the contract's state before each move
    moves: list[Move] = []

    def record(state: Any, move: Move) -> None:
        before.append(state)
        moves.append(move)

    p = play(game, n, dict(options), seed=seed, on_step=record)
    after = [*before[1:], p.state]
    got: list[tuple[FastMove, Any]] = []
    f = fast.play_random(n, dict(options), seed=seed,
                         on_step=lambda c, m: got.append((m, fast.to_state(c))))
    for i, ((fmove, fstate), move, want) in enumerate(zip(got, moves, after)):  # noqa: B905
        assert fmove == as_fast_move(move), f"seed {seed} step {i}: another move"
        assert fstate == want, f"seed {seed} step {i}: another state"
        assert game.encode(fstate) == game.encode(want), f"seed {seed} step {i}"
        assert game.encode(fast.to_state(fast.from_state(want))) == game.encode(want)
    assert (f.steps, f.finished, len(got)) == (p.steps, p.finished, len(moves)), f"seed {seed}"
    assert game.score(fast.to_state(f.state)) == game.score(p.state)


@pytest.mark.parametrize(("name", "n", "options"), cases())
def test_fast_playout_equals_the_contract_path(name: str, n: int,
                                               options: dict[str, Json]) -> None:
    for seed in range(CASES[name][2]):
        check_equal(name, n, options, seed)


# game -> (module attribute, a wrong value): one rule of the fast engine changed
MUTANTS: dict[str, tuple[str, Any]] = {
    "empire": ("BOND_GOLD", 9),
    "empire-engine": ("PRODUCE_GOODS", 3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_changed_rule_is_caught(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: the fast engine with one rule changed differs."""
    attr, value = MUTANTS[name]
    monkeypatch.setattr(registry.get_fast(name), attr, value)
    with pytest.raises(AssertionError):
        for seed in range(5):
            check_equal(name, 4, {}, seed)
