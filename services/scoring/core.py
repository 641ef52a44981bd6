"""The scoring service's functional core: from a finished game and its players' prior
ratings, their new rating rows and the game's record; the leaderboard's scores. No I/O, no
clock (``now_ms`` is an argument)."""

from __future__ import annotations

from typing import Any

from services.scoring.ratings import rate
from shared.protocol import internal as im

HISTORY_KEEP = 200  # games kept in each player's and each game kind's history


def rated(msg: im.GameEnded) -> bool:
    """A game ended by its lifetime ("expired") or by an admin rates nobody."""
    return msg.outcome.get("status", "finished") == "finished"


def players_to_rate(msg: im.GameEnded) -> list[str]:
    return [p.player_id for p in msg.players] if rated(msg) else []


def ranked(msg: im.GameEnded, places: list[int]) -> list[int]:
    """The places ratings use: a seat handed to a bot (its player resigned, or its clock ran
    out at an ``on_expiry: "bot"`` table) is ranked last, below every other seat (several
    share last place); the others keep their order from the game, tie-breaks and ties
    included, each placed after the seats the game put ahead of it."""
    gone = {h.seat for h in msg.handed_over}
    if not gone or not places:
        return places
    others = [p for i, p in enumerate(places) if i not in gone]
    return [len(others) + 1 if i in gone else 1 + sum(1 for q in others if q < p)
            for i, p in enumerate(places)]


def score(msg: im.GameEnded, prior: list[dict[str, Any] | None], now_ms: int
          ) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """(the new rating row of each rated player, the game's record). ``prior``: the rows of
    ``players_to_rate(msg)`` in order (None: not rated yet)."""
    results: list[Any] = msg.outcome.get("results", [])  # type: ignore[assignment]
    places = ranked(msg, [int(r["place"]) for r in results]) if rated(msg) else []
    new = rate(places, prior) if rated(msg) else []
    record = {"game_id": msg.game_id, "game": msg.game, "ended_ms": now_ms,
              "players": [p.model_dump() for p in msg.players], "outcome": msg.outcome,
              "ratings": new}
    if msg.handed_over:
        record["handed_over"] = [h.model_dump() for h in msg.handed_over]
    rows: dict[str, dict[str, Any]] = {}
    for i, (p, old, r) in enumerate(zip(msg.players if rated(msg) else [], prior, new,
                                        strict=True)):
        rows[p.player_id] = {
            **r, "name": p.name, "bot": p.bot, "games": (old or {}).get("games", 0) + 1,
            "wins": (old or {}).get("wins", 0) + (1 if places[i] == 1 else 0)}
    return rows, record


def leaderboard(record: dict[str, Any]) -> dict[str, float]:
    """Each rated player's leaderboard score (its ordinal); none for an unrated game."""
    return {r["player_id"]: rating["ordinal"]
            for r, rating in zip(record["players"], record["ratings"], strict=False)}


def places_of(record: dict[str, Any]) -> list[int]:
    results: list[Any] = record["outcome"].get("results", []) if record["ratings"] else []
    return [int(r["place"]) for r in results]
