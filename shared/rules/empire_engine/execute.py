"""The Execute phase: three groups of actions, resolved in the order of the summary card.

Each step runs automatically until a seat has a real choice to make; the state then waits
in phase "block" (EE-8), "loot" (EE-4) or "salvage" (EE-10) and continues from the same
place after the decision. Every function changes the state it is given in place (a clone
``apply`` made) and reports what happened to ``events``.
"""

from __future__ import annotations

from typing import NamedTuple

from shared.rules._kit.model import Events
from shared.rules.api import Json
from shared.rules.empire_engine.data import (
    ARM_SOLDIERS,
    ENGINES,
    INVENT_INVENTIONS,
    LEFT_STEP,
    MAX_SEATS,
    MIN_SEATS,
    PRODUCE_GOODS,
    TOPS,
    Action,
    EngineName,
    Resource,
)
from shared.rules.empire_engine.planning import ORDERS  # [n_seats][start_player]: turn order
from shared.rules.empire_engine.state import Attack, AttackStatus, Loot, State

# Every listed action, made once and shared by the lists ``legal`` returns (never changed).
_LOOT_TAKES: tuple[Loot, ...] = ("soldier", "good")  # EE-4
_SALVAGE_TAKES: tuple[Resource, ...] = ("invention", "soldier", "good")  # EE-10
BLOCKS: tuple[Json, ...] = tuple({"type": "block", "attacker": s} for s in range(MAX_SEATS))
LOOTS: tuple[Json, ...] = tuple({"type": "loot", "take": t} for t in _LOOT_TAKES)
SALVAGES: tuple[Json, ...] = tuple({"type": "salvage", "take": t} for t in _SALVAGE_TAKES)
# id of a listed loot or salvage action -> what it takes: an act that is one of these very
# objects was picked from a list (``EmpireEngine.play_listed``). They live as long as the module,
# so an id here names that one object.
LISTED_LOOT: dict[int, Loot] = {id(a): t for a, t in zip(LOOTS, _LOOT_TAKES, strict=True)}
LISTED_SALVAGE: dict[int, Resource] = {
    id(a): t for a, t in zip(SALVAGES, _SALVAGE_TAKES, strict=True)}


_TOPS_L, _TOPS_R = TOPS["L"], TOPS["R"]


class Program(NamedTuple):
    """What a seat's engine tops make it do in each group of the Execute phase: read from
    the tops alone, so made once per pair of orientations (``PROGRAMS``)."""

    left: Action
    right: Action
    group1: tuple[Action, ...]  # Arm / Produce / Invent, L engine's first (EE-10)
    attacks: tuple[EngineName, ...]  # the engines showing Attack, L first
    defends: bool  # Defend on the R engine
    exports: bool  # Export on the R engine
    salvages: bool  # Salvage on the L engine


GROUP1: frozenset[Action] = frozenset({"arm", "produce", "invent"})
PROGRAMS: dict[tuple[int, int], Program] = {
    (ol, orr): Program(left, right, tuple(a for a in (left, right) if a in GROUP1),
                       tuple(e for e, a in zip(ENGINES, (left, right), strict=True)
                             if a == "attack"),
                       right == "defend", right == "export", left == "salvage")
    for ol, left in enumerate(_TOPS_L) for orr, right in enumerate(_TOPS_R)}


def programs(state: State) -> list[Program]:
    """Each seat's ``Program`` (by seat; every engine is flipped after the round-1 plan)."""
    return [PROGRAMS[p.engines] for p in state.players]  # type: ignore[index]


def _from_stock(state: State, seat: int, res: Resource, n: int, pile: str) -> None:
    """Take ``n`` of ``res`` from the (unlimited, EE-11) stock into a pile of ``seat``."""
    p = state.players[seat]
    (p.ready if pile == "ready" else p.score).add(res, n)
    state.supplied.add(res, n)


def legal(state: State, seat: int) -> list[Json]:
    """The seat's choices at a block, loot or salvage decision (the listed actions above)."""
    phase = state.phase
    if seat not in state.awaiting:
        return []
    if phase == "salvage":  # EE-10
        return list(SALVAGES)
    if phase == "loot":  # EE-4
        return list(LOOTS)
    if phase == "block":  # EE-8: which of the two attacks to block
        return [BLOCKS[state.attacks[i].attacker] for i in incoming(state, seat)]
    return []


# ---------------------------------------------------------------------------------------
# Group 1: Arm, Produce & Invent (automatic, EE-10).
# ---------------------------------------------------------------------------------------


def group1(state: State, progs: list[Program], events: Events) -> None:
    supplied = state.supplied
    players = state.players
    for seat in ORDERS[state.n_seats][state.start_player]:
        actions = progs[seat].group1
        if not actions:
            continue
        p = players[seat]
        for action in actions:
            if action == "arm":
                p.ready.soldiers += ARM_SOLDIERS
                supplied.soldiers += ARM_SOLDIERS
                events.add("arm", {"seat": seat, "soldiers": ARM_SOLDIERS})
            elif action == "produce":
                p.ready.goods += PRODUCE_GOODS
                supplied.goods += PRODUCE_GOODS
                events.add("produce", {"seat": seat, "goods": PRODUCE_GOODS})
            else:  # invent
                p.score.inventions += INVENT_INVENTIONS
                supplied.inventions += INVENT_INVENTIONS
                events.add("invent", {"seat": seat, "inventions": INVENT_INVENTIONS})


# ---------------------------------------------------------------------------------------
# Group 2: Attack & Defend.
# ---------------------------------------------------------------------------------------


def target_of(state: State, seat: int, engine: EngineName) -> int:
    """L attacks the left neighbour, R the right one; in 2 players both hit the opponent."""
    return TARGETS[state.n_seats][seat][engine]


# ``target_of`` as a table: table size -> seat -> engine -> target
TARGETS: dict[int, tuple[dict[EngineName, int], ...]] = {
    n: tuple({"L": (seat + LEFT_STEP) % n, "R": (seat - LEFT_STEP) % n} for seat in range(n))
    for n in range(MIN_SEATS, MAX_SEATS + 1)}


def pay_attacks(state: State, progs: list[Program], events: Events) -> None:
    """Every attacker pays its Soldiers at once, before any attack resolves (EE-6).

    Attack is mandatory with a Soldier (EE-10). With no Soldier, or two attacks and only
    one Soldier (which is still returned), the attacks are not made at all (EE-7).
    """
    attacks: list[Attack] = []
    # resolution order: attackers in turn order (EE-4)
    for seat in ORDERS[state.n_seats][state.start_player]:
        engines = progs[seat].attacks
        if not engines:
            continue
        ready = state.players[seat].ready
        have = ready.soldiers
        supported = have >= len(engines)
        paid = len(engines) if supported else have
        if paid:
            ready.soldiers -= paid
            state.returned.soldiers += paid
        status: AttackStatus = "supported" if supported else "unsupported"
        targets = TARGETS[state.n_seats][seat]
        for e in engines:
            target = targets[e]
            attacks.append(Attack(seat, e, target, status))
            events.add("attack", {"seat": seat, "engine": e, "target": target,
                                  "supported": supported})
        events.add("attack_paid", {"seat": seat, "soldiers": paid})
    state.attacks = tuple(attacks)


def _block(state: State, index: int, events: Events) -> None:
    """Block one attack; the defender takes 1 Soldier from the stock to its score pile."""
    a = state.attacks[index]
    a.status = "blocked"
    _from_stock(state, a.target, "soldier", 1, "score")
    events.add("block", {"seat": a.target, "attacker": a.attacker, "engine": a.engine,
                         "reward": "soldier"})


def incoming(state: State, seat: int) -> list[int]:
    return [i for i, a in enumerate(state.attacks) if a.target == seat and a.status == "supported"]


def assign_blocks(state: State, progs: list[Program], events: Events) -> None:
    """Defend blocks one attack if attacked (EE-7: unsupported attacks do not count).

    A defender hit by two different neighbours must choose which attack to block (EE-8);
    in 2 players both attacks come from the same seat, so the first is blocked (EE-9).
    """
    awaiting: list[int] = []
    for seat in ORDERS[state.n_seats][state.start_player]:
        if not progs[seat].defends:
            continue
        hits = incoming(state, seat)
        if not hits:
            events.add("defend_wasted", {"seat": seat})
        elif len(hits) == 1 or len({state.attacks[i].attacker for i in hits}) == 1:
            _block(state, hits[0], events)
        else:
            awaiting.append(seat)
    if awaiting:
        state.phase, state.awaiting = "block", tuple(awaiting)
        return
    after_blocks(state, events)


def choose_block(state: State, seat: int, attacker: int, events: Events) -> None:
    index = next(i for i in incoming(state, seat) if state.attacks[i].attacker == attacker)
    _block(state, index, events)
    state.awaiting = tuple(s for s in state.awaiting if s != seat)
    if not state.awaiting:
        after_blocks(state, events)


def after_blocks(state: State, events: Events) -> None:
    for a in state.attacks:
        if a.status == "supported":
            a.status = "success"
    state.awaiting = ()
    continue_loot(state, events)


def pending_loot(state: State) -> int | None:
    for i, a in enumerate(state.attacks):
        if a.status == "success" and a.loot is None:
            return i
    return None


def _take_loot(state: State, index: int, loot: Loot, events: Events) -> None:
    """Resolve one successful attack (EE-4): the loot goes to the attacker's score pile."""
    a = state.attacks[index]
    if loot == "stock":  # empty ready pile: a Soldier from the stock instead
        _from_stock(state, a.attacker, "soldier", 1, "score")
    else:
        state.players[a.target].ready.add(loot, -1)
        state.players[a.attacker].score.add(loot, 1)
    a.loot = loot
    events.add("loot", {"seat": a.attacker, "target": a.target, "engine": a.engine,
                        "took": loot})


def continue_loot(state: State, events: Events) -> None:
    """Resolve successful attacks in turn order of the attackers (EE-4).

    Sequential resolution gives EE-5 (a target with one resource loses it to the first
    attacker in turn order, the other takes a stock Soldier) and EE-9 (in 2 players the same
    attacker gets the resource and then a stock Soldier).
    """
    while (index := pending_loot(state)) is not None:
        a = state.attacks[index]
        ready = state.players[a.target].ready
        if ready.soldiers and ready.goods:  # a real choice: the attacker decides (EE-4)
            state.phase, state.awaiting = "loot", (a.attacker,)
            return
        loot: Loot = "soldier" if ready.soldiers else "good" if ready.goods else "stock"
        _take_loot(state, index, loot, events)
    state.awaiting = ()
    group3(state, events)


def choose_loot(state: State, take: Loot, events: Events) -> None:
    index = pending_loot(state)
    assert index is not None
    _take_loot(state, index, take, events)
    continue_loot(state, events)


# ---------------------------------------------------------------------------------------
# Group 3: Export & Salvage; end of round.
# ---------------------------------------------------------------------------------------


def group3(state: State, events: Events) -> None:
    salvagers: list[int] = []
    hit = {a.target for a in state.attacks if a.status == "success"}  # EE-7/EE-8
    players = state.players
    for seat in ORDERS[state.n_seats][state.start_player]:
        prog = PROGRAMS[players[seat].engines]  # type: ignore[index]
        if prog.exports:
            if seat in hit:
                events.add("export_failed", {"seat": seat})
            else:  # EE-10: all Goods, always
                p = players[seat]
                goods = p.ready.goods
                p.ready.goods = 0
                p.score.goods += goods
                events.add("export", {"seat": seat, "goods": goods})
        if prog.salvages:
            if seat in hit:
                events.add("salvage_failed", {"seat": seat})
            else:
                salvagers.append(seat)
    if salvagers:
        state.phase, state.awaiting = "salvage", tuple(salvagers)
        return
    end_round(state, events)


def choose_salvage(state: State, seat: int, take: Resource, events: Events) -> None:
    state.players[seat].score.add(take)  # from the stock (EE-11)
    state.supplied.add(take)
    if state.options.hidden_score_piles:  # EE-12: only the seat learns what it took
        events.add("salvage", {"seat": seat})
        events.add("salvage", {"seat": seat, "took": take}, visible_to=(seat,))
    else:
        events.add("salvage", {"seat": seat, "took": take})
    state.awaiting = tuple([s for s in state.awaiting if s != seat])
    if not state.awaiting:
        end_round(state, events)


def end_round(state: State, events: Events) -> None:
    """Pass the start player marker clockwise and advance the round track (EE-14)."""
    events.add("round_ended", {"round": state.round})
    state.awaiting = ()
    if state.round >= state.rounds:
        if events.keep:  # EE-12 reveal
            events.add("game_over", {"score_piles": {str(seat): p.score.as_json()
                                                     for seat, p in enumerate(state.players)}})
        state.phase = "over"
        return
    state.round += 1
    state.start_player = (state.start_player + 1) % state.n_seats
    state.phase = "plan"
    events.add("round_started", {"round": state.round, "start_player": state.start_player})


def execute(state: State, events: Events) -> None:
    """Run the Execute phase after the Plan reveal, up to the first decision."""
    progs = programs(state)
    group1(state, progs, events)
    pay_attacks(state, progs, events)
    assign_blocks(state, progs, events)


def act(state: State, seat: int, action: dict[str, Json], events: Events) -> None:
    """A seat's decision (one of ``legal``), in place."""
    kind = action["type"]
    if kind == "block":  # EE-8
        attacker = action["attacker"]
        assert isinstance(attacker, int)
        choose_block(state, seat, attacker, events)
    elif kind == "loot":  # EE-4
        choose_loot(state, action["take"], events)  # type: ignore[arg-type]
    else:  # EE-10
        choose_salvage(state, seat, action["take"], events)  # type: ignore[arg-type]
