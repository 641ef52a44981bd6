"""The Plan phase: fixed-order sealed placements (EE-1, EE-2) and their reveal (EE-3).

The escrow collects one sealed choice per slot in the fixed order of the rulebook (start
player clockwise, then back anticlockwise from the last player), publishes each choice's
public keys as it is committed, and hands the engine one ``JointAction`` after all commits.

Cross-slot rule (the escrow checks every slot on its own): a seat's SECOND placement always
uses the engine and the gear its first placement did not use ("places their other Gear
below their other Engine"). Deterministically, when the JointAction is applied:

* round 1: if the second slot names the same engine as the first, it is replaced by the
  other engine showing ``ROUND1_DEFAULT_TOP`` (its slot-default action);
* later rounds: the second slot's engine and gear are replaced by the unused ones (its
  boost is kept); a boost whose resource the first placement already used up is dropped.

A replaced placement is revealed with ``overridden: true``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from shared.rules._kit.model import Events, construct
from shared.rules.api import Json, SealedSlot
from shared.rules.empire_engine.actions import GEAR_PUBLIC_KEYS, ROUND1_PUBLIC_KEYS
from shared.rules.empire_engine.data import (
    CYCLE,
    ENGINES,
    GEARS,
    MAX_SEATS,
    MIN_SEATS,
    ROUND1_DEFAULT_TOP,
    TOPS,
    Boost,
    EngineName,
    gear_turns,
    orientation_for,
    other_engine,
    other_gear,
)
from shared.rules.empire_engine.state import Placement, Player, State

# seats clockwise from each start player, per table size
ORDERS: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple((start + k) % n for k in range(n)) for start in range(n))
    for n in range(MIN_SEATS, MAX_SEATS + 1)}


def turn_order(state: State) -> tuple[int, ...]:
    """Seats clockwise from the start player (start player first)."""
    return ORDERS[state.n_seats][state.start_player]


def plan_order(state: State) -> list[tuple[int, int]]:
    """(seat, placement 1|2) in commit order: clockwise, then back anticlockwise."""
    cw = turn_order(state)
    return [(s, 1) for s in cw] + [(s, 2) for s in reversed(cw)]


def round_id(state: State) -> str:
    return f"plan:{state.round}"


def slot_key(seat: int, placement: int) -> str:
    return f"s{seat}:{placement}"


def _boosts(player: Player) -> tuple[Boost, ...]:
    out: list[Boost] = ["none"]
    if player.ready.soldiers >= 1:
        out.append("soldier")
    if player.ready.goods >= 1:
        out.append("good")
    return tuple(out)


@lru_cache(maxsize=4096)
def _slot(seat: int, placement: int, round_: int, boosts: tuple[Boost, ...] | None
          ) -> SealedSlot:
    """One seat's slot: the same for every state with this seat, placement, round and
    affordable boosts (``None`` in round 1). Made once and shared: neither the slot nor its
    allowed and default values are ever changed."""
    engine: EngineName = ENGINES[placement - 1]  # default: L first, R second
    allowed: tuple[Json, ...]
    default: Json
    if boosts is None:  # EE-1
        allowed = tuple({"engine": e, "top": a} for e in ENGINES for a in CYCLE[e])
        default = {"engine": engine, "top": ROUND1_DEFAULT_TOP[engine]}
        public = ROUND1_PUBLIC_KEYS
    else:  # EE-2
        allowed = tuple({"engine": e, "gear": g, "boost": b}
                        for e in ENGINES for g in GEARS for b in boosts)
        default = {"engine": engine, "gear": GEARS[placement - 1], "boost": "none"}
        public = GEAR_PUBLIC_KEYS
    return construct(SealedSlot, seat=seat, key=slot_key(seat, placement), allowed=allowed,
                     default=default, public_keys=public,
                     context={"round": round_, "placement": placement,
                              "kind": "engine" if boosts is None else "gear"})


def plan_slots(state: State) -> tuple[SealedSlot, ...]:
    first = state.round == 1
    players = state.players
    return tuple(_slot(seat, placement, state.round,
                       None if first else _boosts(players[seat]))
                 for seat, placement in plan_order(state))


def _resolve_round1(player: Player, seat: int, c1: dict[str, Any], c2: dict[str, Any]
                    ) -> tuple[Placement, Placement]:
    e1: EngineName = c1["engine"]
    e2 = other_engine(e1)
    overridden = c2["engine"] != e2
    top2 = ROUND1_DEFAULT_TOP[e2] if overridden else c2["top"]
    p1 = Placement(seat=seat, order=1, engine=e1, top=c1["top"])
    p2 = Placement(seat=seat, order=2, engine=e2, top=top2, overridden=overridden)
    o1, o2 = orientation_for(e1, c1["top"]), orientation_for(e2, top2)
    player.engines = (o1, o2) if e1 == "L" else (o2, o1)
    return p1, p2


def _geared(state: State, orient: dict[str, int], seat: int, order: int, engine: EngineName,
            gear: int, boost: Boost, overridden: bool) -> Placement:
    """One gear placement: turn the engine (``orient``), spend the boost (EE-3)."""
    turns = gear_turns(gear, boost != "none")
    orient[engine] = (orient[engine] + turns) % 4
    if boost != "none":  # EE-3: spent to the stock at reveal
        state.returned.add(boost)
    return Placement(seat=seat, order=order, engine=engine, gear=gear, boost=boost, turns=turns,
                     top=TOPS[engine][orient[engine]], overridden=overridden)


def _resolve_gears(state: State, player: Player, seat: int, c1: dict[str, Any],
                   c2: dict[str, Any]) -> tuple[Placement, Placement]:
    assert player.engines is not None
    e1: EngineName = c1["engine"]
    g1: int = c1["gear"]
    e2, g2 = other_engine(e1), other_gear(g1)
    overridden = c2["engine"] != e2 or c2["gear"] != g2
    ready = player.ready
    boost1: Boost = c1["boost"]
    boost2: Boost = c2["boost"]
    if boost1 != "none":  # EE-3: the resource leaves the ready pile at placement
        ready.add(boost1, -1)
    if boost2 != "none" and ready.get(boost2) < 1:
        boost2, overridden = "none", True  # cannot spend what the first gear already took
    if boost2 != "none":
        ready.add(boost2, -1)
    orient = {"L": player.engines[0], "R": player.engines[1]}
    p1 = _geared(state, orient, seat, 1, e1, g1, boost1, False)
    p2 = _geared(state, orient, seat, 2, e2, g2, boost2, overridden)
    player.engines = (orient["L"], orient["R"])
    return p1, p2


def resolve_plan(state: State, choices: dict[str, Json], events: Events) -> None:
    """Apply the choices of a checked JointAction of the Plan phase (each one of its slot's
    allowed values): flip or rotate every engine, in place."""
    placements: list[Placement] = []
    players = state.players
    for seat in turn_order(state):
        c1: Any = choices[slot_key(seat, 1)]
        c2: Any = choices[slot_key(seat, 2)]
        if state.round == 1:
            p1, p2 = _resolve_round1(players[seat], seat, c1, c2)
        else:
            p1, p2 = _resolve_gears(state, players[seat], seat, c1, c2)
        placements += [p1, p2]
    state.placements = tuple(placements)
    state.attacks = ()
    if events.keep:
        tops: dict[str, Json] = {
            str(seat): {"L": TOPS["L"][p.engines[0]], "R": TOPS["R"][p.engines[1]]}
            for seat, p in enumerate(players)
            if p.engines is not None
        }
        events.add("plan_revealed", {"round": state.round,
                                     "placements": [p.as_json() for p in placements],
                                     "tops": tops})
