"""Log sentences for Empire's End (see ``shared.rules.narrate``). Tiles and cards by name
with their printed (or reconstructed) text; location numbers and disasters 1-based."""

# ruff: noqa: E501  (a table of sentences: one entry per line reads best)

from __future__ import annotations

from typing import Any

from shared.rules._kit.text import Data, Names, Narrator, join, plural
from shared.rules.empires_end import data

_TILE = {t.id: t for t in data.TILES}
_CARD = {c.id: c for c in data.DISASTERS}


def tile(t: Any) -> str:
    x = _TILE.get(str(t))
    return f"the {x.type} ({x.vp} VP)" if x is not None else str(t)


def card(c: Any) -> str:
    x = _CARD.get(str(c))
    return f"{x.type} {x.target} (“{x.ability.text}”)" if x is not None else str(c)


def card_short(c: Any) -> str:
    x = _CARD.get(str(c))
    return f"{x.type} {x.target}" if x is not None else str(c)


def res(bundle: Any) -> str:
    parts = [f"{v} {k}" for k, v in (bundle or {}).items() if v and k in data.RESOURCES]
    return join(parts) if parts else "nothing"


def _conflict(d: Data, s: Names) -> str:
    parts = []
    for r in d["results"]:
        bits = [f"strength {r['strength']}"]
        if r.get("victory"):
            bits.append("victory")
        if r.get("vp"):
            bits.append(f"{r['vp']:+d} VP")
        if r.get("tokens"):
            bits.append(res(r["tokens"]))
        if r.get("upheaval"):
            bits.append("upheaval: " + join([tile(t) for t in r["upheaval"]]) + " swap")
        parts.append(f"{s(r['seat'])} {', '.join(bits)}")
    return f"Conflict {d['card']} resolved: " + "; ".join(parts)


def _phase(d: Data, s: Names) -> str:
    return f"Phase {d['number']}: {str(d['phase']).replace('_', ' and ')}"


def _tokens(d: Data, s: Names) -> str:
    return f"{s(d['seat'])} gains {res(d)} (hidden)"


NARRATORS: dict[str, Narrator] = {
    "locations_arranged": lambda d, s: "Empires laid out: " + join(
        [f"{i + 1}. {tile(t)}" for i, t in enumerate(d["order"])]),
    "first_player": lambda d, s: f"{s(d['seat'])} is the first player",
    "hands_dealt": lambda d, s: f"Everyone is dealt {plural(d['cards_each'], 'innovation card')}",
    "hand_dealt": lambda d, s: f"{s(d['seat'])}'s hand: " + join([card(c) for c in d["cards"]]),
    "deck_reshuffled": lambda d, s: f"The discards are shuffled into a new deck of {plural(d['cards'], 'card')}",
    "phase_started": _phase,
    "order_chosen": lambda d, s: f"{s(d['seat'])} chooses to do {d['first']} first",
    "finished": lambda d, s: f"{s(d['seat'])} finishes {d['part']}",
    "game_over": lambda d, s: "Game over: end-of-game abilities are scored",
    "conflict_revealed": lambda d, s: f"Conflict card {d['card']} is revealed",
    "conflict_resolved": _conflict,
    "card_drawn": lambda d, s: (f"{s(d['seat'])} draws {card(d['card'])}" if d.get("card")
                                else f"{s(d['seat'])} draws a card"),
    "card_sold": lambda d, s: (f"{s(d['seat'])} sells {card(d['card'])} for a coin" if d.get("card")
                               else f"{s(d['seat'])} sells a card for a coin"),
    "innovation_built": lambda d, s: (f"{s(d['seat'])} builds {card(d['card'])} on "
                                      f"{tile(d['tile'])} for {plural(d['cost'], 'hammer')}"),
    "paid": lambda d, s: f"{s(d['seat'])} pays {plural(d.get('hammer', 0), 'hammer')} and {plural(d.get('coin', 0), 'coin')}",
    "location_repaired": lambda d, s: (f"{s(d['seat'])} repairs {tile(d['tile'])} for "
                                       f"{plural(d['cost'], 'hammer')}"),
    "hand_discarded": lambda d, s: (f"{s(d['seat'])} discards {join([card_short(c) for c in d['cards']])}" if "cards" in d
                                    else f"{s(d['seat'])} discards {plural(d['count'], 'card')}"),
    "locations_swapped": lambda d, s: f"{s(d['seat'])} swaps {tile(d['a'])} and {tile(d['b'])}",
    "innovation_moved": lambda d, s: (f"{s(d['seat'])} moves {card_short(d['card'])} from "
                                      f"{tile(d['from'])} to {tile(d['to'])}"),
    "refreshed": lambda d, s: (f"{s(d['seat'])} refreshes "
                               + join([card_short(c) if c in _CARD else tile(c) for c in d["cards"]])),
    "tokens_gained": _tokens,
    "vp_gained": lambda d, s: f"{s(d['seat'])} scores {plural(d['vp'], 'VP', 'VP')} ({d['phase']})",
    "converted": lambda d, s: (f"{s(d['seat'])} converts with {card_short(d['source']) if d['source'] in _CARD else tile(d['source'])}"
                               f" (choice {int(d['option']) + 1})"),
    "repeated": lambda d, s: (f"{s(d['seat'])} repeats {card_short(d['target']) if d['target'] in _CARD else tile(d['target'])}"
                              f" with {card_short(d['source']) if d['source'] in _CARD else tile(d['source'])}"),
    "disaster_revealed": lambda d, s: (f"Disaster {d['disaster'] + 1}: {card(d['card'])} threatens "
                                       f"location {d['target']}"),
    "disaster_skipped": lambda d, s: f"Disaster {d['disaster'] + 1} is skipped: the deck is empty",
    "disaster_replaced": lambda d, s: (f"{s(d['seat'])} exhausts {card_short(d['by'])} to replace "
                                       f"disaster {d['disaster'] + 1} ({card_short(d['card'])}) with the top card"),
    "bid": lambda d, s: f"{s(d['seat'])} bids {'an' if d['resource'] == 'axe' else 'a'} {d['resource']} on disaster {d['disaster'] + 1}",
    "free_bid": lambda d, s: (f"{s(d['seat'])} passes disaster {d['disaster'] + 1} free with "
                              f"{card_short(d['card'])}"),
    "disaster_taken": lambda d, s: (f"{s(d['seat'])} takes disaster {d['disaster'] + 1}, "
                                    f"{card_short(d['card'])}, and collects the bids ({res(d.get('bids'))})"),
    "screen_lifted": lambda d, s: (f"{s(d['seat'])} lifts the screen: {res(d['resources'])}; buys "
                                   f"{plural(d['coins_bought'], 'coin')} (EEND-9)"),
    "nothing_destroyed": lambda d, s: f"Nothing of {s(d['seat'])}'s is destroyed",
    "location_destroyed": lambda d, s: (f"{s(d['seat'])}'s location {d['position']}, {tile(d['tile'])}, "
                                        "is destroyed"),
    "innovation_discarded": lambda d, s: (f"{s(d['seat'])} has no healthy location: "
                                          f"{card_short(d['card'])} is discarded"),
    "innovation_placed": lambda d, s: (f"{s(d['seat'])} places {card(d['card'])} on {tile(d['tile'])}"),
}
