"""Attacks: declaration, the defender's dice, the two dice Chance nodes, comparison,
conquest, move-in (NY-9), elimination (NY-7) and the win check (NY-12).

Like ``turns.py``: each function changes the state it is given in place (``apply``'s clone)
and adds its events; a refusal is returned before anything changes.
"""

from __future__ import annotations

from functools import lru_cache

from shared.rules._kit.model import Events
from shared.rules.api import Chance, Rejection, reject
from shared.rules.empire_nyc import board
from shared.rules.empire_nyc.state import Battle, Elimination, MoveIn, NycState, battle
from shared.rules.empire_nyc.tables import MAX_DEFENDER_DICE, MAX_INSTIGATOR_DICE
from shared.rules.empire_nyc.turns import (
    adj,
    enter_attack,
    enter_fortify,
    finish,
    has_won,
    held,
)

NB_IDS = board.NB_IDS


def compare(instigator: tuple[int, ...], defender: tuple[int, ...]) -> tuple[int, int]:
    """(instigator losses, defender losses): highest against highest, then second against
    second; the defender wins ties (rulebook step F, NY-8)."""
    return losses(sorted(instigator, reverse=True), sorted(defender, reverse=True))


def losses(instigator: list[int], defender: list[int]) -> tuple[int, int]:
    """``compare`` of dice already sorted highest first."""
    inst_losses = def_losses = 0
    for x, y in zip(instigator, defender, strict=False):
        if x > y:
            def_losses += 1
        else:
            inst_losses += 1
    return inst_losses, def_losses


def max_defender_dice(cubes: int) -> int:
    """NY-8: 2 dice with at least 2 cubes, otherwise 1."""
    return MAX_DEFENDER_DICE if cubes >= MAX_DEFENDER_DICE else cubes


def attack(state: NycState, seat: int, frm: int, to: int, dice: int, events: Events
           ) -> Rejection | None:
    owner = state.owner
    if owner[frm] != seat:
        return reject("action/illegal", "you must attack from your own neighborhood")
    if owner[to] == seat:
        return reject("action/illegal", "you cannot attack your own neighborhood")
    if to not in adj(state)[frm]:
        return reject("action/illegal", "the target must be adjacent (bridges, tram, subway)")
    if not 1 <= dice <= MAX_INSTIGATOR_DICE:
        return reject("action/illegal", "the instigator rolls 1 to 3 dice (NY-8)")
    if state.cubes[frm] < dice + 1:  # NY-8: one more cube than dice rolled
        return reject("action/illegal", "you need one more cube than the dice you roll")
    declare(state, seat, frm, to, dice, events)
    return None


def declare(state: NycState, seat: int, frm: int, to: int, dice: int, events: Events) -> None:
    """A legal attack (``attack`` checks it; a listed one is legal)."""
    defender = state.owner[to]
    state.attacks += 1
    if state.cubes[to] >= MAX_DEFENDER_DICE and state.seldom.options.defender_chooses_dice:
        state.battle = battle(frm, to, defender, dice)
        state.phase = "defend"
    else:  # NY-8: the defender rolls all it may
        state.battle = battle(frm, to, defender, dice, max_defender_dice(state.cubes[to]))
        state.phase = "roll"
    events.add("attack_declared", {"seat": seat, "from": NB_IDS[frm], "to": NB_IDS[to],
                                   "dice": dice, "defender": defender})


def defend(state: NycState, seat: int, dice: int, events: Events) -> Rejection | None:
    b = state.battle
    assert b is not None
    if not 1 <= dice <= max_defender_dice(state.cubes[b.to]):
        return reject("action/illegal", "the defender rolls 1 die, or 2 with 2+ cubes (NY-8)")
    defended(state, seat, b, dice, events)
    return None


def defended(state: NycState, seat: int, b: Battle, dice: int, events: Events) -> None:
    """The defender's legal dice count (``defend`` checks it; a listed one is legal)."""
    state.battle = battle(b.frm, b.to, b.defender, b.dice, dice, b.inst_roll)
    state.phase = "roll"
    events.add("defended", {"seat": seat, "dice": dice})


# ``Chance(...)`` through its slots: the keyword call of the frozen dataclass costs about
# twice as much, and a game's rolls are mostly new ones (each turn's attacks number them)
_new = object.__new__
_set_kind, _set_label, _set_draw, _set_n, _set_count, _set_secret = (
    getattr(Chance, f).__set__ for f in ("kind", "label", "draw", "n", "count", "secret"))


@lru_cache(maxsize=16384)  # the same rolls recur from game to game (bounded)
def roll_node(turn: int, attacks: int, role: str, count: int) -> Chance:
    """The Chance of one roll, made once: its label numbers the turn and the attack."""
    node = _new(Chance)  # Chance(label=..., draw="dice", n=6, count=count)
    _set_kind(node, "chance")
    _set_label(node, f"dice:turn:{turn}:attack:{attacks}:{role}")
    _set_draw(node, "dice")
    _set_n(node, 6)
    _set_count(node, count)
    _set_secret(node, False)
    return node


def rolled(state: NycState, values: tuple[int, ...], events: Events) -> None:
    b = state.battle
    assert b is not None
    if b.inst_roll is None:
        instigator_rolled(state, b, values, events)
        return
    resolve(state, b, b.inst_roll, values, events)


def instigator_rolled(state: NycState, b: Battle, values: tuple[int, ...], events: Events
                      ) -> None:
    state.battle = battle(b.frm, b.to, b.defender, b.dice, b.def_dice, values)
    events.add("dice", {"role": "instigator", "seat": state.current, "values": list(values)})


def resolve(state: NycState, b: Battle, inst: tuple[int, ...], dfn: tuple[int, ...],
            events: Events) -> None:
    # ``compare``, inline (every roll of a game comes here): each side's dice highest first
    # (``sorted(..., reverse=True)`` of up to three dice, by stable exchanges), then the
    # highest pair, and the second when both rolled two (the defender rolls at most two)
    if len(inst) == 3:
        x, y, z = inst
        if x < y:
            x, y = y, x
        if y < z:
            y, z = z, y
            if x < y:
                x, y = y, x
        high_inst = [x, y, z]
    elif len(inst) == 2:
        x, y = inst
        high_inst = [x, y] if not x < y else [y, x]
    else:
        high_inst = sorted(inst, reverse=True)
    if len(dfn) == 2:
        u, v = dfn
        high_dfn = [u, v] if not u < v else [v, u]
        if len(high_inst) >= 2:
            def_losses = (high_inst[0] > high_dfn[0]) + (high_inst[1] > high_dfn[1])
            inst_losses = 2 - def_losses
        else:
            def_losses = 1 if high_inst[0] > high_dfn[0] else 0
            inst_losses = 1 - def_losses
    else:
        high_dfn = sorted(dfn, reverse=True)
        def_losses = 1 if high_inst[0] > high_dfn[0] else 0
        inst_losses = 1 - def_losses
    frm, to = b.frm, b.to
    cubes = list(state.cubes)
    cubes[frm] -= inst_losses
    cubes[to] -= def_losses
    state.cubes = tuple(cubes)
    events.add("battle", {
        "from": NB_IDS[frm],
        "to": NB_IDS[to],
        "instigator": state.current,
        "defender": b.defender,
        "instigator_dice": high_inst,
        "defender_dice": high_dfn,
        "instigator_losses": inst_losses,
        "defender_losses": def_losses,
    })
    if cubes[to] > 0:
        if cubes[frm] >= 2:  # it may attack ``to`` again: no need to look for an attack
            state.phase = "attack"
            state.battle = None
            return
        enter_attack(state, events)
        return
    conquer(state, b, events)


def conquer(state: NycState, b: Battle, events: Events) -> None:
    """The defender is booted out: the rolled dice move in at once (no neighborhood is ever
    empty; NY-9), then elimination (NY-7), the win check (NY-12) and the rest of the move-in."""
    seat = state.current
    before = held(state)
    owner = list(state.owner)
    cubes = list(state.cubes)
    owner[b.to] = seat
    cubes[b.to] = b.dice
    cubes[b.frm] -= b.dice
    state.owner, state.cubes = tuple(owner), tuple(cubes)
    after = state.holdings = before.after_conquest(state.owner, b.to)
    state.conquered = True
    state.battle = None
    events.add("conquered", {"seat": seat, "nb": NB_IDS[b.to], "from": NB_IDS[b.frm],
                             "defender": b.defender, "moved": b.dice})
    if not after.owned(b.defender):
        eliminate(state, b.defender, seat, events)
    # NY-12: after every conquest (``has_won`` once the map or a mission may be complete)
    reason = (has_won(state, seat) if state.seldom.options.missions
              or len(after.owned(seat)) == board.N_NB else None)
    if reason is not None:
        finish(state, seat, reason, events)
        return
    if cubes[b.frm] > 1:
        state.phase = "move_in"
        state.move_in = MoveIn(b.frm, b.to, b.dice)
        return
    enter_attack(state, events)


def eliminate(state: NycState, loser: int, by: int, events: Events) -> None:
    """NY-7: the eliminated player's cards go to the eliminator (default) or the discard."""
    seldom = state.own_seldom()
    cards = seldom.hands[loser]
    hands = list(seldom.hands)
    hands[loser] = ()
    to = seldom.options.eliminated_cards
    taken = False
    if to == "eliminator":
        hands[by] = hands[by] + cards
        taken = bool(cards)
    else:
        seldom.discard += cards
    seldom.hands = tuple(hands)
    seldom.eliminated += (Elimination(loser, by, state.turn),)
    # The card faces stay hidden from the other seats; only their number is public.
    events.add("eliminated", {"seat": loser, "by": by, "cards": len(cards), "cards_to": to})
    if taken:
        events.add("cards_taken", {"seat": by, "from": loser, "cards": list(cards)}, (by, loser))


def move_in(state: NycState, seat: int, n: int, events: Events) -> Rejection | None:
    """NY-9: in total at least the dice rolled, at least 1 cube stays behind."""
    m = state.move_in
    assert m is not None
    most = m.moved + state.cubes[m.frm] - 1
    if not m.moved <= n <= most:
        return reject("action/illegal", f"move between {m.moved} and {most} cubes in total")
    moved_in(state, seat, m, n, events)
    return None


def moved_in(state: NycState, seat: int, m: MoveIn, n: int, events: Events) -> None:
    """A legal move-in (``move_in`` checks it; a listed one is legal)."""
    extra = n - m.moved
    cubes = list(state.cubes)
    cubes[m.frm] -= extra
    cubes[m.to] += extra
    state.cubes = tuple(cubes)
    state.move_in = None
    events.add("moved_in", {"seat": seat, "nb": NB_IDS[m.to], "n": n})
    enter_attack(state, events)


def end_attack(state: NycState, events: Events) -> None:
    enter_fortify(state, events)
