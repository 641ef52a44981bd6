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

from shared.rules._kit.model import event
from shared.rules.api import Event, Json, SealedSlot
from shared.rules.empire_engine.actions import (
    GEAR_PUBLIC_KEYS,
    ROUND1_PUBLIC_KEYS,
    EngineChoice,
    GearChoice,
)
from shared.rules.empire_engine.data import (
    CYCLE,
    ENGINES,
    GEARS,
    ROUND1_DEFAULT_TOP,
    Boost,
    EngineName,
    gear_turns,
    orientation_for,
    other_engine,
    other_gear,
    top_action,
)
from shared.rules.empire_engine.state import Placement, Player, State


def turn_order(state: State) -> list[int]:
    """Seats clockwise from the start player (start player first)."""
    n = state.n_seats
    return [(state.start_player + k) % n for k in range(n)]


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


def plan_slots(state: State) -> tuple[SealedSlot, ...]:
    slots: list[SealedSlot] = []
    first = state.round == 1
    for seat, placement in plan_order(state):
        engine: EngineName = ENGINES[placement - 1]  # default: L first, R second
        allowed: tuple[Json, ...]
        default: Json
        if first:  # EE-1
            allowed = tuple({"engine": e, "top": a} for e in ENGINES for a in CYCLE[e])
            default = {"engine": engine, "top": ROUND1_DEFAULT_TOP[engine]}
            public = ROUND1_PUBLIC_KEYS
        else:  # EE-2
            allowed = tuple(
                {"engine": e, "gear": g, "boost": b}
                for e in ENGINES
                for g in GEARS
                for b in _boosts(state.players[seat])
            )
            default = {"engine": engine, "gear": GEARS[placement - 1], "boost": "none"}
            public = GEAR_PUBLIC_KEYS
        slots.append(
            SealedSlot.model_construct(  # engine-made values: no validation (hot in search)
                seat=seat,
                key=slot_key(seat, placement),
                allowed=allowed,
                default=default,
                public_keys=public,
                context={
                    "round": state.round,
                    "placement": placement,
                    "kind": "engine" if first else "gear",
                },
            )
        )
    return tuple(slots)


def _resolve_round1(
    seat: int, c1: EngineChoice, c2: EngineChoice
) -> tuple[Placement, Placement, tuple[int, int]]:
    e2 = other_engine(c1.engine)
    overridden = c2.engine != e2
    top2 = ROUND1_DEFAULT_TOP[e2] if overridden else c2.top
    p1 = Placement(seat=seat, order=1, engine=c1.engine, top=c1.top)
    p2 = Placement(seat=seat, order=2, engine=e2, top=top2, overridden=overridden)
    orient = {c1.engine: orientation_for(c1.engine, c1.top), e2: orientation_for(e2, top2)}
    return p1, p2, (orient["L"], orient["R"])


def _resolve_gears(
    seat: int, player: Player, c1: GearChoice, c2: GearChoice
) -> tuple[Placement, Placement, Player]:
    assert player.engines is not None
    e2, g2 = other_engine(c1.engine), other_gear(c1.gear)
    overridden = c2.engine != e2 or c2.gear != g2
    ready = player.ready
    boost2 = c2.boost
    if c1.boost != "none":  # EE-3: the resource leaves the ready pile at placement
        ready = ready.add(c1.boost, -1)
    if boost2 != "none" and ready.get(boost2) < 1:
        boost2, overridden = "none", True  # cannot spend what the first gear already took
    if boost2 != "none":
        ready = ready.add(boost2, -1)
    orient = dict(zip(ENGINES, player.engines, strict=True))
    placements = []
    for order, (engine, gear, boost, over) in enumerate(
        ((c1.engine, c1.gear, c1.boost, False), (e2, g2, boost2, overridden)), start=1
    ):
        turns = gear_turns(gear, boost != "none")
        orient[engine] = (orient[engine] + turns) % 4
        placements.append(
            Placement(
                seat=seat,
                order=order,
                engine=engine,
                gear=gear,
                boost=boost,
                turns=turns,
                top=top_action(engine, orient[engine]),
                overridden=over,
            )
        )
    new_player = player.model_copy(update={"ready": ready, "engines": (orient["L"], orient["R"])})
    return placements[0], placements[1], new_player


def resolve_plan(state: State, choices: dict[str, Json]) -> tuple[State, list[Event]]:
    """Apply a validated JointAction of the Plan phase: flip/rotate every engine."""
    players = list(state.players)
    placements: list[Placement] = []
    returned = state.returned
    for seat in turn_order(state):
        raw1, raw2 = choices[slot_key(seat, 1)], choices[slot_key(seat, 2)]
        if state.round == 1:
            r1, r2 = EngineChoice.model_validate(raw1), EngineChoice.model_validate(raw2)
            p1, p2, engines = _resolve_round1(seat, r1, r2)
            players[seat] = players[seat].model_copy(update={"engines": engines})
        else:
            g1, g2 = GearChoice.model_validate(raw1), GearChoice.model_validate(raw2)
            p1, p2, players[seat] = _resolve_gears(seat, players[seat], g1, g2)
            for p in (p1, p2):
                if p.boost != "none":  # EE-3: spent to the stock at reveal
                    returned = returned.add(p.boost)
        placements += [p1, p2]
    new = state.model_copy(
        update={
            "players": tuple(players),
            "placements": tuple(placements),
            "attacks": (),
            "returned": returned,
        }
    )
    tops = {
        str(seat): {"L": top_action("L", p.engines[0]), "R": top_action("R", p.engines[1])}
        for seat, p in enumerate(new.players)
        if p.engines is not None
    }
    ev = event(
        type="plan_revealed",
        data={
            "round": state.round,
            "placements": [p.model_dump(mode="json") for p in placements],
            "tops": tops,
        },
    )
    return new, [ev]
