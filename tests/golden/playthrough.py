"""Golden playthroughs (OpenSpiel's integration_tests/playthroughs): one seeded game per file.

Each ``tests/golden/<game>-<variant>.json`` holds a whole game played by seat 0 at random and
the other seats by the game's heuristic bot (draws from a fixed key): every move, and after
each one a digest of the engine state and of the events it produced; every ``VIEWS_EVERY``
steps and at the end a digest of every seat's view and the spectator's; the final state's
full hash, the score, and the ``rules_version`` it was played with. ``test_golden.py``
replays the moves (``shared.rules.replay``, which refuses another ``rules_version``) and
compares everything.

A change of behaviour shows as a failing replay. A deliberate one: bump the game's
``rules_version`` or regenerate with ``make golden`` and read the diff: one line per step, so a
change of state representation alone (same rules) changes only the ``"state"`` digests, never
the ``"events"``, ``"views"`` or ``"score"``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shared.ai import registry as ai
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules import registry
from shared.rules._kit.playout import Actor, Chooser, play
from shared.rules.api import Event, Game, Json, to_json
from shared.rules.replay import transitions

HERE = Path(__file__).parent
VIEWS_EVERY = 25
SHORT = 16  # hex digits of a per-step digest (the final state's hash is whole)


@dataclass(frozen=True)
class Variant:
    game: str
    name: str
    n_seats: int
    options: dict[str, Json]
    seed: int

    @property
    def path(self) -> Path:
        return HERE / f"{self.game}-{self.name}.json"


VARIANTS: tuple[Variant, ...] = (
    Variant("duel", "2p", 2, {"rounds": 8}, 1),
    Variant("duel", "4p-no-dice", 4, {"rounds": 5, "with_dice": False}, 2),
    Variant("empire", "beginner-3p", 3, {"version": "beginner"}, 3),
    Variant("empire", "standard-5p-cap", 5, {"claim_collision_cap": 2}, 4),
    Variant("empire-engine", "2p", 2, {}, 5),
    Variant("empire-engine", "4p-long-open-scores", 4,
            {"long_game": True, "hidden_score_piles": False, "random_start_player": False}, 6),
    Variant("empire-nyc", "3p", 3, {}, 7),
    Variant("empire-nyc", "5p-missions", 5, {"missions": True, "extra_links": True}, 8),
    Variant("empires-end", "2p", 2, {}, 9),
    Variant("empires-end", "4p-no-reshuffle", 4,
            {"reshuffle_discards": False, "random_first_player": False}, 10),
    Variant("empire-cards", "3p-one-hand", 3, {"max_hands": 1, "max_turns_per_hand": 60}, 11),
    Variant("empire-cards", "5p-expert", 5,
            {"expert_spells": True, "max_hands": 2, "max_turns_per_hand": 40}, 12),
)


def digest(value: Any, size: int = SHORT) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:size]


def state_digest(game: Game, state: Any, size: int = SHORT) -> str:
    return digest(game.encode(state), size)


def events_digest(events: Sequence[Event]) -> str:
    return digest([to_json(e) for e in events])


def views_digest(game: Game, state: Any, n_seats: int, size: int = SHORT) -> str:
    return digest([game.view(state, seat) for seat in [*range(n_seats), None]], size)


def trace(game: Game, n_seats: int, moves: Sequence[tuple[Any, Any, Any]]
          ) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Per-step digests and the view checkpoints of ``(state before, move, transition)``."""
    steps: list[dict[str, Any]] = []
    views: dict[str, str] = {}
    for i, (before, move, result) in enumerate(moves):
        if i % VIEWS_EVERY == 0:
            views[str(i)] = views_digest(game, before, n_seats)
        steps.append({"move": to_json(move),
                      "state": state_digest(game, result.state),
                      "events": events_digest(result.events)})
    return steps, views


def record(v: Variant) -> dict[str, Any]:
    """Play the variant and return its golden document."""
    game = registry.get(v.game)
    bot = ai.get_bot(v.game)
    if isinstance(getattr(bot, "rng", None), random.Random):  # bots seed from the OS: not here
        bot.rng.seed(v.seed)
    actors: dict[int, Actor] = {i: bot_actor(bot) for i in range(1, v.n_seats)}
    choosers: dict[int, Chooser] = {i: bot_chooser(bot) for i in range(1, v.n_seats)}
    out = play(game, v.n_seats, v.options, seed=v.seed, actors=actors, choosers=choosers)
    if not out.finished:
        raise AssertionError(f"{v.game}-{v.name} did not end")
    # the playout's moves, re-applied: the same function the test uses
    log = [{"move": to_json(m)} for m in out.moves]
    replayed = list(transitions(v.game, v.options, v.n_seats, log))
    steps, views = trace(game, v.n_seats, replayed)
    final = replayed[-1][2].state
    return {
        "game": v.game, "variant": v.name, "rules_version": game.rules_version,
        "n_seats": v.n_seats, "options": v.options, "seed": v.seed,
        "players": "seat 0 random, the others the heuristic bot; draws from the seed's key",
        "views_every": VIEWS_EVERY, "steps": steps, "views": views,
        "final": {"steps": len(steps), "state": state_digest(game, final, 64),
                  "views": views_digest(game, final, v.n_seats, 64),
                  "score": game.score(final).model_dump(mode="json")},
    }


def dumps(doc: dict[str, Any]) -> str:
    """The document with one step (and one view checkpoint) per line: a readable diff."""
    def line(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    parts = []
    for key, value in doc.items():
        if key == "steps":
            body = ",\n".join(f"  {line(s)}" for s in value)
            parts.append(f' "steps": [\n{body}\n ]')
        elif key == "views":
            body = ",\n".join(f"  {line(k)}: {line(d)}" for k, d in value.items())
            parts.append(f' "views": {{\n{body}\n }}')
        else:
            parts.append(f" {line(key)}: {line(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def load(path: Path) -> dict[str, Any]:
    with path.open() as f:
        return json.load(f)  # type: ignore[no-any-return]


def main(argv: list[str]) -> int:
    """``make golden``: regenerate every file (or those whose name contains an argument)."""
    for v in VARIANTS:
        if argv and not any(a in v.path.name for a in argv):
            continue
        doc = record(v)
        v.path.write_text(dumps(doc))
        print(f"{v.path.relative_to(HERE.parent.parent)}: {doc['final']['steps']} steps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
