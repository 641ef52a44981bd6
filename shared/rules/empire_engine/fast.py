"""The Empire Engine on a compact state, for playouts (issue 22; see ``_kit/fast.py``).

The same rules as ``planning.py`` and ``execute.py`` (EE-1 to EE-15), on plain lists: each
player is ``[ready soldiers, ready goods, score soldiers, score goods, score inventions,
L orientation, R orientation]`` (orientation -1 before round 1), an attack is
``[attacker, engine, target, status, loot]``. ``tests/property/test_fast_engines.py`` proves
it equal to the contract path move by move; a rules change goes into both.
"""

from __future__ import annotations

import random
from typing import Any

from shared.fairness.draws import draw
from shared.rules._kit.fast import FastMove, FastPlayout, OnStep, random_player
from shared.rules._kit.model import construct
from shared.rules.api import Json, RuleError
from shared.rules.empire_engine.data import (
    ARM_SOLDIERS,
    CYCLE,
    ENGINES,
    GEAR_TURNS,
    GEARS,
    INVENT_INVENTIONS,
    LONG_GAME_ROUNDS,
    MAX_SEATS,
    MIN_SEATS,
    PRODUCE_GOODS,
    ROUND1_DEFAULT_TOP,
    ROUNDS_BY_SEATS,
    SETUP_READY_GOODS,
    SETUP_READY_SOLDIERS,
    EngineName,
    orientation_for,
    top_action,
)
from shared.rules.empire_engine.state import Attack, Counts, Options, Placement, Player, State

START_LABEL = "start-player"  # engine.START_LABEL
RS, RG, SS, SG, SI, EL, ER = range(7)  # a player's list
READY = {"soldier": RS, "good": RG}
SCORE = {"soldier": SS, "good": SG, "invention": SI}
SUPPLY = {"soldier": 0, "good": 1, "invention": 2}
TOPS = tuple(tuple(top_action(e, o) for o in range(4)) for e in ENGINES)  # [engine][orient]
ROUND1: tuple[dict[str, Any], ...] = tuple({"engine": e, "top": a} for e in ENGINES
                                           for a in CYCLE[e])
# boosts available -> the slot's allowed choices, in plan_slots' order
GEAR_CHOICES: dict[tuple[str, ...], tuple[dict[str, Any], ...]] = {
    boosts: tuple({"engine": e, "gear": g, "boost": b} for e in ENGINES for g in GEARS
                  for b in boosts)
    for boosts in (("none",), ("none", "soldier"), ("none", "good"),
                   ("none", "soldier", "good"))
}
LEGAL_LOOT: tuple[Json, ...] = ({"type": "loot", "take": "soldier"},
                                {"type": "loot", "take": "good"})
LEGAL_SALVAGE: tuple[Json, ...] = tuple({"type": "salvage", "take": t}
                                        for t in ("invention", "soldier", "good"))


class Fast:
    """The compact state (mutable; only this module's playout changes it)."""

    __slots__ = (
        "attacks",
        "awaiting",
        "n",
        "options",
        "phase",
        "placements",
        "players",
        "returned",
        "round",
        "rounds",
        "start",
        "supplied",
    )

    def __init__(self, options: Options, n: int, rounds: int, round_: int, start: int,
                 phase: str, players: list[list[int]], placements: list[tuple[Any, ...]],
                 attacks: list[list[Any]], awaiting: tuple[int, ...], supplied: list[int],
                 returned: list[int]) -> None:
        self.options = options
        self.n = n
        self.rounds = rounds
        self.round = round_
        self.start = start
        self.phase = phase
        self.players = players
        self.placements = placements
        self.attacks = attacks
        self.awaiting = awaiting
        self.supplied = supplied
        self.returned = returned


# ---------------------------------------------------------------------------- the edge


def setup(options: dict[str, Json], n_seats: int) -> Fast:
    opts = Options.model_validate(options)
    if not isinstance(n_seats, int) or not MIN_SEATS <= n_seats <= MAX_SEATS:
        raise RuleError(f"The Empire Engine needs {MIN_SEATS}-{MAX_SEATS} players")
    rounds = LONG_GAME_ROUNDS if opts.long_game else ROUNDS_BY_SEATS[n_seats]
    players = [[SETUP_READY_SOLDIERS, SETUP_READY_GOODS, 0, 0, 0, -1, -1]
               for _ in range(n_seats)]
    return Fast(opts, n_seats, rounds, 1, 0, "start" if opts.random_start_player else "plan",
                players, [], [], (), [SETUP_READY_SOLDIERS * n_seats,
                                      SETUP_READY_GOODS * n_seats, 0], [0, 0, 0])


def from_state(state: State) -> Fast:
    players = [[p.ready.soldiers, p.ready.goods, p.score.soldiers, p.score.goods,
                p.score.inventions, *(p.engines if p.engines is not None else (-1, -1))]
               for p in state.players]
    placements = [(p.seat, p.order, p.engine, p.gear, p.boost, p.turns, p.top, p.overridden)
                  for p in state.placements]
    attacks = [[a.attacker, a.engine, a.target, a.status, a.loot] for a in state.attacks]
    s, r = state.supplied, state.returned
    return Fast(state.options, state.n_seats, state.rounds, state.round, state.start_player,
                state.phase, players, placements, attacks, state.awaiting,
                [s.soldiers, s.goods, s.inventions], [r.soldiers, r.goods, r.inventions])


def _counts(s: int, g: int, i: int) -> Counts:
    return construct(Counts, soldiers=s, goods=g, inventions=i)


def to_state(f: Fast) -> State:
    players = tuple(
        construct(Player, ready=_counts(p[RS], p[RG], 0), score=_counts(p[SS], p[SG], p[SI]),
                  engines=None if p[EL] < 0 else (p[EL], p[ER]))
        for p in f.players)
    placements = tuple(
        construct(Placement, seat=p[0], order=p[1], engine=p[2], gear=p[3], boost=p[4],
                  turns=p[5], top=p[6], overridden=p[7])
        for p in f.placements)
    attacks = tuple(construct(Attack, attacker=a[0], engine=a[1], target=a[2], status=a[3],
                              loot=a[4]) for a in f.attacks)
    return construct(State, options=f.options, n_seats=f.n, rounds=f.rounds, round=f.round,
                     start_player=f.start, phase=f.phase, players=players,
                     placements=placements, attacks=attacks, awaiting=f.awaiting,
                     supplied=_counts(*f.supplied), returned=_counts(*f.returned))


# ---------------------------------------------------------------------------- the rules


ORDERS = {n: tuple(tuple((start + k) % n for k in range(n)) for start in range(n))
          for n in range(MIN_SEATS, MAX_SEATS + 1)}  # seats clockwise from each start
PLAN_ORDERS = {n: tuple(tuple([(s, 1) for s in cw] + [(s, 2) for s in reversed(cw)])
                        for cw in ORDERS[n]) for n in ORDERS}  # planning.plan_order


def _order(f: Fast) -> tuple[int, ...]:
    return ORDERS[f.n][f.start]


def _boosts(p: list[int]) -> tuple[str, ...]:
    if p[RS] >= 1:
        return ("none", "soldier", "good") if p[RG] >= 1 else ("none", "soldier")
    return ("none", "good") if p[RG] >= 1 else ("none",)


def _round1(c1: dict[str, Any], c2: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...],
                                                              int, int]:
    """planning._resolve_round1 for one seat: (placement 1, placement 2, L and R orientation)
    without the seat."""
    e1: EngineName = c1["engine"]
    e2: EngineName = "R" if e1 == "L" else "L"
    over = c2["engine"] != e2
    top2 = ROUND1_DEFAULT_TOP[e2] if over else c2["top"]
    o1, o2 = orientation_for(e1, c1["top"]), orientation_for(e2, top2)
    return ((1, e1, None, "none", None, c1["top"], False),
            (2, e2, None, "none", None, top2, over), *((o1, o2) if e1 == "L" else (o2, o1)))


ROUND1_PAIRS = {(id(c1), id(c2)): _round1(c1, c2) for c1 in ROUND1 for c2 in ROUND1}


def _resolve_plan(f: Fast, picks: list[tuple[int, int, dict[str, Any]]]) -> None:
    """planning.resolve_plan: ``picks`` are (seat, 1|2, the chosen allowed dict) in commit
    order (a seat's first placement before its second)."""
    placements: list[tuple[Any, ...]] = []
    returned = f.returned
    chosen = {(seat, order): c for seat, order, c in picks}
    players = f.players
    if f.round == 1:  # _resolve_round1
        for seat in ORDERS[f.n][f.start]:
            r1, r2, o_l, o_r = ROUND1_PAIRS[id(chosen[(seat, 1)]), id(chosen[(seat, 2)])]
            placements.append((seat, *r1))
            placements.append((seat, *r2))
            p = players[seat]
            p[EL] = o_l
            p[ER] = o_r
        f.placements = placements
        f.attacks = []
        return
    for seat in ORDERS[f.n][f.start]:  # _resolve_gears
        c1, c2 = chosen[(seat, 1)], chosen[(seat, 2)]
        p = players[seat]
        e1 = c1["engine"]
        e2 = "R" if e1 == "L" else "L"
        g1 = c1["gear"]
        g2 = GEARS[1] if g1 == GEARS[0] else GEARS[0]
        over = c2["engine"] != e2 or c2["gear"] != g2
        b1, b2 = c1["boost"], c2["boost"]
        if b1 != "none":  # EE-3
            p[READY[b1]] -= 1
        if b2 != "none" and p[READY[b2]] < 1:
            b2, over = "none", True
        if b2 != "none":
            p[READY[b2]] -= 1
        for order, engine, gear, boost, o in ((1, e1, g1, b1, False), (2, e2, g2, b2, over)):
            turns = GEAR_TURNS[gear][boost != "none"]
            slot = EL if engine == "L" else ER
            p[slot] = (p[slot] + turns) % 4
            placements.append((seat, order, engine, gear, boost, turns,
                               TOPS[slot - EL][p[slot]], o))
            if boost != "none":  # EE-3: spent to the stock at reveal
                returned[SUPPLY[boost]] += 1
    f.placements = placements
    f.attacks = []


def _execute(f: Fast) -> None:
    order = _order(f)
    players, supplied = f.players, f.supplied
    for seat in order:  # group 1
        p = players[seat]
        for top in (TOPS[0][p[EL]], TOPS[1][p[ER]]):
            if top == "arm":
                p[RS] += ARM_SOLDIERS
                supplied[0] += ARM_SOLDIERS
            elif top == "produce":
                p[RG] += PRODUCE_GOODS
                supplied[1] += PRODUCE_GOODS
            elif top == "invent":
                p[SI] += INVENT_INVENTIONS
                supplied[2] += INVENT_INVENTIONS
    attacks: list[list[Any]] = []  # pay_attacks (EE-6, EE-7)
    n = f.n
    for seat in order:
        p = players[seat]
        engines = [e for e, top in (("L", TOPS[0][p[EL]]), ("R", TOPS[1][p[ER]]))
                   if top == "attack"]
        if not engines:
            continue
        have = p[RS]
        supported = have >= len(engines)
        paid = len(engines) if supported else min(have, len(engines))
        if paid:
            p[RS] -= paid
            f.returned[0] += paid
        status = "supported" if supported else "unsupported"
        for e in engines:
            attacks.append([seat, e, (seat + 1) % n if e == "L" else (seat - 1) % n, status,
                            None])
    f.attacks = attacks
    awaiting: list[int] = []  # assign_blocks (EE-7, EE-8, EE-9)
    for seat in order:
        if TOPS[1][players[seat][ER]] != "defend":
            continue
        hits = _incoming(f, seat)
        if not hits:
            continue
        if len({attacks[i][0] for i in hits}) == 1:
            _block(f, hits[0])
        else:
            awaiting.append(seat)
    if awaiting:
        f.phase, f.awaiting = "block", tuple(awaiting)
        return
    _after_blocks(f)


def _incoming(f: Fast, seat: int) -> list[int]:
    return [i for i, a in enumerate(f.attacks) if a[2] == seat and a[3] == "supported"]


def _block(f: Fast, index: int) -> None:
    a = f.attacks[index]
    a[3] = "blocked"
    f.players[a[2]][SS] += 1
    f.supplied[0] += 1


def _after_blocks(f: Fast) -> None:
    for a in f.attacks:
        if a[3] == "supported":
            a[3] = "success"
    f.awaiting = ()
    _continue_loot(f)


def _pending_loot(f: Fast) -> int | None:
    for i, a in enumerate(f.attacks):
        if a[3] == "success" and a[4] is None:
            return i
    return None


def _take_loot(f: Fast, index: int, loot: str) -> None:
    a = f.attacks[index]
    if loot == "stock":
        f.players[a[0]][SS] += 1
        f.supplied[0] += 1
    else:
        f.players[a[2]][READY[loot]] -= 1
        f.players[a[0]][SCORE[loot]] += 1
    a[4] = loot


def _continue_loot(f: Fast) -> None:
    while (index := _pending_loot(f)) is not None:
        a = f.attacks[index]
        target = f.players[a[2]]
        if target[RS] and target[RG]:  # EE-4: the attacker decides
            f.phase, f.awaiting = "loot", (a[0],)
            return
        _take_loot(f, index, "soldier" if target[RS] else "good" if target[RG] else "stock")
    f.awaiting = ()
    _group3(f)


def _group3(f: Fast) -> None:
    salvagers: list[int] = []
    hit = {a[2] for a in f.attacks if a[3] == "success"}
    for seat in _order(f):
        p = f.players[seat]
        if TOPS[1][p[ER]] == "export" and seat not in hit:  # EE-10: all Goods
            p[SG] += p[RG]
            p[RG] = 0
        if TOPS[0][p[EL]] == "salvage" and seat not in hit:
            salvagers.append(seat)
    if salvagers:
        f.phase, f.awaiting = "salvage", tuple(salvagers)
        return
    _end_round(f)


def _end_round(f: Fast) -> None:
    f.awaiting = ()
    if f.round >= f.rounds:
        f.phase = "over"
        return
    f.round += 1
    f.start = (f.start + 1) % f.n
    f.phase = "plan"


def _legal(f: Fast, seat: int) -> tuple[Json, ...]:
    if f.phase == "block":
        return tuple({"type": "block", "attacker": f.attacks[i][0]} for i in _incoming(f, seat))
    if f.phase == "loot":
        return LEGAL_LOOT
    return LEGAL_SALVAGE


def _act(f: Fast, seat: int, action: Any) -> None:
    kind = action["type"]
    if kind == "block":  # EE-8
        attacker = action["attacker"]
        _block(f, next(i for i in _incoming(f, seat) if f.attacks[i][0] == attacker))
        f.awaiting = tuple(s for s in f.awaiting if s != seat)
        if not f.awaiting:
            _after_blocks(f)
    elif kind == "loot":  # EE-4
        index = _pending_loot(f)
        assert index is not None
        _take_loot(f, index, action["take"])
        _continue_loot(f)
    else:  # EE-10
        take = action["take"]
        f.players[seat][SCORE[take]] += 1
        f.supplied[SUPPLY[take]] += 1
        f.awaiting = tuple(s for s in f.awaiting if s != seat)
        if not f.awaiting:
            _end_round(f)


# ---------------------------------------------------------------------------- playouts


def playout(f: Fast, rng: random.Random, key: bytes, max_steps: int = 100_000,
            on_step: OnStep | None = None) -> FastPlayout:
    """Play ``f`` on (in place) with random seats to the end or ``max_steps`` moves."""
    # rng.choice(seq) is seq[rng._randbelow(len(seq))] (CPython 3.11-3.13): the same draws
    # as _kit.playout's random seats without choice's frame (the property test pins it)
    below = rng._randbelow  # type: ignore[attr-defined]
    out = FastPlayout(state=f)
    for _ in range(max_steps):
        phase = f.phase
        move: FastMove
        if phase == "over":
            out.finished = True
            break
        if phase == "start":
            values = draw(key, START_LABEL, "below", f.n, 1)
            f.start, f.phase = values[0], "plan"
            move = ("chance", START_LABEL, tuple(values))
        elif phase == "plan":
            first = f.round == 1
            players = f.players
            picks = []
            for seat, placement in PLAN_ORDERS[f.n][f.start]:
                allowed = ROUND1 if first else GEAR_CHOICES[_boosts(players[seat])]
                picks.append((seat, placement, allowed[below(len(allowed))]))
            if on_step is not None:
                move = ("joint", f"plan:{f.round}", {f"s{s}:{o}": c for s, o, c in picks})
            _resolve_plan(f, picks)
            _execute(f)
        else:
            awaiting = f.awaiting
            seat = awaiting[below(len(awaiting))]
            legal = _legal(f, seat)
            action = legal[below(len(legal))]
            if on_step is not None:
                move = ("act", seat, action)
            _act(f, seat, action)
        out.steps += 1
        if on_step is not None:
            on_step(f, move)
    return out


play_random = random_player(setup, playout)
