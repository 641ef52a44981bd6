"""Every game ends, and within a stated number of moves.

Uniformly random seats play each registered game with its default options (draws from the
dealer's functions). Each game must reach Terminal within ``bound(game, seats)`` moves. The
bounds come from the rules, the server rulings CG-S1, CG-S2 and NY-S1
(docs/rulings-server.md), and a per-turn allowance well above anything measured:

=============  ==============================================  ==========================
game           bound (moves)                                   longest of 1,000 (seats)
=============  ==============================================  ==========================
empire-cards   7 hands x 40 rounds x seats x 12 moves a turn    8,208 (6; bound 20,160)
               (CG-S2 x CG-S1)
empire-nyc     setup cubes + 30 rounds x seats x 60 moves       7,012 (6; bound 10,923)
               (NY-S1)
empire         4,000 (25 auctions, 5 commerce rounds; only the  851 (6)
               claim collisions (E-14) can repeat,
               geometrically rarer)
empire-engine  rounds x (1 sealed round + 3 x seats turns)      24 (4; bound 157)
               (a fixed track, EE-14)
empires-end    3,000 (a fixed phase track, EEND-22)             209 (4)
duel           3 moves a round + 2                              10 (4; bound 11)
=============  ==============================================  ==========================

The last column was measured with ``pytest -m slow -s
tests/property/test_games_end.py::test_1000_random_games_end_within_the_bound`` (seeds 0-999,
seat counts in turn): every game ended within its bound. The
1,000-game runs took 4 s (duel), 16 min (empire-nyc) and 52 min (empire-cards, 10 min of CPU)
on a heavily shared 2-core machine.

``make test`` runs a few games per game (``FAST``). ``make slow`` and ``make bots`` run 1,000
per game and print the longest game.
"""

from __future__ import annotations

import pytest

from shared.rules import registry
from shared.rules._kit.playout import default_actor, default_chooser, play

pytestmark = pytest.mark.property

SLOW_GAMES = 1000
FAST = {"empire-cards": 6, "empire-nyc": 12, "empire": 30, "empire-engine": 60,
        "empires-end": 30, "duel": 60}  # fmt: skip


def bound(name: str, seats: int) -> int:
    """The most moves a game with default options may take (see the module docstring)."""
    if name == "empire-cards":
        return 7 * 40 * seats * 12  # CG-S2 hands x CG-S1 rounds x seats x moves a turn
    if name == "empire-nyc":
        setup = 3 + {3: 35, 4: 30, 5: 25, 6: 20}[seats] * seats  # chance + one cube a move
        return setup + 30 * seats * 60  # NY-S1 rounds x seats x moves a turn
    if name == "empire-engine":
        return 12 * (1 + 3 * seats) + 1
    if name == "empire":
        return 4000
    if name == "empires-end":
        return 3000
    return 3 * 3 + 2  # duel: 3 rounds by default


def seat_counts(name: str) -> list[int]:
    game = registry.get(name)
    return list(range(game.min_seats, game.max_seats + 1))


def longest(name: str, games: int) -> tuple[int, int]:
    """Play ``games`` random games (seat counts in turn); the longest game's (moves, seats)."""
    game = registry.get(name)
    counts = seat_counts(name)
    worst = (0, 0)
    for seed in range(games):
        seats = counts[seed % len(counts)]
        cap = bound(name, seats)
        out = play(game, seats, {}, seed=seed, max_steps=cap + 1)
        assert out.finished, f"{name}, {seats} seats, seed {seed}: no end in {cap} moves"
        worst = max(worst, (out.steps, seats))
    return worst


@pytest.mark.parametrize(
    "name",  # the Card Game's few games take tens of seconds: make test-full's
    [pytest.param(n, marks=pytest.mark.full) if n == "empire-cards" else n
     for n in registry.names()],
)
def test_random_games_end_within_the_bound(name: str) -> None:
    longest(name, FAST[name])


@pytest.mark.slow
@pytest.mark.timeout(7200)  # empire-cards: ~10-20 min on a busy core
@pytest.mark.parametrize("name", registry.names())
def test_1000_random_games_end_within_the_bound(name: str) -> None:
    moves, seats = longest(name, SLOW_GAMES)
    print(f"\n{name}: {SLOW_GAMES} random games ended; longest {moves} moves ({seats} seats), "
          f"bound {bound(name, seats)}")


@pytest.mark.parametrize("name", registry.names())
def test_a_table_of_seats_that_always_time_out_ends(name: str) -> None:
    """Every seat plays its timeout default (what the adjudicator applies to absent players):
    the game still ends in bounds (E-S1: claim defaults differ per seat)."""
    game = registry.get(name)
    for seats in seat_counts(name):
        cap = bound(name, seats)
        out = play(game, seats, {}, seed=seats, max_steps=cap + 1,
                   actors=dict.fromkeys(range(seats), default_actor),
                   choosers=dict.fromkeys(range(seats), default_chooser))
        assert out.finished, f"{name}, {seats} seats of defaults: no end in {cap} moves"
