"""Attacks: declaration, the defender's dice, the two dice Chance nodes, comparison,
conquest, move-in (NY-9), elimination (NY-7) and the win check (NY-12)."""

from __future__ import annotations

from shared.rules._kit.model import event
from shared.rules.api import Event, Json, Rejection, reject
from shared.rules.empire_nyc import board
from shared.rules.empire_nyc.state import Battle, Elimination, MoveIn, NycState
from shared.rules.empire_nyc.turns import Result, adj, enter_attack, enter_fortify, finish, has_won

MAX_INSTIGATOR_DICE = 3
MAX_DEFENDER_DICE = 2


def compare(instigator: tuple[int, ...], defender: tuple[int, ...]) -> tuple[int, int]:
    """(instigator losses, defender losses): highest against highest, then second against
    second; the defender wins ties (rulebook step F, NY-8)."""
    a = sorted(instigator, reverse=True)
    d = sorted(defender, reverse=True)
    inst_losses = def_losses = 0
    for x, y in zip(a, d, strict=False):
        if x > y:
            def_losses += 1
        else:
            inst_losses += 1
    return inst_losses, def_losses


def max_defender_dice(cubes: int) -> int:
    """NY-8: 2 dice with at least 2 cubes, otherwise 1."""
    return min(MAX_DEFENDER_DICE, cubes)


def roll_label(state: NycState, role: str) -> str:
    return f"dice:turn:{state.turn}:attack:{state.attacks}:{role}"


def attack(state: NycState, seat: int, frm: int, to: int, dice: int) -> Result | Rejection:
    if state.owner[frm] != seat:
        return reject("action/illegal", "you must attack from your own neighborhood")
    if state.owner[to] == seat:
        return reject("action/illegal", "you cannot attack your own neighborhood")
    if to not in adj(state)[frm]:
        return reject("action/illegal", "the target must be adjacent (bridges, tram, subway)")
    if not 1 <= dice <= MAX_INSTIGATOR_DICE:
        return reject("action/illegal", "the instigator rolls 1 to 3 dice (NY-8)")
    if state.cubes[frm] < dice + 1:  # NY-8: one more cube than dice rolled
        return reject("action/illegal", "you need one more cube than the dice you roll")
    defender = state.owner[to]
    max_def = max_defender_dice(state.cubes[to])
    if state.options.defender_chooses_dice and max_def > 1:
        battle = Battle(frm=frm, to=to, defender=defender, dice=dice)
        phase = "defend"
    else:
        battle = Battle(frm=frm, to=to, defender=defender, dice=dice, def_dice=max_def)
        phase = "roll"
    s = state.model_copy(update={"attacks": state.attacks + 1, "battle": battle, "phase": phase})
    data: dict[str, Json] = {
        "seat": seat,
        "from": board.NB_IDS[frm],
        "to": board.NB_IDS[to],
        "dice": dice,
        "defender": defender,
    }
    return s, [event(type="attack_declared", data=data)]


def defend(state: NycState, seat: int, dice: int) -> Result | Rejection:
    assert state.battle is not None
    b = state.battle
    if not 1 <= dice <= max_defender_dice(state.cubes[b.to]):
        return reject("action/illegal", "the defender rolls 1 die, or 2 with 2+ cubes (NY-8)")
    s = state.model_copy(
        update={"battle": b.model_copy(update={"def_dice": dice}), "phase": "roll"}
    )
    return s, [event(type="defended", data={"seat": seat, "dice": dice})]


def roll_request(state: NycState) -> tuple[str, int]:
    """(label, dice count) of the pending roll: the instigator's first, then the defender's."""
    assert state.battle is not None and state.battle.def_dice is not None
    if state.battle.inst_roll is None:
        return roll_label(state, "instigator"), state.battle.dice
    return roll_label(state, "defender"), state.battle.def_dice


def rolled(state: NycState, values: tuple[int, ...]) -> Result:
    assert state.battle is not None
    b = state.battle
    if b.inst_roll is None:
        s = state.model_copy(update={"battle": b.model_copy(update={"inst_roll": values})})
        data: dict[str, Json] = {
            "role": "instigator",
            "seat": state.current,
            "values": list(values),
        }
        return s, [event(type="dice", data=data)]
    return resolve(state, b, b.inst_roll, values)


def resolve(state: NycState, b: Battle, inst: tuple[int, ...], dfn: tuple[int, ...]) -> Result:
    inst_losses, def_losses = compare(inst, dfn)
    cubes = list(state.cubes)
    cubes[b.frm] -= inst_losses
    cubes[b.to] -= def_losses
    data: dict[str, Json] = {
        "from": board.NB_IDS[b.frm],
        "to": board.NB_IDS[b.to],
        "instigator": state.current,
        "defender": b.defender,
        "instigator_dice": list[Json](sorted(inst, reverse=True)),
        "defender_dice": list[Json](sorted(dfn, reverse=True)),
        "instigator_losses": inst_losses,
        "defender_losses": def_losses,
    }
    events = [event(type="battle", data=data)]
    s = state.model_copy(update={"cubes": tuple(cubes)})
    if cubes[b.to] > 0:
        s2, more = enter_attack(s)
        return s2, events + more
    s2, more = conquer(s, b)
    return s2, events + more


def conquer(state: NycState, b: Battle) -> Result:
    """The defender is booted out: the rolled dice move in at once (no neighborhood is ever
    empty; NY-9), then elimination (NY-7), the win check (NY-12) and the rest of the move-in."""
    seat = state.current
    owner = list(state.owner)
    cubes = list(state.cubes)
    owner[b.to] = seat
    cubes[b.to] = b.dice
    cubes[b.frm] -= b.dice
    s = state.model_copy(
        update={"owner": tuple(owner), "cubes": tuple(cubes), "conquered": True, "battle": None}
    )
    data: dict[str, Json] = {
        "seat": seat,
        "nb": board.NB_IDS[b.to],
        "from": board.NB_IDS[b.frm],
        "defender": b.defender,
        "moved": b.dice,
    }
    events = [event(type="conquered", data=data)]
    if b.defender not in s.owner:
        s, more = eliminate(s, b.defender, seat)
        events += more
    reason = has_won(s, seat)  # NY-12: after every conquest
    if reason is not None:
        s2, more = finish(s, seat, reason)
        return s2, events + more
    if cubes[b.frm] > 1:
        return s.model_copy(
            update={"phase": "move_in", "move_in": MoveIn(frm=b.frm, to=b.to, moved=b.dice)}
        ), events
    s2, more = enter_attack(s)
    return s2, events + more


def eliminate(state: NycState, loser: int, by: int) -> Result:
    """NY-7: the eliminated player's cards go to the eliminator (default) or the discard."""
    cards = state.hands[loser]
    hands = list(state.hands)
    hands[loser] = ()
    discard = state.discard
    events: list[Event] = []
    to = state.options.eliminated_cards
    if to == "eliminator":
        hands[by] = hands[by] + cards
        if cards:
            events.append(
                event(
                    type="cards_taken",
                    data={"seat": by, "from": loser, "cards": list(cards)},
                    visible_to=(by, loser),
                )
            )
    else:
        discard = discard + cards
    elim = Elimination(seat=loser, by=by, turn=state.turn)
    s = state.model_copy(
        update={"hands": tuple(hands), "discard": discard, "eliminated": (*state.eliminated, elim)}
    )
    # The card faces stay hidden from the other seats; only their number is public.
    data: dict[str, Json] = {"seat": loser, "by": by, "cards": len(cards), "cards_to": to}
    return s, [event(type="eliminated", data=data), *events]


def move_in(state: NycState, seat: int, n: int) -> Result | Rejection:
    """NY-9: in total at least the dice rolled, at least 1 cube stays behind."""
    assert state.move_in is not None
    m = state.move_in
    most = m.moved + state.cubes[m.frm] - 1
    if not m.moved <= n <= most:
        return reject("action/illegal", f"move between {m.moved} and {most} cubes in total")
    extra = n - m.moved
    cubes = list(state.cubes)
    cubes[m.frm] -= extra
    cubes[m.to] += extra
    s = state.model_copy(update={"cubes": tuple(cubes), "move_in": None})
    data: dict[str, Json] = {"seat": seat, "nb": board.NB_IDS[m.to], "n": n}
    s2, more = enter_attack(s)
    return s2, [event(type="moved_in", data=data), *more]


def end_attack(state: NycState) -> Result:
    return enter_fortify(state)
