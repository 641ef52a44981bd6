"""Each game's search rollout (``registry.get_rollout``) plays ``_kit.playout.play``'s random games.

Every game has one engine; its ``registry.get_rollout`` is a rollout adapter over it (the
game's ``rollout.py``) that plays random seats on a clone without building events, for the
search's rollouts and the benchmarks. Over many seeds, seat counts and option sets: the
adapter's random playout and ``_kit.playout.play`` (random seats, the same seed and draw key)
make the same move at every step, reach the same state after every move (as values and as
encoded JSON), end at the same step and score the same; from mid-game states the bots reached,
both paths agree too. The rules themselves are pinned by each game's golden playthroughs and
seeded-games digest (tests/unit/rules/<game>/test_seeded_playouts.py).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from shared.ai import registry as ai
from shared.ai.playout import bot_actor, bot_chooser
from shared.fairness.draws import draw
from shared.rules import registry
from shared.rules._kit.playout import apply_or_raise, play, random_actor, random_chooser
from shared.rules._kit.rollout import RolloutMove
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Game,
    JointAction,
    Json,
    Move,
    Simultaneous,
    Terminal,
)

pytestmark = pytest.mark.property

# game -> (seat counts, option sets, seeds per seat count and option set in make test; the
# slow sweep (make rollouts) plays SLOW_FACTOR times as many further seeds)
GAMES: dict[str, tuple[tuple[int, ...], tuple[dict[str, Json], ...], int]] = {
    "empire": (
        (2, 4, 6),
        ({}, {"version": "beginner"},
         {"strict_supply": True, "min_winning_bid_one": True, "claim_collision_cap": 1}),
        4,
    ),
    "empire-nyc": (
        (3, 6),
        ({"max_rounds": 6}, {"missions": True, "extra_links": True, "eliminated_cards": "discard",
                             "max_rounds": 10},
         {"forced_trade": True, "defender_chooses_dice": False, "max_rounds": 8}),
        3,
    ),
    "empires-end": (
        (2, 3, 4),
        ({}, {"random_first_player": False, "low_resources_rule": False},
         {"reshuffle_discards": False}),
        3,
    ),
    "empire-cards": (  # the capped tables of test_conformance and test_empire_cards_play
        (3, 4, 6),
        ({"max_hands": 1, "max_turns_per_hand": 60},
         {"max_hands": 1, "max_turns_per_hand": 80, "expert_spells": True,
          "battle_demand": "rank_suit", "first_dealer": "rps"},
         {"max_hands": 2, "max_rounds_per_hand": 12, "perfect_deal": True,
          "first_round_sets": False, "steal_own_pile": False}),
        2,
    ),
    "empire-engine": (
        (2, 3, 4),
        ({}, {"long_game": True, "random_start_player": False},
         {"hidden_score_piles": False, "majority_bonus_at_zero": True}),
        15,
    ),
}
ALL = GAMES


def as_fast_move(move: Move) -> RolloutMove:
    if isinstance(move, ChanceOutcome):
        return ("chance", move.label, tuple(move.values))
    if isinstance(move, JointAction):
        return ("joint", move.round_id, move.choices)
    assert isinstance(move, Act)
    return ("act", move.seat, move.action)


def test_every_fast_engine_is_checked() -> None:
    assert set(ALL) == set(registry.rollout_names()) == set(registry.names()) - {"duel"}


def cases() -> list[Any]:
    return [pytest.param(name, n, opts, id=f"{name}-{n}p-{i}")
            for name, (seats, option_sets, _) in ALL.items()
            for n in seats for i, opts in enumerate(option_sets)]


def check_equal(name: str, n: int, options: dict[str, Json], seed: int) -> None:
    """The rollout driver's random playout of ``seed`` makes the contract path's moves and
    states."""
    game = registry.get(name)
    driver = registry.get_rollout(name)
    before: list[Any] = []  # the contract's state before each move
    moves: list[Move] = []

    def record(state: Any, move: Move) -> None:
        before.append(state)
        moves.append(move)

    p = play(game, n, dict(options), seed=seed, on_step=record)
    after = [*before[1:], p.state]
    got: list[tuple[RolloutMove, Any]] = []
    f = driver.play_random(n, dict(options), seed=seed,
                         on_step=lambda c, m: got.append((m, driver.to_state(c))))
    for i, ((fmove, fstate), move, want) in enumerate(zip(got, moves, after)):  # noqa: B905
        assert fmove == as_fast_move(move), f"seed {seed} step {i}: another move"
        assert fstate == want, f"seed {seed} step {i}: another state"
        assert game.encode(fstate) == game.encode(want), f"seed {seed} step {i}"
        assert game.encode(driver.to_state(driver.from_state(want))) == game.encode(want)
    assert (f.steps, f.finished, len(got)) == (p.steps, p.finished, len(moves)), f"seed {seed}"
    assert game.score(driver.to_state(f.state)) == game.score(p.state)


@pytest.mark.parametrize(("name", "n", "options"), cases())
def test_fast_playout_equals_the_contract_path(name: str, n: int,
                                               options: dict[str, Json]) -> None:
    for seed in range(ALL[name][2]):
        check_equal(name, n, options, seed)


SLOW_FACTOR = 10


@pytest.mark.slow
@pytest.mark.parametrize(("name", "n", "options"), cases())
def test_fast_playout_equals_the_contract_path_over_many_seeds(
        name: str, n: int, options: dict[str, Json]) -> None:
    seeds = ALL[name][2]
    for seed in range(seeds, seeds * (1 + SLOW_FACTOR)):
        check_equal(name, n, options, seed)


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_the_card_games_whole_match_on_the_fast_engine(n: int) -> None:
    """The Card Game's default match (7 hands of up to 40 rounds, about 5,000 moves: deck
    rebuilds, hands won and lost, the hand cap) equals the contract path's."""
    for seed in range(2):
        check_equal("empire-cards", n, {}, seed)


def play_on(game: Game, state: Any, rng: random.Random, key: bytes
            ) -> tuple[list[Move], list[Any], bool]:
    """``play``'s loop with random seats from ``state`` on: (moves, states after, ended)."""
    moves: list[Move] = []
    states: list[Any] = []
    for _ in range(100_000):
        node = game.next(state)
        move: Move
        if isinstance(node, Terminal):
            return moves, states, True
        if isinstance(node, Chance):
            values = draw(key, node.label, node.draw, node.n, node.count)
            move = ChanceOutcome(label=node.label, values=tuple(values))
        elif isinstance(node, Simultaneous):
            move = JointAction(round_id=node.round_id, choices={
                slot.key: random_chooser(game, state, slot, rng, {}) for slot in node.slots})
        else:
            seat = rng.choice(list(node.seats)) if node.seats else rng.choice(list(node.open_to))
            move = Act(seat=seat, action=random_actor(game, state, seat, rng))
        state = apply_or_raise(game, state, move).state
        moves.append(move)
        states.append(state)
    return moves, states, False


def with_offers(game: Game, state: Any) -> Any:
    """Empire: open trade offers (the bots make none) from every seat to the next one."""
    if state.phase not in ("exploration", "trade_window"):
        return state
    for seat in range(state.n):
        give = {"gold": 1} if state.holdings[seat].gold > 3 else {}
        offer = {"type": "offer_trade", "to": (seat + 1) % state.n, "give": give,
                 "get": {"goods": 1}}
        state = apply_or_raise(game, state, Act(seat=seat, action=offer)).state
    return state


# game -> (seats, options, where the heuristic game is cut (share of its moves), a change)
MIDGAME: dict[str, tuple[int, dict[str, Json], tuple[float, ...], Any]] = {
    "empire": (4, {}, (0.1, 0.5, 0.8, 0.95), with_offers),
    "empire-nyc": (4, {"missions": True}, (0.5, 0.9, 0.99), None),
    "empire-engine": (3, {}, (0.2, 0.6, 0.9), None),
    "empires-end": (3, {}, (0.2, 0.5, 0.8, 0.95), None),
    # the bots win hand 1 at 37%; from 80% a seat holds a winning set (CG-12), and random
    # seats win a hand from every cut (the rewards and the next deal on the contract path)
    "empire-cards": (4, {"max_hands": 2, "expert_spells": True}, (0.5, 0.8, 0.95), None),
}


@pytest.mark.parametrize("name", sorted(ALL))
def test_from_a_midgame_state_the_paths_agree(name: str) -> None:
    """``from_state`` of a state the heuristic bots reached, then random seats on both paths
    (states random play seldom reaches: near a win by mission or map, open trade offers)."""
    game = registry.get(name)
    driver = registry.get_rollout(name)
    n, options, cuts, change = MIDGAME[name]
    bot = ai.get_bot(name)
    seen: list[Any] = []
    play(game, n, dict(options), seed=7, actors={s: bot_actor(bot) for s in range(n)},
         choosers={s: bot_chooser(bot) for s in range(n)}, on_step=lambda s, m: seen.append(s))
    for seed, cut in enumerate(cuts):
        start = seen[int(cut * len(seen))]
        if change is not None:
            start = change(game, start)
        key = bytes([seed]) * 32
        moves, states, ended = play_on(game, start, random.Random(seed), key)
        got: list[tuple[RolloutMove, Any]] = []

        def record(c: Any, m: RolloutMove, got: list[tuple[RolloutMove, Any]] = got) -> None:
            got.append((m, driver.to_state(c)))

        f = driver.playout(driver.from_state(start), random.Random(seed), key, on_step=record)
        for i, ((fmove, fstate), move, want) in enumerate(zip(got, moves, states)):  # noqa: B905
            assert fmove == as_fast_move(move), f"seed {seed} step {i}: another move"
            assert game.encode(fstate) == game.encode(want), f"seed {seed} step {i}"
        assert (f.steps, f.finished) == (len(moves), ended)
        assert game.score(driver.to_state(f.state)) == game.score(states[-1] if states else start)
