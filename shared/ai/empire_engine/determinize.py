"""Search support for The Empire Engine: a full state from one seat's view, and a
position's estimated win chances.

``determinize`` reads only the view. Everything public (ready piles, engine orientations, the
revealed plan and attacks, who is awaited) is copied. Only the opponents' score piles are
hidden (EE-12, when ``hidden_score_piles`` is on), and the view does not carry them, so they
are sampled: each type is the seat's own count plus a draw from -1, 0 or +1, never below 0.
Sealed plan choices never reach the state at all: the search draws the other seats' choices
itself. The stock accounting (``supplied``/``returned``) never affects play, so it starts at
zero.

A player who watched every public event knows those piles but for one thing: every
resource enters a score pile by a public event (Invent, Export, a loot's type, a block's
Soldier), except that a Salvage shows only that something was taken. ``remember`` keeps that
tally from the events the seat's client received, and ``recall`` determinizes with it: the
known counts, and each unknown salvage drawn as one of the three types. One hard seat among
heuristic seats (3 seats, the same 30 seeds) takes 0.23 first places sampling the piles
without the tally, 0.61 searching from the true state and 0.62 with the tally
(bench/README.md, the bot ladder).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from shared.ai.search.spec import SearchSpec, win_shares
from shared.rules.api import Json
from shared.rules.empire_engine.scoring import points
from shared.rules.empire_engine.state import (
    FIELD,
    Attack,
    Counts,
    Options,
    Placement,
    Player,
    State,
)

_FIELDS: tuple[str, ...] = tuple(FIELD.values())  # the Counts fields, one per resource
_FIELD_OF: dict[str, str] = {str(r): f for r, f in FIELD.items()}  # (any string an event carries)


def _counts(data: Any) -> Counts:
    return Counts(soldiers=int(data["soldiers"]), goods=int(data["goods"]),
                  inventions=int(data.get("inventions", 0)))


def determinize(view: dict[str, Json], seat: int, rng: random.Random) -> State:
    v: dict[str, Any] = view
    mine = _counts(v["players"][seat]["score"])

    def hidden(s: int) -> Counts:  # EE-12: the seat's own pile, give or take one of each type
        return Counts(**{f: max(0, getattr(mine, f) + rng.randint(-1, 1)) for f in _FIELDS})

    return _state(view, hidden)


def _state(view: dict[str, Json], hidden: Callable[[int], Counts]) -> State:
    """The state the view shows, each hidden score pile (EE-12) from ``hidden(seat)``."""
    v: dict[str, Any] = view
    players: list[Player] = []
    for s, p in enumerate(v["players"]):
        score = _counts(p["score"]) if p["score"] is not None else hidden(s)
        engines = p["engines"]
        players.append(Player(
            ready=Counts(soldiers=int(p["ready"]["soldiers"]), goods=int(p["ready"]["goods"])),
            score=score,
            engines=None if engines is None else (int(engines["L"]["orientation"]),
                                                  int(engines["R"]["orientation"])),
        ))
    return State(
        options=Options(**v["options"]),
        n_seats=int(v["n_seats"]),
        rounds=int(v["rounds"]),
        round=int(v["round"]),
        start_player=int(v["start_player"]),
        phase=v["phase"],
        players=tuple(players),
        placements=tuple(Placement(**p) for p in v["placements"]),
        attacks=tuple(Attack(**a) for a in v["attacks"]),
        awaiting=tuple(int(s) for s in v["awaiting"]),
    )


def remember(memory: Json, events: Sequence[dict[str, Json]], seat: int) -> Json:
    """Fold public events into the tally of every score pile (see the module's docstring):
    {"piles": {seat: {"soldiers", "goods", "inventions", "unknown"}}}. It starts at the
    game's first event (``start_player``); a memory that missed it stays None."""
    old: Any = memory
    mem: dict[str, Any] | None = None
    if isinstance(old, dict):
        mem = {"piles": {k: dict(v) for k, v in old["piles"].items()}}
    for e in events:
        kind, raw = e.get("type"), e.get("data")
        if kind == "start_player" and mem is None:
            mem = {"piles": {}}
        if mem is None or e.get("private") or not isinstance(raw, dict):
            continue
        data: dict[str, Any] = raw
        gained: dict[str, int] = {}
        if kind == "invent":
            gained["inventions"] = int(data.get("inventions", 1))
        elif kind == "export":
            gained["goods"] = int(data.get("goods", 0))
        elif kind == "loot":  # "stock": a Soldier from the stock
            gained[_FIELD_OF.get(str(data.get("took")), "soldiers")] = 1
        elif kind == "block":
            gained[_FIELD_OF.get(str(data.get("reward", "soldier")), "soldiers")] = 1
        elif kind == "salvage":  # its type is the salvager's own (EE-12), unless piles are open
            gained[_FIELD_OF.get(str(data.get("took")), "unknown")] = 1
        if gained and "seat" in data:
            pile = mem["piles"].setdefault(
                str(data["seat"]), {"soldiers": 0, "goods": 0, "inventions": 0, "unknown": 0})
            for k, n in gained.items():
                pile[k] += n
    return mem


def recall(view: dict[str, Json], seat: int, rng: random.Random, memory: Json) -> State:
    """``determinize`` with the tally: each hidden pile is what the public record says, and
    each salvage of unknown type is drawn from Soldier, Good and Invention."""
    if not isinstance(memory, dict):
        return determinize(view, seat, rng)
    remembered: Any = memory
    piles: dict[str, Any] = remembered["piles"]

    def hidden(s: int) -> Counts:
        known = piles.get(str(s), {})
        counts = {f: int(known.get(f, 0)) for f in _FIELDS}
        for _ in range(int(known.get("unknown", 0))):
            counts[rng.choice(_FIELDS)] += 1
        return Counts(**counts)

    return _state(view, hidden)


def evaluate(state: State) -> Sequence[float]:
    """Points now (score piles and majority bonuses) plus ready resources, each worth 0.1
    point per round left (at most 0.6); a 2-point lead makes a seat e times likelier."""
    left = state.rounds - state.round
    weight = min(0.6, 0.1 * left)
    strengths = [points(state, s) + weight * p.ready.total() for s, p in enumerate(state.players)]
    return win_shares(strengths, 2.0)


def plans(view: dict[str, Json], seat: int, heuristic: Any, limit: int = 4
          ) -> list[dict[str, Json]]:
    """The seat's whole plans for a Plan round: both placements at once (EE-1, EE-2). The
    second placement uses the other engine (and gear); boosts must be affordable together.
    Only the heuristic's ``limit`` best (``Level.max_plans``; L placed first), its own pick
    first (the pick may be a near-best plan drawn by its jitter: then it is added).

    With all 16-36 plans the easy level's 40 iterations spread too thin and it plays wasted
    plans (Attack with no Soldier, Export with no Goods) often enough that the timeout-only
    seat wins 23-37% against it; with the 4 best it wins 0.97 (bench/README.md).
    """
    v: dict[str, Any] = view
    mine = sorted((s for s in v.get("slots") or [] if s["seat"] == seat),
                  key=lambda s: s["context"]["placement"])
    if len(mine) != 2 or not all(s["allowed"] for s in mine):
        return []
    first, second = mine
    ready = v["players"][seat]["ready"]
    have = {"soldier": int(ready["soldiers"]), "good": int(ready["goods"])}
    out: list[dict[str, Json]] = []
    for c1 in first["allowed"]:
        for c2 in second["allowed"]:
            if c1["engine"] == c2["engine"] or c1.get("gear", 0) == c2.get("gear", 1):
                continue
            spent = [c.get("boost", "none") for c in (c1, c2)]
            if any(spent.count(r) > have[r] for r in have):
                continue
            out.append({first["key"]: c1, second["key"]: c2})
    legal = out
    if hasattr(heuristic, "ranked_plans"):  # the heuristic's ``limit`` best plans only
        best = [{first["key"]: a, second["key"]: b}
                for _, (a, b) in heuristic.ranked_plans(v, seat)[:limit]]
        out = [p for p in best if p in legal]
    if hasattr(heuristic, "plan"):
        left, right = heuristic.plan(v, seat)
        preferred: dict[str, Json] = {first["key"]: left, second["key"]: right}
        if preferred in legal:
            if preferred in out:
                out.remove(preferred)
            out.insert(0, preferred)
    return out


def _heuristic() -> Any:
    from shared.ai.empire_engine.bot import HeuristicBot

    return HeuristicBot()


def _restyle(bot: Any, rng: random.Random) -> None:
    bot.restyle(rng)


SEARCH = SearchSpec(determinize=determinize, evaluate=evaluate, heuristic=_heuristic,
                    plans=plans, remember=remember, recall=recall, restyle=_restyle)
