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

from shared.rules._kit.model import Events
from shared.rules.api import Json, SealedSlot, Simultaneous
from shared.rules.empire_engine.actions import GEAR_PUBLIC_KEYS, ROUND1_PUBLIC_KEYS
from shared.rules.empire_engine.data import (
    CYCLE,
    ENGINES,
    GEAR_TURNS,
    GEARS,
    MAX_SEATS,
    MIN_SEATS,
    ROUND1_DEFAULT_TOP,
    TOPS,
    Boost,
    EngineName,
    orientation_for,
    other_engine,
    other_gear,
)
from shared.rules.empire_engine.state import Placement, State

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


BOOSTS: dict[tuple[bool, bool], tuple[Boost, ...]] = {  # (has a Soldier, has a Good) ->
    (False, False): ("none",), (True, False): ("none", "soldier"),
    (False, True): ("none", "good"), (True, True): ("none", "soldier", "good")}

# Each allowed tuple is made once (round 1, or per set of affordable boosts) and shared by
# every slot that offers it (never changed).
ALLOWED: dict[tuple[Boost, ...] | None, tuple[Json, ...]] = {
    None: tuple({"engine": e, "top": a} for e in ENGINES for a in CYCLE[e]),  # EE-1
    **{boosts: tuple({"engine": e, "gear": g, "boost": b}  # EE-2
                     for e in ENGINES for g in GEARS for b in boosts)
       for boosts in BOOSTS.values()}}
# id of each allowed tuple -> the ids of its values: a choice that is one of those very
# objects (a caller that picks from the slot's list passes it) is allowed, and is plain JSON
# (str and int values) as built above. The tuples live as long as the module, so their ids
# and their values' ids name them alone.
LISTED: dict[int, frozenset[int]] = {
    id(values): frozenset(id(v) for v in values) for values in ALLOWED.values()}
# id of each listed value -> the id of the allowed tuple holding it (``listed_choices``)
LISTED_IN: dict[int, int] = {
    id(v): id(values) for values in ALLOWED.values() for v in values}


@lru_cache(maxsize=1024)
def _slot(seat: int, placement: int, round_: int, boosts: tuple[Boost, ...] | None
          ) -> SealedSlot:
    """One seat's slot: the same for every state with this seat, placement, round and
    affordable boosts (``None`` in round 1). Made once and shared: neither the slot nor its
    allowed and default values are ever changed."""
    engine: EngineName = ENGINES[placement - 1]  # default: L first, R second
    default: Json
    if boosts is None:  # EE-1
        default = {"engine": engine, "top": ROUND1_DEFAULT_TOP[engine]}
        public = ROUND1_PUBLIC_KEYS
    else:  # EE-2
        default = {"engine": engine, "gear": GEARS[placement - 1], "boost": "none"}
        public = GEAR_PUBLIC_KEYS
    return SealedSlot(seat=seat, key=slot_key(seat, placement),
                     allowed=ALLOWED[boosts], default=default, public_keys=public,
                     context={"round": round_, "placement": placement,
                              "kind": "engine" if boosts is None else "gear"})


@lru_cache(maxsize=4096)
def _slots(n_seats: int, start_player: int, round_: int,
           boosts: tuple[tuple[Boost, ...], ...] | None) -> tuple[SealedSlot, ...]:
    order = ORDERS[n_seats][start_player]
    return tuple(_slot(seat, placement, round_, None if boosts is None else boosts[seat])
                 for seat, placement in [(s, 1) for s in order] + [(s, 2) for s in order[::-1]])


def _all_boosts(state: State) -> tuple[tuple[Boost, ...], ...] | None:
    """Each seat's affordable boosts (EE-2: a Soldier or a Good from its ready pile), or None
    in round 1 (EE-1)."""
    if state.round == 1:
        return None
    return tuple([BOOSTS[p.ready.soldiers >= 1, p.ready.goods >= 1] for p in state.players])


def plan_slots(state: State) -> tuple[SealedSlot, ...]:
    """The Plan phase's slots in commit order (``plan_order``)."""
    return _slots(state.n_seats, state.start_player, state.round, _all_boosts(state))


# A node's slot keys and the id of each slot's allowed tuple, in the slots' order
Checks = tuple[tuple[str, ...], tuple[int, ...]]

# Plan nodes by (table size, start player, round, each seat's affordable boosts as a base-4
# digit, -1 in round 1), and by a node's id its slots' ``Checks``: both emptied together at
# _NODES_MAX nodes (each holds its node, so an id in _CHECKS names that one node).
_NODES: dict[tuple[int, int, int, int], Simultaneous] = {}
_CHECKS: dict[int, tuple[Simultaneous, Checks]] = {}
_NODES_MAX = 4096


def plan_node(state: State) -> Simultaneous:
    """The Plan phase's sealed round (``round_id``, ``plan_slots``): the same node for every
    state with the same table, start player, round and affordable boosts, made once and
    shared (frozen)."""
    code = -1
    if state.round != 1:  # EE-2: what each seat can put on a gear
        code = 0
        for p in state.players:
            ready = p.ready
            code = code * 4 + (ready.soldiers >= 1) + 2 * (ready.goods >= 1)
    key = (state.n_seats, state.start_player, state.round, code)
    node = _NODES.get(key)
    if node is None:
        if len(_NODES) >= _NODES_MAX:
            _NODES.clear()
            _CHECKS.clear()
        node = _NODES[key] = Simultaneous(
            round_id=f"plan:{state.round}", ordered=True,
            slots=_slots(state.n_seats, state.start_player, state.round, _all_boosts(state)))
        _CHECKS[id(node)] = (node, (tuple(slot.key for slot in node.slots),
                                    tuple(id(slot.allowed) for slot in node.slots)))
    return node


def listed_choices(node: Simultaneous, choices: dict[str, Json]) -> bool:
    """``choices`` holds, for exactly the slots of ``node`` (a Plan node ``plan_node`` made)
    and in their order (as a caller that goes through the slots builds it), one of each
    slot's listed values itself. False does not make the choices illegal: the kit's guards
    decide those."""
    known = _CHECKS.get(id(node))
    if known is None or known[0] is not node:
        return False
    keys, allowed = known[1]
    return (tuple(choices) == keys
            and tuple(map(LISTED_IN.get, map(id, choices.values()))) == allowed)


_OTHER_ENGINE: dict[str, EngineName] = {e: other_engine(e) for e in ENGINES}
_OTHER_GEAR: dict[int, int] = {g: other_gear(g) for g in GEARS}
_ORIENTATION: dict[tuple[str, str], int] = {  # (engine, action on top) -> orientation_for
    (e, a): orientation_for(e, a) for e in ENGINES for a in CYCLE[e]}
_TOPS_L, _TOPS_R = TOPS["L"], TOPS["R"]
# A seat's two placements and their JSON (``Placement.as_json``, copied into each reveal
# event) by everything they hold, made once: a Placement is never changed (clones share
# them), so every state that reveals the same pair shares it too.
Pair = tuple[Placement, Placement, dict[str, Json], dict[str, Json]]
_PAIRS: dict[tuple[Any, ...], Pair] = {}


def _pair(first: Placement, second: Placement) -> Pair:
    return first, second, first.as_json(), second.as_json()


def _resolve_round1(state: State, seat: int, c1: dict[str, Any], c2: dict[str, Any]
                    ) -> Pair:
    e1: EngineName = c1["engine"]
    e2 = _OTHER_ENGINE[e1]
    overridden = c2["engine"] != e2
    top2 = ROUND1_DEFAULT_TOP[e2] if overridden else c2["top"]
    o1, o2 = _ORIENTATION[e1, c1["top"]], _ORIENTATION[e2, top2]
    state.players[seat].engines = (o1, o2) if e1 == "L" else (o2, o1)
    key = (seat, e1, c1["top"], top2, overridden)
    pair = _PAIRS.get(key)
    if pair is None:
        pair = _PAIRS[key] = _pair(Placement(seat, 1, e1, c1["top"]),
                                   Placement(seat, 2, e2, top2, overridden=overridden))
    return pair


def _resolve_gears(state: State, seat: int, c1: dict[str, Any], c2: dict[str, Any]
                   ) -> Pair:
    player = state.players[seat]
    engines = player.engines
    assert engines is not None
    e1: EngineName = c1["engine"]
    g1: int = c1["gear"]
    e2, g2 = _OTHER_ENGINE[e1], _OTHER_GEAR[g1]
    overridden = c2["engine"] != e2 or c2["gear"] != g2
    boost1: Boost = c1["boost"]
    boost2: Boost = c2["boost"]
    if boost1 != "none" or boost2 != "none":
        ready, returned = player.ready, state.returned
        if boost1 != "none":  # EE-3: the resource leaves the ready pile at placement ...
            ready.add(boost1, -1)
            returned.add(boost1)  # ... and is spent to the stock at reveal
        if boost2 != "none":
            if ready.get(boost2) < 1:  # cannot spend what the first gear already took
                boost2, overridden = "none", True
            else:
                ready.add(boost2, -1)
                returned.add(boost2)
    turns1, turns2 = GEAR_TURNS[g1][boost1 != "none"], GEAR_TURNS[g2][boost2 != "none"]
    if e1 == "L":
        orient_l, orient_r = (engines[0] + turns1) % 4, (engines[1] + turns2) % 4
        top1, top2 = _TOPS_L[orient_l], _TOPS_R[orient_r]
    else:
        orient_r, orient_l = (engines[1] + turns1) % 4, (engines[0] + turns2) % 4
        top1, top2 = _TOPS_R[orient_r], _TOPS_L[orient_l]
    player.engines = (orient_l, orient_r)
    key = (seat, e1, g1, boost1, top1, top2, boost2, overridden)  # e2, g2, turns follow
    pair = _PAIRS.get(key)
    if pair is None:
        pair = _PAIRS[key] = _pair(Placement(seat, 1, e1, top1, g1, boost1, turns1),
                                   Placement(seat, 2, e2, top2, g2, boost2, turns2, overridden))
    return pair


_KEYS = tuple((f"s{seat}:1", f"s{seat}:2") for seat in range(MAX_SEATS))  # slot_key
_SEAT_KEYS = tuple(str(seat) for seat in range(MAX_SEATS))  # a seat as a JSON object key


def resolve_plan(state: State, choices: dict[str, Json], events: Events) -> None:
    """Apply the choices of a checked JointAction of the Plan phase (each one of its slot's
    allowed values): flip or rotate every engine, in place."""
    placements: list[Placement] = []
    shown: list[dict[str, Json]] = []  # their JSON, in the same order
    resolve = _resolve_round1 if state.round == 1 else _resolve_gears
    for seat in turn_order(state):
        first, second = _KEYS[seat]
        p1, p2, j1, j2 = resolve(state, seat, choices[first], choices[second])  # type: ignore[arg-type]
        placements += (p1, p2)
        shown += (j1, j2)
    state.placements = tuple(placements)
    state.attacks = ()
    if events.keep:
        tops: dict[str, Json] = {
            _SEAT_KEYS[seat]: {"L": _TOPS_L[p.engines[0]], "R": _TOPS_R[p.engines[1]]}
            for seat, p in enumerate(state.players)
            if p.engines is not None
        }
        events.add("plan_revealed", {"round": state.round,
                                     "placements": [j.copy() for j in shown], "tops": tops})
