"""One conformance suite for every registered game (OpenSpiel's random_sim_test, Pgx api_test).

For random seeds and every seat count: the game ends; awaited seats have legal actions and
every legal action is accepted; state round-trips through JSON; the same seed replays to the
same events and state (also with the global RNG disturbed); ``apply`` never changes a state
it was given (states are cloned, then changed); views are JSON; a Chance outcome with the
wrong label is refused; score ranks every seat.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.ai import registry as ai
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules import registry
from shared.rules._kit.playout import Actor, Chooser, play
from shared.rules.api import Chance, ChanceOutcome, Rejection, Turn

pytestmark = pytest.mark.property

# per-game options that keep a conformance playout short (real defaults are tested per game)
FAST_OPTIONS: dict[str, dict[str, Any]] = {
    "empire-cards": {"max_hands": 1, "max_turns_per_hand": 60},
}
MAX_STEPS = 20_000


def seat_counts(name: str) -> list[int]:
    g = registry.get(name)
    return list(range(g.min_seats, g.max_seats + 1))


def check_step(game: Any, state: Any, move: Any) -> None:
    data = game.encode(state)
    assert game.decode(json.loads(json.dumps(data))) == state
    node = game.next(state)
    if isinstance(node, Turn):
        for seat in node.seats:
            assert game.legal_actions(state, seat), f"awaited seat {seat} has no legal action"
    if isinstance(node, Chance):
        wrong = game.apply(state, ChanceOutcome(label=node.label + ":x", values=(0,)))
        assert isinstance(wrong, Rejection)


def states_stay_as_reached(game: Any, n: int, opts: dict[str, Any], seed: int) -> Any:
    """A random playout's first 400 moves, checking that every state still encodes as it did
    when it was reached: ``apply`` changes only its own clone."""
    seen: list[tuple[Any, Any]] = []
    out = play(game, n, opts, seed=seed, max_steps=400,
               on_step=lambda s, m: seen.append((s, game.encode(s))))
    for i, (state, encoded) in enumerate(seen):
        assert game.encode(state) == encoded, f"step {i}: a later move changed this state"
    return out


def test_a_state_changed_by_a_later_move_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from shared.rules.empire.state import EmpireState

    monkeypatch.setattr(EmpireState, "clone", lambda self: self)  # apply changes its input
    with pytest.raises(AssertionError, match="changed this state"):
        states_stay_as_reached(registry.get("empire"), 3, {}, 3)


@pytest.mark.parametrize("name", registry.names())
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_play_conforms(name: str, seed: int) -> None:
    game = registry.get(name)
    rng = random.Random(seed)
    n = rng.choice(seat_counts(name))
    opts = FAST_OPTIONS.get(name, {})
    # seat 0 plays at random; the others use the game's heuristic bot, which brings games
    # whose random play need not terminate (conquest games) to an end
    bot = ai.get_bot(name)
    actors: dict[int, Actor] = {i: bot_actor(bot) for i in range(1, n)}
    choosers: dict[int, Chooser] = {i: bot_chooser(bot) for i in range(1, n)}
    out = play(game, n, opts, seed=seed, max_steps=MAX_STEPS, actors=actors,
               choosers=choosers, on_step=lambda s, m: check_step(game, s, m))
    assert out.finished, f"{name} with {n} seats did not end in {MAX_STEPS} steps"
    for seat in [*range(n), None]:
        json.dumps(game.view(out.state, seat))
    outcome = game.score(out.state)
    assert sorted(r.seat for r in outcome.results) == list(range(n))
    assert min(r.place for r in outcome.results) == 1

    # determinism: the same seed replays identically even with the global RNG disturbed
    # (random seats only, so no bot's own RNG is involved; a bounded prefix of the game)
    first = states_stay_as_reached(game, n, opts, seed)
    random.seed(seed ^ 0xDEAD)
    again = play(game, n, opts, seed=seed, max_steps=400, on_step=lambda s, m: random.random())
    assert again.events == first.events
    assert again.state == first.state
