"""Log sentences for Empire: The Game of New York (see ``shared.rules.narrate``).

Neighborhoods by name ("Harlem (Manhattan)"), never by code; missions by their boroughs.
"""

# ruff: noqa: E501  (a table of sentences: one entry per line reads best)

from __future__ import annotations

from typing import Any

from shared.rules._kit.text import Data, Names, Narrator, join, plural
from shared.rules.empire_nyc import data

_NB = {n.id: n for n in data.NEIGHBORHOODS}
_BOROUGH = {b.id: b.name for b in data.BOROUGHS}
_MISSION = {m.id: m.boroughs for m in data.MISSIONS}


def nb(code: Any) -> str:
    n = _NB.get(str(code))
    return f"{n.name} ({_BOROUGH[n.borough]})" if n else str(code)


def card(code: Any) -> str:
    n = _NB.get(str(code))
    if n is not None:
        return f"{n.name} ({n.pest})"
    return "a River Wild" if str(code) in data.WILD_CARDS else str(code)


def borough(b: Any) -> str:
    return _BOROUGH.get(str(b), str(b))


def _dice(d: Any) -> str:
    return plural(d, "die", "dice")


def _first_player(d: Data, s: Names) -> str:
    return f"{s(d['seat'])} plays first; turn order: {s.many(d['order'])}"


def _dealt(d: Data, s: Names) -> str:
    owners = d["owners"]
    per: dict[int, int] = {}
    for seat in owners.values():
        per[seat] = per.get(seat, 0) + 1
    each = join([f"{s(k)} {v}" for k, v in sorted(per.items())])
    return f"The {len(owners)} neighborhoods are dealt out ({each})"


def _mission(d: Data, s: Names) -> str:
    boroughs = d.get("boroughs") or _MISSION.get(str(d.get("mission")), ())
    return f"{s(d.get('seat'))}'s secret mission: occupy all of {join([borough(b) for b in boroughs])}"


def _turn_started(d: Data, s: Names) -> str:
    bonus = d.get("boroughs") or {}
    extra = f" + {join([f'{borough(b)} {v}' for b, v in bonus.items()])}" if bonus else ""
    return (f"Turn {d['turn']}: {s(d['seat'])} holds {plural(d['neighborhoods'], 'neighborhood')} "
            f"and receives {plural(d['reinforcements'], 'cube')} ({d['base']} base{extra})")


def _battle(d: Data, s: Names) -> str:
    return (f"Battle for {nb(d['to'])} from {nb(d['from'])}: {s(d['instigator'])} rolls "
            f"{', '.join(map(str, d['instigator_dice']))} against {s(d['defender'])}'s "
            f"{', '.join(map(str, d['defender_dice']))}; the attacker loses "
            f"{plural(d['instigator_losses'], 'cube')}, the defender "
            f"{plural(d['defender_losses'], 'cube')}")


def _eliminated(d: Data, s: Names) -> str:
    where = "to the eliminator" if d.get("cards_to") == "eliminator" else f"({d.get('cards_to')})"
    return (f"{s(d['by'])} eliminates {s(d['seat'])}; {plural(d.get('cards', 0), 'card')} "
            f"{'goes' if d.get('cards', 0) == 1 else 'go'} {where}")


def _game_over(d: Data, s: Names) -> str:
    reason = str(d.get("reason"))
    if reason == "mission":
        how = f"by completing the mission {join([borough(b) for b in d.get('boroughs', [])])}"
    elif reason == "map":
        how = "by holding the whole map"
    elif reason == "round_limit":
        how = f"on neighborhoods at the round limit ({d.get('rounds')} rounds, NY-S1)"
    else:
        how = f"({reason})"
    return f"Game over: {s(d.get('winner'))} wins {how}"


NARRATORS: dict[str, Narrator] = {
    "first_player": _first_player,
    "dealt": _dealt,
    "missions_dealt": lambda d, s: f"{plural(d['count'], 'secret mission')} are dealt",
    "mission": _mission,
    "placed": lambda d, s: f"{s(d['seat'])} places {plural(d['n'], 'cube')} on {nb(d['nb'])}",
    "turn_started": _turn_started,
    "traded": lambda d, s: (f"{s(d['seat'])} trades in set number {d['set_number']} "
                            f"({join([card(c) for c in d['cards']])}) for {plural(d['value'], 'cube')}"),
    "fortified": lambda d, s: (f"{s(d['seat'])} moves {plural(d['n'], 'cube')} from {nb(d['from'])} "
                               f"to {nb(d['to'])}"),
    "card_awarded": lambda d, s: (f"{s(d['seat'])} conquered this turn and takes a card "
                                  f"(now holds {d['hand_size']})"),
    "card_drawn": lambda d, s: f"{s(d['seat'])} draws the card {card(d['card'])}",
    "cards_taken": lambda d, s: (f"{s(d['seat'])} takes {s(d['from'])}'s cards: "
                                 f"{join([card(c) for c in d['cards']])}"),
    "turn_ended": lambda d, s: f"{s(d['seat'])} ends turn {d['turn']}",
    "no_card": lambda d, s: f"{s(d['seat'])} conquered nothing this turn: no card",
    "deck_shuffled": lambda d, s: f"The draw pile is shuffled ({plural(d['cards'], 'card')})",
    "attack_declared": lambda d, s: (f"{s(d['seat'])} attacks {nb(d['to'])} ({s(d['defender'])}) "
                                     f"from {nb(d['from'])} with {_dice(d['dice'])}"),
    "defended": lambda d, s: f"{s(d['seat'])} defends with {_dice(d['dice'])}",
    "dice": lambda d, s: (f"{s(d['seat'])} rolls {', '.join(map(str, d['values']))} "
                          f"({'attacker' if d.get('role') == 'instigator' else 'defender'})"),
    "battle": _battle,
    "conquered": lambda d, s: (f"{s(d['seat'])} conquers {nb(d['nb'])} from {s(d['defender'])}, "
                               f"moving in {plural(d['moved'], 'cube')} from {nb(d['from'])}"),
    "eliminated": _eliminated,
    "moved_in": lambda d, s: f"{s(d['seat'])} moves {plural(d['n'], 'more cube')} into {nb(d['nb'])}",
    "game_over": _game_over,
}
