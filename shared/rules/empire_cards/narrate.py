"""Log sentences for Empire The Card Game (see ``shared.rules.narrate``). Cards as rank and
suit ("Q♥", "Wizard"); the pack a card comes from is not shown (it never matters)."""

# ruff: noqa: E501  (a table of sentences: one entry per line reads best)

from __future__ import annotations

from typing import Any

from shared.rules._kit.text import Data, Names, Narrator, join, plural
from shared.rules.empire_cards.data import ACHIEVEMENT_NAMES, WIZARD

_SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_REASON = {"turn": "for the turn", "first_set": "for a first empire set (CG-13)",
           "same_suit": "for a same-suit set (CG-11)", "run_out": "for running out of cards (CG-12)",
           "owed": "that the empty deck owed"}
_SPELL = {"mass_steal": "Mass steal", "berserker": "Berserker", "mass_trade": "Mass trade",
          "mass_sabotage": "Mass sabotage", "rise_of_the_dead": "Rise of the dead"}
_SPECIAL = {"serf": "a Serf Rebellion", "barbarian": "a Barbarian run", "horde": "a Barbarian horde"}


def card(code: Any) -> str:
    c = str(code)
    if c.startswith(WIZARD):
        return "Wizard"
    return c[:-2] + _SUIT.get(c[-2], c[-2]) if len(c) >= 3 else c


def cards(codes: Any) -> str:
    return join([card(c) for c in codes or []])


def regime(r: Any) -> str:
    return {"thief": "Thief", "merchant": "Merchant", "warlord": "Warlord"}.get(str(r), str(r))


def spell(k: Any) -> str:
    return _SPELL.get(str(k), str(k).replace("_", " "))


def _battle(d: Data, s: Names) -> str:
    want = "a Wizard" if d["rank"] == WIZARD else f"a {d['rank']}"
    if d.get("suit"):
        want += _SUIT.get(str(d["suit"]), str(d["suit"]))
    return f"{s(d['seat'])} battles {s(d['target'])}, demanding {want}"


def _battle_result(d: Data, s: Names) -> str:
    defence = cards(d["defence"]) if d.get("defence") else "no set"
    who = s(d["seat"]) if d["winner"] == "attacker" else s(d["target"])
    return (f"Battle: {s(d['seat'])}'s {cards(d['attack'])} against {s(d['target'])}'s "
            f"{defence}; {who} wins (CG-8)")


def _spell_target(d: Data, s: Names, what: str) -> str:
    return (f"{spell(what)}: {s(d['seat'])} takes {cards(d['cards'])} from {s(d['target'])}'s army"
            " into their own")


NARRATORS: dict[str, Narrator] = {
    "hand_start": lambda d, s: f"Hand {d['hand']} begins",
    "dealer": lambda d, s: f"Hand {d['hand']}: {s(d['seat'])} deals",
    "rps": lambda d, s: (f"Hand {d['hand']}, rock-paper-scissors round {d['round']}: "
                         + ", ".join(f"{s(int(k))} shows {v}" for k, v in d["shapes"].items())
                         + (f"; {s(d['stay'][0])} wins" if len(d["stay"]) == 1 else
                            "; " + ", ".join(s(x) for x in d["stay"]) + " play on")),
    "perfect_deal": lambda d, s: (f"{s(d['seat'])} made a perfect deal and takes "
                                  f"{plural(d['extra'], 'more card')}" if d["perfect"] else
                                  f"{s(d['seat'])}'s deal was not perfect: no bonus"),
    "deal": lambda d, s: f"{s(d['dealer'])} deals {plural(d['cards_each'], 'card')} to each player",
    "dealt": lambda d, s: f"{s(d['seat'])}'s hand: {cards(d['cards'])}",
    "turn": lambda d, s: f"{s(d['seat'])}'s turn",
    "skipped": lambda d, s: f"{s(d['seat'])} has no cards and is skipped",
    "draw": lambda d, s: f"{s(d['seat'])} draws {plural(d['count'], 'card')} {_REASON.get(str(d.get('reason')), '')}".rstrip(),
    "drew": lambda d, s: f"{s(d['seat'])} draws {cards(d['cards'])}",
    "draw_short": lambda d, s: f"The deck is empty: {s(d['seat'])} gets {plural(d['missing'], 'card')} fewer",
    "deck_rebuilt": lambda d, s: f"The discards are shuffled into a new deck of {plural(d['size'], 'card')}",
    "discard": lambda d, s: (f"{s(d['seat'])} discards {card(d['card'])}"
                             + (" from the army" if d.get("source") == "army" else "")),
    "pass": lambda d, s: f"{s(d['seat'])} passes",
    "steal": lambda d, s: f"{s(d['seat'])} steals {card(d['card'])} from {s(d['target'])}'s discard pile",
    "trade": lambda d, s: f"{s(d['seat'])} offers {s(d['target'])} a face-down card in trade",
    "trade_card": lambda d, s: f"{s(d['seat'])} gives {s(d['to'])} {card(d['card'])} in the trade",
    "trade_done": lambda d, s: f"{s(d['seat'])} answers the trade with a card for {s(d['to'])}",
    "battle": _battle,
    "battle_answer": lambda d, s: (f"{s(d['seat'])} {'has' if d['has'] else 'does not have'} the card demanded"),
    "battle_result": _battle_result,
    "battle_spoils": lambda d, s: f"{s(d['seat'])} gives {s(d['to'])} a {d['rank']} as spoils",
    "battle_card": lambda d, s: f"{s(d['seat'])}'s spoils card for {s(d['to'])} is {card(d['card'])}",
    "army": lambda d, s: f"{s(d['seat'])} adds {cards(d['cards'])} to the army",
    "empire_set": lambda d, s: (f"{s(d['seat'])} lays empire set {d['number']} ({regime(d['regime'])}): "
                                f"{cards(d['cards'])}" + (", all one suit" if d.get("same_suit") else "")),
    "special_set": lambda d, s: f"{s(d['seat'])} lays {_SPECIAL.get(d['kind'], d['kind'])}: {cards(d['cards'])}",
    "sabotage_skip": lambda d, s: f"{s(d['seat'])} does not sabotage {s(d['target'])}",
    "sabotage_take": lambda d, s: f"{s(d['seat'])} sabotages {s(d['target'])}'s army, discarding {card(d['card'])}",
    "tribute": lambda d, s: f"{s(d['seat'])} pays {s(d['to'])} a card in tribute",
    "tribute_card": lambda d, s: f"{s(d['seat'])}'s tribute to {s(d['to'])} is {card(d['card'])}",
    "gift": lambda d, s: f"{s(d['seat'])} gives {s(d['to'])} a gift card",
    "gift_card": lambda d, s: f"{s(d['seat'])}'s gift to {s(d['to'])} is {card(d['card'])}",
    "spell": lambda d, s: f"{s(d['seat'])} casts {spell(d['spell'])} with {cards(d['cards'])}",
    "spell_done": lambda d, s: f"{s(d['seat'])}'s {spell(d['spell'])} ends",
    "mass_steal_hand": lambda d, s: f"Mass steal: {s(d['seat'])} takes a card from {s(d['target'])}'s hand",
    "mass_steal_card": lambda d, s: f"The card taken from {s(d['target'])} is {card(d['card'])}",
    "mass_steal_army": lambda d, s: f"Mass steal: {s(d['seat'])} takes {card(d['card'])} from {s(d['target'])}'s army",
    "mass_trade": lambda d, s: f"Mass trade: {s(d['seat'])} and {s(d['target'])} swap {plural(d['n'], 'card')}",
    "mass_trade_give": lambda d, s: f"{s(d['seat'])} passes a card to {s(d['to'])}",
    "mass_trade_card": lambda d, s: f"{s(d['seat'])} passes {card(d['card'])} to {s(d['to'])}",
    "berserker": lambda d, s: (f"Berserker: {s(d['seat'])} sends {cards(d['cards'])} from "
                               f"{s(d['target'])}'s army to their discard pile"),
    "mass_sabotage": lambda d, s: _spell_target(d, s, "mass_sabotage"),
    "rise_of_the_dead": lambda d, s: f"Rise of the dead: {s(d['seat'])} takes {plural(d['count'], 'card')} from the discards",
    "risen_cards": lambda d, s: f"The risen cards: {cards(d['cards'])}",
    "hand_won": lambda d, s: f"{s(d['seat'])} wins hand {d['hand']}",
    "hand_undecided": lambda d, s: f"Hand {d['hand']} ends undecided after {plural(d['turns'], 'turn')} (CG-S1)",
    "achievement": lambda d, s: (f"{s(d['seat'])} earns the {ACHIEVEMENT_NAMES.get(d['regime'], regime(d['regime']))}"
                                 + (" card" if d.get("how") == "empire" else f" ({d.get('how')})")),
    "plunder": lambda d, s: (f"{s(d['seat'])} takes the {regime(d['regime'])} achievement"
                             + (f" from {s(d['target'])}" if d.get("target") is not None else "")),
    "destroy": lambda d, s: f"{s(d['seat'])} destroys {s(d['target'])}'s {regime(d['regime'])} achievement",
    "emperor_overlord": lambda d, s: f"{s(d['seat'])} becomes Emperor Overlord and wins the match",
    "match_over": lambda d, s: f"The match ends after {plural(d['hands'], 'hand')}",
}
