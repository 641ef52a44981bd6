"""Log sentences for The Empire Engine (see ``shared.rules.narrate``)."""

# ruff: noqa: E501  (a table of sentences: one entry per line reads best)

from __future__ import annotations

from typing import Any

from shared.rules._kit.text import Data, Names, Narrator, join, plural

_ENGINE = {"L": "left engine", "R": "right engine"}


def engine(e: Any) -> str:
    return _ENGINE.get(str(e), f"engine {e}")


def _placement(p: Data, s: Names) -> str:
    where = f"{s(p['seat'])}'s {engine(p['engine'])}"
    if p.get("gear") is None:
        text = f"{where} shows {p.get('top')}"
    else:
        boost = "" if p.get("boost") in (None, "none") else f", boosted with a {p['boost']}"
        text = (f"{where} gets gear {p['gear']}{boost}: {plural(p.get('turns'), 'quarter-turn')}"
                f" to {p.get('top')}")
    if p.get("overridden"):
        text += " (replaced: the second placement must use the other engine, EE-1/EE-2)"
    return text


def _plan(d: Data, s: Names) -> str:
    return f"Round {d['round']} plans revealed: " + "; ".join(_placement(p, s) for p in d["placements"])


def _game_over(d: Data, s: Names) -> str:
    piles = d.get("score_piles") or {}
    parts = [f"{s(k)} {plural(v.get('soldiers', 0), 'soldier')}, {plural(v.get('goods', 0), 'good')}, "
             f"{plural(v.get('inventions', 0), 'invention')}" for k, v in piles.items()]
    return "Game over; score piles revealed: " + "; ".join(parts)


def _took(d: Data) -> str:
    t = d.get("took")
    return f"an {t}" if t == "invention" else f"a {t}"


NARRATORS: dict[str, Narrator] = {
    "start_player": lambda d, s: f"{s(d['seat'])} is the start player",
    "plan_revealed": _plan,
    "arm": lambda d, s: f"{s(d['seat'])} arms: +{plural(d['soldiers'], 'soldier')}",
    "produce": lambda d, s: f"{s(d['seat'])} produces: +{plural(d['goods'], 'good')}",
    "invent": lambda d, s: f"{s(d['seat'])} invents: +{plural(d['inventions'], 'invention')}",
    "attack": lambda d, s: (f"{s(d['seat'])} attacks {s(d['target'])} with the {engine(d['engine'])}"
                            + ("" if d.get("supported", True) else " but has no soldier to pay")),
    "attack_paid": lambda d, s: f"{s(d['seat'])} pays {plural(d['soldiers'], 'soldier')} for attacking",
    "block": lambda d, s: (f"{s(d['seat'])} blocks {s(d['attacker'])}'s attack "
                           f"({engine(d['engine'])}) and scores a {d.get('reward', 'soldier')}"),
    "defend_wasted": lambda d, s: f"{s(d['seat'])} defends, but nobody attacked",
    "loot": lambda d, s: (f"{s(d['seat'])} loots {_took(d)} from {s(d['target'])} "
                          f"({engine(d['engine'])})"),
    "export": lambda d, s: f"{s(d['seat'])} exports {plural(d['goods'], 'good')} to the score pile",
    "export_failed": lambda d, s: f"{s(d['seat'])} has no goods to export",
    "salvage": lambda d, s: (f"{s(d['seat'])} salvages {_took(d)}" if d.get("took")
                             else f"{s(d['seat'])} salvages a hidden resource"),
    "salvage_failed": lambda d, s: f"{s(d['seat'])} finds nothing to salvage",
    "round_ended": lambda d, s: f"Round {d['round']} ends",
    "round_started": lambda d, s: f"Round {d['round']} begins; {s(d['start_player'])} starts",
    "game_over": _game_over,
}

__all__ = ["NARRATORS", "engine", "join"]
