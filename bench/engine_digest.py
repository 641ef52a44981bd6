"""One sha256 per game, seat count and option set over seeded random playouts: a change that
should not change a game's behaviour must leave every digest byte-identical.

``python -m bench.engine_digest [--only GAME ...] [--seeds N]``. Each playout is driven as
``shared.rules._kit.playout.play`` drives one (the same random seats and dealer draws) and
hashes, at every step: the node, every seat's legal actions, every seat's view and the
spectator's, the stored state (``encode``), the chosen move and the events it made; at the end,
the score. Odd seeds hand the engine a copy of the chosen action (not the listed object), so
both of the kit's act paths (``play_listed`` and the parsed ``play_act``) are covered. Each
seed is then replayed by the game's rollout driver (``registry.get_rollout``), its final
state and step count hashed too.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
from collections.abc import Iterator
from typing import Any

from shared.fairness.draws import draw
from shared.rules import registry
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Game,
    JointAction,
    Json,
    Move,
    Rejection,
    Simultaneous,
    Terminal,
    Turn,
    to_json,
)

# option sets per game beside the defaults: each flag of the variant flipped at least once
OPTION_SETS: dict[str, tuple[dict[str, Json], ...]] = {
    "empire-cards": (
        {},
        {"expert_spells": True, "battle_demand": "rank_suit"},
        {"first_dealer": "rps", "perfect_deal": True, "steal_own_pile": False},
        {"first_round_sets": False, "max_hands": 2, "max_rounds_per_hand": 10,
         "expert_spells": True},
    ),
    "empire-nyc": (
        {},
        {"missions": True, "extra_links": True},
        {"eliminated_cards": "discard", "forced_trade": True, "defender_chooses_dice": False},
        {"missions": True, "forced_trade": True, "max_rounds": 8},
    ),
}
MAX_STEPS = 20_000


def _dump(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr).encode()


def _pick(rng: random.Random, seq: Any) -> Any:
    """``rng.choice(seq)`` as ``play`` makes it (``getrandbits`` until below ``len``)."""
    n = len(seq)
    bits = n.bit_length()
    at = rng.getrandbits(bits)
    while at >= n:
        at = rng.getrandbits(bits)
    return seq[at]


def _playout(game: Game, n_seats: int, options: dict[str, Json], seed: int,
             out: Any) -> None:
    rng = random.Random(seed)
    key = seed.to_bytes(8, "big") * 4
    state = game.setup(options, n_seats)
    seats = range(n_seats)
    for _ in range(MAX_STEPS):
        node = game.next(state)
        out.update(_dump(to_json(node)))
        out.update(_dump(game.encode(state)))
        for seat in seats:
            out.update(_dump(list(game.legal_actions(state, seat))))
            out.update(_dump(game.view(state, seat)))
        out.update(_dump(game.view(state, None)))
        move: Move
        if type(node) is Terminal:
            break
        if type(node) is Turn:
            seat = _pick(rng, node.seats or node.open_to)
            action = _pick(rng, game.legal_actions(state, seat))  # the list the engine memos
            if seed % 2:
                action = copy.deepcopy(action)
            move = Act(seat=seat, action=action)
        elif type(node) is Chance:
            values = draw(key, node.label, node.draw, node.n, node.count)
            move = ChanceOutcome(label=node.label, values=tuple(values))
        elif type(node) is Simultaneous:
            choices: dict[str, Json] = {}
            for slot in node.slots:
                choices[slot.key] = _pick(rng, slot.allowed) if slot.allowed else slot.default
            move = JointAction(round_id=node.round_id, choices=choices)
        else:  # pragma: no cover - the Node union is closed
            raise AssertionError(node)
        out.update(_dump(to_json(move)))
        result = game.apply(state, move)
        if isinstance(result, Rejection):
            raise AssertionError(f"{game.name} seed {seed}: rejected {move!r}: {result}")
        for event in result.events:
            out.update(_dump(to_json(event)))
        state = result.state
    else:
        raise AssertionError(f"{game.name} seed {seed}: no end in {MAX_STEPS} steps")
    out.update(_dump(to_json(game.score(state))))


def _rollout(name: str, n_seats: int, options: dict[str, Json], seed: int, out: Any) -> None:
    game = registry.get(name)
    driver = registry.get_rollout(name)
    done = driver.play_random(n_seats, options, seed=seed)
    out.update(_dump([done.steps, done.finished, game.encode(driver.to_state(done.state))]))


def digests(name: str, seeds: int) -> Iterator[tuple[int, int, str]]:
    """(seat count, option set's index, sha256) for each seat count and option set."""
    game = registry.get(name)
    for n_seats in range(game.min_seats, game.max_seats + 1):
        for index, options in enumerate(OPTION_SETS.get(name, ({},))):
            out = hashlib.sha256()
            for seed in range(seeds):
                _playout(game, n_seats, options, seed, out)
                _rollout(name, n_seats, options, seed, out)
            yield n_seats, index, out.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=list(OPTION_SETS))
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args()
    for name in args.only:
        for n_seats, index, digest in digests(name, args.seeds):
            options = OPTION_SETS.get(name, ({},))[index]
            print(f"{name} seats={n_seats} options={_dump(options).decode()} {digest}",
                  flush=True)


if __name__ == "__main__":
    main()
