"""The public component data of Empire's End as JSON (``GET /api/games/empires-end/
components``), built from ``data.py``: location tiles, the 66 disaster (innovation) cards and
the 11 conflict cards with their text, and the progress tracks."""

from __future__ import annotations

from shared.rules.api import Json
from shared.rules.empires_end import data


def _reward(r: data.Reward) -> str:
    parts = [f"{r.vp} VP"] if r.vp else []
    parts += [f"{n} {k}" for k, n in r.res]
    if r.refresh:
        parts.append("refresh your exhausted abilities")
    return ", ".join(parts) or "nothing"


def conflict_text(c: data.ConflictCard) -> str:
    rank = {1: "highest", 2: "2nd highest", 3: "3rd highest"}[c.upheaval_rank]
    return (f"Strength ≤ {c.penalty_max}: lose {c.penalty_vp} VP and upheaval (your {rank}-VP "
            f"healthy location swaps with location {c.upheaval_pos}). Strength ≥ {c.tier2_min}: "
            f"{_reward(c.tier2)}. Strength ≥ {c.tier3_min}: {_reward(c.tier3)}. "
            f"Victory (highest strength): {_reward(c.victory)}.")


def _convert(a: data.Ability) -> Json:
    """A conversion ability's choices (``convert``'s ``option`` indexes ``outs``), else None."""
    if a.kind != "convert" or a.src is None:
        return None
    return {"src": a.src, "outs": [{r: n for r, n in out} for out in a.outs], "times": a.times}


def components() -> dict[str, Json]:
    return {
        "game": "empires-end",
        "tiles": [{"id": t.id, "type": t.type, "vp": t.vp, "repair": t.repair,
                   "phase": t.ability.phase, "text": t.ability.text,
                   "convert": _convert(t.ability)} for t in data.TILES],
        "disasters": [{"id": c.id, "type": c.type, "target": c.target, "cost": c.cost,
                       "bids": list(c.bids), "phase": c.ability.phase, "text": c.ability.text,
                       "convert": _convert(c.ability)}
                      for c in data.DISASTERS],
        "conflicts": [{"id": c.id, "text": conflict_text(c)} for c in data.CONFLICTS],
        "tracks": {"2": list(data.TRACK_2P), "3-4": list(data.TRACK_34P)},
        "resources": list(data.RESOURCES),
        "reconstructed": [
            "location VP and repair costs (RULINGS.md §4.2)",
            "every disaster card's target, cost, bids and ability (RULINGS.md §4.3)",
            "every conflict card (RULINGS.md §4.4) except K1, the rulebook's example",
            "the progress tracks (RULINGS.md §4.5)",
        ],
        "rulebook": ["location abilities", "farm VPs", "Fire's bids", "the K1 example"],
    }
