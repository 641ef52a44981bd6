"""What a player who watched every public event of the hand remembers.

The view shows only the top card of each discard pile (CG-16), yet every card under it was
shown face up when it was discarded, and every card stolen from a pile (CG-15) was shown as it
was taken. A search bot folds the public events into this memory (``SearchSpec.remember``):

* ``piles``: every discard pile, bottom to top. Discards, steals (CG-15), a spell's two cards
  (CG-17: the Wizard under the other), a Berserker's set, Rise of the Dead (only 2s and Wizards
  stay) and the deck's rebuild (CG-18: only each top stays) all show which cards move.
* ``known``: cards known to be in another seat's hand: one it stole from a pile, took from an
  army (a 2's sabotage, CG-14; a mass steal's army card, CG-17), or raised with Rise of the
  Dead. A card leaves the list when its holder shows it (army, empire or special set, discard,
  spell); when the holder passes a card face down (trade, tribute, gift, mass trade, a mass
  steal from the hand, CG-5/CG-13/CG-17) the holder's whole list is forgotten, and when it
  loses a battle (CG-6) the cards that answer the demand are.
* ``lacks``: the demands a seat answered "no" to in a battle (CG-6, CG-20: always honest), kept
  until a card next comes into its hand (a draw, a pass, a steal, spoils).

Only public events are folded, so a bot run by the service (which reads the game's public
record) and one fed its client's events remember the same. Each hand starts afresh at its
``deal`` (all cards go back to the deck between hands, CG-2), so the memory is complete from
the first deal on; before it, nothing is remembered (None). A memory that disagrees with the
view (a pile's height or top) is not used for that pile (``determinize.recall``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shared.rules.api import Json
from shared.rules.empire_cards.cards import rank_of
from shared.rules.empire_cards.data import WIZARD
from shared.rules.empire_cards.interact import matches_demand

# public events of a card passed face down: the kind -> (the giver's field, the taker's field)
HIDDEN_PASSES: dict[str, tuple[str, str]] = {
    "trade": ("seat", "target"),  # CG-5
    "trade_done": ("seat", "to"),
    "tribute": ("seat", "to"),  # CG-13
    "gift": ("seat", "to"),
    "mass_trade_give": ("seat", "to"),  # CG-17
    "mass_steal_hand": ("target", "seat"),
}
# public events that show cards leaving their holder's hand for the table
SHOWN: tuple[str, ...] = ("army", "empire_set", "special_set", "spell")
# public events that show a card taken into the taker's hand: kind -> the taker's field
TAKEN: dict[str, str] = {"steal": "seat", "sabotage_take": "seat", "mass_steal_army": "seat"}


def _fresh() -> dict[str, Any]:
    return {"piles": {}, "known": {}, "lacks": {}, "demand": None}


def _copy(old: Any) -> dict[str, Any]:
    return {"piles": {k: list(v) for k, v in old["piles"].items()},
            "known": {k: list(v) for k, v in old["known"].items()},
            "lacks": {k: [list(d) for d in v] for k, v in old.get("lacks", {}).items()},
            "demand": old.get("demand")}


def _drop(cards: list[str], gone: Sequence[str]) -> None:
    for card in gone:
        if card in cards:
            cards.remove(card)


def remember(memory: Json, events: Sequence[dict[str, Json]], seat: int) -> Json:
    """Fold the public events a seat saw into its memory of the hand (see the module's
    docstring). Private events are skipped (the service's bots never get them)."""
    old: Any = memory
    mem: dict[str, Any] | None = _copy(old) if isinstance(old, dict) else None
    me = str(seat)
    for e in events:
        kind, raw = e.get("type"), e.get("data")
        if e.get("private") or not isinstance(raw, dict):
            continue
        data: dict[str, Any] = raw
        if kind == "deal":  # a new hand: every card was gathered (CG-2)
            mem = _fresh()
            continue
        if mem is None:
            continue
        _fold(mem, str(kind), data, me)
    return mem


def _fold(mem: dict[str, Any], kind: str, data: dict[str, Any], me: str) -> None:
    piles: dict[str, list[str]] = mem["piles"]
    known: dict[str, list[str]] = mem["known"]

    def pile(s: Any) -> list[str]:
        return piles.setdefault(str(s), [])

    def hand(s: Any) -> list[str]:
        return known.setdefault(str(s), [])

    for taker in _takers(kind, data):  # a card came in: what it lacked, it may hold now
        mem["lacks"].pop(taker, None)

    if kind == "discard":
        pile(data["seat"]).append(str(data["card"]))
        _drop(hand(data["seat"]), [str(data["card"])])
    elif kind == "spell":  # CG-17: the Wizard under the other card
        cards = [str(c) for c in data.get("cards", [])]
        pile(data["seat"]).extend(cards)
        _drop(hand(data["seat"]), cards)
    elif kind in SHOWN:
        _drop(hand(data["seat"]), [str(c) for c in data.get("cards", [])])
    if kind == "steal":  # CG-15: the top card, shown
        top = pile(data["target"])
        if top:
            top.pop()
    if kind in TAKEN and str(data[TAKEN[kind]]) != me:
        hand(data[TAKEN[kind]]).append(str(data["card"]))
    elif kind == "berserker":  # the set goes to its owner's discard pile
        pile(data["target"]).extend(str(c) for c in data.get("cards", []))
    elif kind == "rise_of_the_dead":  # every pile but its 2s and Wizards to the caster
        risen: list[str] = []
        for s, cards in piles.items():
            risen += [c for c in cards if rank_of(c) not in ("2", WIZARD)]
            piles[s] = [c for c in cards if rank_of(c) in ("2", WIZARD)]
        if str(data["seat"]) != me:
            hand(data["seat"]).extend(risen)
    elif kind == "deck_rebuilt":  # CG-18: each pile keeps its top card
        for s, cards in piles.items():
            piles[s] = cards[-1:]
    elif kind in HIDDEN_PASSES:  # (to me too: the public record does not say which card)
        known[str(data[HIDDEN_PASSES[kind][0]])] = []
    elif kind == "battle":
        mem["demand"] = [str(data["rank"]), data.get("suit")]
    elif kind == "battle_answer" and not data.get("has") and mem.get("demand"):
        # CG-20: the answer is honest; the seat holds no card of the demand
        mem["lacks"].setdefault(str(data["seat"]), []).append(list(mem["demand"]))
    elif kind == "battle_spoils":  # CG-6: a card of the demand
        demand = mem.get("demand") or [str(data["rank"]), None]
        held = hand(data["seat"])
        held[:] = [c for c in held if not matches_demand(c, *demand)]


def _takers(kind: str, data: dict[str, Any]) -> list[str]:
    """The seats a public event may have put a card into the hand of: the taker, and the
    owner of an army set left with one card, which goes back to the hand (CG-9)."""
    if kind in ("draw", "rise_of_the_dead"):
        return [str(data["seat"])]
    if kind == "discard" and data.get("source") == "army":
        return [str(data["seat"])]
    if kind in HIDDEN_PASSES:
        return [str(data[HIDDEN_PASSES[kind][1]])]
    if kind == "steal":
        return [str(data["seat"])]
    if kind in TAKEN:  # a 2's sabotage or a mass steal: from the target's army
        return [str(data[TAKEN[kind]]), str(data["target"])]
    if kind == "battle_spoils":
        return [str(data["to"])]
    return []
