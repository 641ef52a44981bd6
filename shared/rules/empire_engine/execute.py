"""The Execute phase: three groups of actions, resolved in the order of the summary card.

Each step runs automatically until a seat has a real choice to make; the state then waits
in phase "block" (EE-8), "loot" (EE-4) or "salvage" (EE-10) and continues from the same
place after the decision.
"""

from __future__ import annotations

from typing import Literal

from shared.rules._kit.model import event
from shared.rules.api import Event, Json
from shared.rules.empire_engine.data import (
    ARM_SOLDIERS,
    ENGINES,
    INVENT_INVENTIONS,
    LEFT_STEP,
    PRODUCE_GOODS,
    Action,
    EngineName,
    Resource,
    top_action,
)
from shared.rules.empire_engine.planning import turn_order
from shared.rules.empire_engine.state import Attack, Loot, Player, State

Step = tuple[State, list[Event]]


def tops(player: Player) -> tuple[Action, Action]:
    assert player.engines is not None
    return top_action("L", player.engines[0]), top_action("R", player.engines[1])


def _set_player(state: State, seat: int, player: Player) -> State:
    players = list(state.players)
    players[seat] = player
    return state.model_copy(update={"players": tuple(players)})


def _from_stock(
    state: State, seat: int, res: Resource, n: int, pile: Literal["ready", "score"]
) -> State:
    """Take ``n`` of ``res`` from the (unlimited, EE-11) stock into a pile of ``seat``."""
    p = state.players[seat]
    if pile == "ready":
        p = p.model_copy(update={"ready": p.ready.add(res, n)})
    else:
        p = p.model_copy(update={"score": p.score.add(res, n)})
    state = _set_player(state, seat, p)
    return state.model_copy(update={"supplied": state.supplied.add(res, n)})


def _score_event(state: State, seat: int, type_: str, data: dict[str, Json]) -> list[Event]:
    """Events about a choice that only moves a resource into a hidden score pile (EE-12)."""
    full = event(type=type_, data={"seat": seat, **data})
    if not state.options.hidden_score_piles:
        return [full]
    return [
        event(type=type_, data={"seat": seat}),
        full.model_copy(update={"visible_to": (seat,)}),
    ]


# ---------------------------------------------------------------------------------------
# Group 1: Arm, Produce & Invent (automatic, EE-10).
# ---------------------------------------------------------------------------------------


def group1(state: State) -> Step:
    events: list[Event] = []
    for seat in turn_order(state):
        for action in tops(state.players[seat]):
            if action == "arm":
                state = _from_stock(state, seat, "soldier", ARM_SOLDIERS, "ready")
                events.append(event(type="arm", data={"seat": seat, "soldiers": ARM_SOLDIERS}))
            elif action == "produce":
                state = _from_stock(state, seat, "good", PRODUCE_GOODS, "ready")
                events.append(event(type="produce", data={"seat": seat, "goods": PRODUCE_GOODS}))
            elif action == "invent":
                state = _from_stock(state, seat, "invention", INVENT_INVENTIONS, "score")
                events.append(
                    event(type="invent", data={"seat": seat, "inventions": INVENT_INVENTIONS})
                )
    return state, events


# ---------------------------------------------------------------------------------------
# Group 2: Attack & Defend.
# ---------------------------------------------------------------------------------------


def target_of(state: State, seat: int, engine: EngineName) -> int:
    """L attacks the left neighbour, R the right one; in 2 players both hit the opponent."""
    step = LEFT_STEP if engine == "L" else -LEFT_STEP
    return (seat + step) % state.n_seats


def pay_attacks(state: State) -> Step:
    """Every attacker pays its Soldiers at once, before any attack resolves (EE-6).

    Attack is mandatory with a Soldier (EE-10). With no Soldier, or two attacks and only
    one Soldier (which is still returned), the attacks are not made at all (EE-7).
    """
    attacks: list[Attack] = []
    events: list[Event] = []
    for seat in turn_order(state):  # resolution order: attackers in turn order (EE-4)
        player = state.players[seat]
        engines = [e for e, a in zip(ENGINES, tops(player), strict=True) if a == "attack"]
        if not engines:
            continue
        have = player.ready.soldiers
        supported = have >= len(engines)
        paid = len(engines) if supported else min(have, len(engines))
        if paid:
            player = player.model_copy(update={"ready": player.ready.add("soldier", -paid)})
            state = _set_player(state, seat, player)
            state = state.model_copy(update={"returned": state.returned.add("soldier", paid)})
        for e in engines:
            target = target_of(state, seat, e)
            status = "supported" if supported else "unsupported"
            attacks.append(Attack(attacker=seat, engine=e, target=target, status=status))
            events.append(
                event(
                    type="attack",
                    data={"seat": seat, "engine": e, "target": target, "supported": supported},
                )
            )
        events.append(event(type="attack_paid", data={"seat": seat, "soldiers": paid}))
    return state.model_copy(update={"attacks": tuple(attacks)}), events


def _block(state: State, index: int) -> Step:
    """Block one attack; the defender takes 1 Soldier from the stock to its score pile."""
    attacks = list(state.attacks)
    a = attacks[index]
    attacks[index] = a.model_copy(update={"status": "blocked"})
    state = state.model_copy(update={"attacks": tuple(attacks)})
    state = _from_stock(state, a.target, "soldier", 1, "score")
    return state, [
        event(
            type="block",
            data={
                "seat": a.target,
                "attacker": a.attacker,
                "engine": a.engine,
                "reward": "soldier",
            },
        )
    ]


def incoming(state: State, seat: int) -> list[int]:
    return [i for i, a in enumerate(state.attacks) if a.target == seat and a.status == "supported"]


def assign_blocks(state: State) -> Step:
    """Defend blocks one attack if attacked (EE-7: unsupported attacks do not count).

    A defender hit by two different neighbours must choose which attack to block (EE-8);
    in 2 players both attacks come from the same seat, so the first is blocked (EE-9).
    """
    events: list[Event] = []
    awaiting: list[int] = []
    for seat in turn_order(state):
        if tops(state.players[seat])[1] != "defend":
            continue
        hits = incoming(state, seat)
        if not hits:
            events.append(event(type="defend_wasted", data={"seat": seat}))
        elif len({state.attacks[i].attacker for i in hits}) == 1:
            state, ev = _block(state, hits[0])
            events += ev
        else:
            awaiting.append(seat)
    if awaiting:
        return state.model_copy(update={"phase": "block", "awaiting": tuple(awaiting)}), events
    state, ev = after_blocks(state)
    return state, events + ev


def choose_block(state: State, seat: int, attacker: int) -> Step:
    index = next(i for i in incoming(state, seat) if state.attacks[i].attacker == attacker)
    state, events = _block(state, index)
    rest = tuple(s for s in state.awaiting if s != seat)
    state = state.model_copy(update={"awaiting": rest})
    if rest:
        return state, events
    state, ev = after_blocks(state)
    return state, events + ev


def after_blocks(state: State) -> Step:
    attacks = tuple(
        a.model_copy(update={"status": "success"}) if a.status == "supported" else a
        for a in state.attacks
    )
    return continue_loot(state.model_copy(update={"attacks": attacks, "awaiting": ()}))


def pending_loot(state: State) -> int | None:
    for i, a in enumerate(state.attacks):
        if a.status == "success" and a.loot is None:
            return i
    return None


def _take_loot(state: State, index: int, loot: Loot) -> Step:
    """Resolve one successful attack (EE-4): the loot goes to the attacker's score pile."""
    a = state.attacks[index]
    if loot == "stock":  # empty ready pile: a Soldier from the stock instead
        state = _from_stock(state, a.attacker, "soldier", 1, "score")
    else:
        target, attacker = state.players[a.target], state.players[a.attacker]
        state = _set_player(
            state, a.target, target.model_copy(update={"ready": target.ready.add(loot, -1)})
        )
        state = _set_player(
            state, a.attacker, attacker.model_copy(update={"score": attacker.score.add(loot, 1)})
        )
    attacks = list(state.attacks)
    attacks[index] = a.model_copy(update={"loot": loot})
    state = state.model_copy(update={"attacks": tuple(attacks)})
    return state, [
        event(
            type="loot",
            data={"seat": a.attacker, "target": a.target, "engine": a.engine, "took": loot},
        )
    ]


def continue_loot(state: State) -> Step:
    """Resolve successful attacks in turn order of the attackers (EE-4).

    Sequential resolution gives EE-5 (a target with one resource loses it to the first
    attacker in turn order, the other takes a stock Soldier) and EE-9 (in 2 players the same
    attacker gets the resource and then a stock Soldier).
    """
    events: list[Event] = []
    while (index := pending_loot(state)) is not None:
        a = state.attacks[index]
        ready = state.players[a.target].ready
        if ready.soldiers and ready.goods:  # a real choice: the attacker decides (EE-4)
            return state.model_copy(update={"phase": "loot", "awaiting": (a.attacker,)}), events
        loot: Loot = "soldier" if ready.soldiers else "good" if ready.goods else "stock"
        state, ev = _take_loot(state, index, loot)
        events += ev
    state, ev = group3(state.model_copy(update={"awaiting": ()}))
    return state, events + ev


def choose_loot(state: State, take: Loot) -> Step:
    index = pending_loot(state)
    assert index is not None
    state, events = _take_loot(state, index, take)
    state, ev = continue_loot(state)
    return state, events + ev


# ---------------------------------------------------------------------------------------
# Group 3: Export & Salvage; end of round.
# ---------------------------------------------------------------------------------------


def successfully_attacked(state: State, seat: int) -> bool:
    """EE-7/EE-8: only an attack that was paid for and not blocked counts."""
    return any(a.target == seat and a.status == "success" for a in state.attacks)


def group3(state: State) -> Step:
    events: list[Event] = []
    salvagers: list[int] = []
    for seat in turn_order(state):
        left, right = tops(state.players[seat])
        hit = successfully_attacked(state, seat)
        if right == "export":
            if hit:
                events.append(event(type="export_failed", data={"seat": seat}))
            else:  # EE-10: all Goods, always
                p = state.players[seat]
                goods = p.ready.goods
                p = p.model_copy(
                    update={
                        "ready": p.ready.add("good", -goods),
                        "score": p.score.add("good", goods),
                    }
                )
                state = _set_player(state, seat, p)
                events.append(event(type="export", data={"seat": seat, "goods": goods}))
        if left == "salvage":
            if hit:
                events.append(event(type="salvage_failed", data={"seat": seat}))
            else:
                salvagers.append(seat)
    if salvagers:
        return state.model_copy(update={"phase": "salvage", "awaiting": tuple(salvagers)}), events
    state, ev = end_round(state)
    return state, events + ev


def choose_salvage(state: State, seat: int, take: Resource) -> Step:
    state = _from_stock(state, seat, take, 1, "score")
    events = _score_event(state, seat, "salvage", {"took": take})
    rest = tuple(s for s in state.awaiting if s != seat)
    state = state.model_copy(update={"awaiting": rest})
    if rest:
        return state, events
    state, ev = end_round(state)
    return state, events + ev


def end_round(state: State) -> Step:
    """Pass the start player marker clockwise and advance the round track (EE-14)."""
    events = [event(type="round_ended", data={"round": state.round})]
    if state.round >= state.rounds:
        final = {str(seat): p.score.model_dump(mode="json") for seat, p in enumerate(state.players)}
        events.append(event(type="game_over", data={"score_piles": final}))  # EE-12 reveal
        return state.model_copy(update={"phase": "over", "awaiting": ()}), events
    start = (state.start_player + 1) % state.n_seats
    state = state.model_copy(
        update={"round": state.round + 1, "start_player": start, "phase": "plan", "awaiting": ()}
    )
    events.append(event(type="round_started", data={"round": state.round, "start_player": start}))
    return state, events


def execute(state: State) -> Step:
    """Run the Execute phase after the Plan reveal, up to the first decision."""
    state, events = group1(state)
    state, ev = pay_attacks(state)
    events += ev
    state, ev = assign_blocks(state)
    return state, events + ev
