"""The Execute phase: three groups of actions, resolved in the order of the summary card.

Each step runs automatically until a seat has a real choice to make; the state then waits
in phase "block" (EE-8), "loot" (EE-4) or "salvage" (EE-10) and continues from the same
place after the decision. Every function changes the state it is given in place (a clone
``apply`` made) and reports what happened to ``events``.
"""

from __future__ import annotations

from shared.rules._kit.model import Events
from shared.rules.api import Json
from shared.rules.empire_engine.data import (
    ARM_SOLDIERS,
    ENGINES,
    INVENT_INVENTIONS,
    LEFT_STEP,
    PRODUCE_GOODS,
    TOPS,
    Action,
    EngineName,
    Resource,
)
from shared.rules.empire_engine.planning import turn_order
from shared.rules.empire_engine.state import Attack, Loot, Player, State

LOOT_ACTIONS: tuple[tuple[str, str], ...] = (("loot", "soldier"), ("loot", "good"))
SALVAGE_ACTIONS: tuple[tuple[str, str], ...] = (
    ("salvage", "invention"), ("salvage", "soldier"), ("salvage", "good"))


_TOPS_L, _TOPS_R = TOPS["L"], TOPS["R"]


def tops(player: Player) -> tuple[Action, Action]:
    """The actions on top of the seat's L and R engines."""
    engines = player.engines
    assert engines is not None
    return _TOPS_L[engines[0]], _TOPS_R[engines[1]]


def _from_stock(state: State, seat: int, res: Resource, n: int, pile: str) -> None:
    """Take ``n`` of ``res`` from the (unlimited, EE-11) stock into a pile of ``seat``."""
    p = state.players[seat]
    (p.ready if pile == "ready" else p.score).add(res, n)
    state.supplied.add(res, n)


def _score_event(state: State, events: Events, seat: int, type_: str,
                 data: dict[str, Json]) -> None:
    """Events about a choice that only moves a resource into a hidden score pile (EE-12)."""
    if not state.options.hidden_score_piles:
        events.add(type_, {"seat": seat, **data})
        return
    events.add(type_, {"seat": seat})
    events.add(type_, {"seat": seat, **data}, visible_to=(seat,))


def legal(state: State, seat: int) -> list[Json]:
    """The seat's choices at a block, loot or salvage decision (each a fresh dict)."""
    if state.phase not in ("block", "loot", "salvage") or seat not in state.awaiting:
        return []
    if state.phase == "block":  # EE-8: which of the two attacks to block
        return [{"type": "block", "attacker": state.attacks[i].attacker}
                for i in incoming(state, seat)]
    pairs = LOOT_ACTIONS if state.phase == "loot" else SALVAGE_ACTIONS  # EE-4 / EE-10
    return [{"type": kind, "take": take} for kind, take in pairs]


# ---------------------------------------------------------------------------------------
# Group 1: Arm, Produce & Invent (automatic, EE-10).
# ---------------------------------------------------------------------------------------


def group1(state: State, events: Events) -> None:
    supplied = state.supplied
    for seat in turn_order(state):
        p = state.players[seat]
        for action in tops(p):
            if action == "arm":
                p.ready.soldiers += ARM_SOLDIERS
                supplied.soldiers += ARM_SOLDIERS
                events.add("arm", {"seat": seat, "soldiers": ARM_SOLDIERS})
            elif action == "produce":
                p.ready.goods += PRODUCE_GOODS
                supplied.goods += PRODUCE_GOODS
                events.add("produce", {"seat": seat, "goods": PRODUCE_GOODS})
            elif action == "invent":
                p.score.inventions += INVENT_INVENTIONS
                supplied.inventions += INVENT_INVENTIONS
                events.add("invent", {"seat": seat, "inventions": INVENT_INVENTIONS})


# ---------------------------------------------------------------------------------------
# Group 2: Attack & Defend.
# ---------------------------------------------------------------------------------------


def target_of(state: State, seat: int, engine: EngineName) -> int:
    """L attacks the left neighbour, R the right one; in 2 players both hit the opponent."""
    step = LEFT_STEP if engine == "L" else -LEFT_STEP
    return (seat + step) % state.n_seats


def pay_attacks(state: State, events: Events) -> None:
    """Every attacker pays its Soldiers at once, before any attack resolves (EE-6).

    Attack is mandatory with a Soldier (EE-10). With no Soldier, or two attacks and only
    one Soldier (which is still returned), the attacks are not made at all (EE-7).
    """
    attacks: list[Attack] = []
    for seat in turn_order(state):  # resolution order: attackers in turn order (EE-4)
        player = state.players[seat]
        left, right = tops(player)
        if left != "attack" and right != "attack":
            continue
        engines = [e for e, a in zip(ENGINES, (left, right), strict=True) if a == "attack"]
        have = player.ready.soldiers
        supported = have >= len(engines)
        paid = len(engines) if supported else min(have, len(engines))
        if paid:
            player.ready.soldiers -= paid
            state.returned.soldiers += paid
        for e in engines:
            target = target_of(state, seat, e)
            attacks.append(Attack(seat, e, target, "supported" if supported else "unsupported"))
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


def assign_blocks(state: State, events: Events) -> None:
    """Defend blocks one attack if attacked (EE-7: unsupported attacks do not count).

    A defender hit by two different neighbours must choose which attack to block (EE-8);
    in 2 players both attacks come from the same seat, so the first is blocked (EE-9).
    """
    awaiting: list[int] = []
    for seat in turn_order(state):
        if tops(state.players[seat])[1] != "defend":
            continue
        hits = incoming(state, seat)
        if not hits:
            events.add("defend_wasted", {"seat": seat})
        elif len({state.attacks[i].attacker for i in hits}) == 1:
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
    for seat in turn_order(state):
        p = state.players[seat]
        left, right = tops(p)
        if right == "export":
            if seat in hit:
                events.add("export_failed", {"seat": seat})
            else:  # EE-10: all Goods, always
                goods = p.ready.goods
                p.ready.goods = 0
                p.score.goods += goods
                events.add("export", {"seat": seat, "goods": goods})
        if left == "salvage":
            if seat in hit:
                events.add("salvage_failed", {"seat": seat})
            else:
                salvagers.append(seat)
    if salvagers:
        state.phase, state.awaiting = "salvage", tuple(salvagers)
        return
    end_round(state, events)


def choose_salvage(state: State, seat: int, take: Resource, events: Events) -> None:
    _from_stock(state, seat, take, 1, "score")
    _score_event(state, events, seat, "salvage", {"took": take})
    state.awaiting = tuple(s for s in state.awaiting if s != seat)
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
    group1(state, events)
    pay_attacks(state, events)
    assign_blocks(state, events)


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
