"""Games once created: their state, public record, audit bundle, replay boards, chat and
result; leaderboards and players' histories. A finished game is served from its archive once
archived (``Gateway.game``); deleted players' seats are anonymized on the way out."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from services.gateway.chat.rooms import archive_room, readable_channels
from services.gateway.edge.http_errors import HttpError
from services.gateway.fanout import erased, handover
from services.gateway.lobby.requests import lobby_request, path_id
from services.gateway.routes.deps import Auth, Gw
from services.gateway.service import stamp
from shared.fairness import signing
from shared.protocol import http as hm
from shared.protocol import lobby as lm
from shared.protocol.http import typed
from shared.protocol.streams import Keys
from shared.rules.narrate import narrate

router = APIRouter()


@router.get("/api/matches/{game_id}", **typed(hm.Match))
async def match(game_id: str, gw: Gw) -> dict[str, Any]:
    meta = await gw.hub.meta(game_id)
    if meta is not None and (stage := await gw.store.stage(game_id)) is not None:
        return await gw.anonymized_meta({**meta, "stage": stage})
    meta, archived = await gw.game(game_id)  # archived, or live keys half gone
    return await gw.anonymized_meta({**meta, "stage": "ended" if archived is not None
                                     else await gw.store.stage(game_id)})


@router.get("/api/matches/{game_id}/record", **typed(hm.NarratedRecord))
async def record(game_id: str, gw: Gw) -> dict[str, Any]:
    """The public record; once the game has ended also the full move log (the replay): its
    public copy ``g:{id}:publog``, which the adjudicator writes in the step that ends the game
    (the private ``g:{id}:log`` is out of the gateway's reach: deploy/valkey/users.acl.template).
    ``narration``: each public event's sentence, as the live log showed it."""
    meta, archived = await gw.game(game_id)
    players = await gw.anonymized(handover.first_players(meta))
    if archived is not None:
        rec = await gw.anonymized_record(archived["record"])
        return {"game_id": game_id, "game": meta["game"], "players": players,
                "ended": True, "record": rec, "log": archived["log"],
                "narration": narration(meta["game"], rec, players)}
    k = Keys(game_id)
    ended = await gw.store.stage(game_id) == "ended"
    rec = await gw.anonymized_record(await gw.store.entries(k.record))
    return {"game_id": game_id, "game": meta["game"], "players": players,
            "ended": ended, "record": rec,
            "log": await gw.store.entries(k.publog) if ended else None,
            "narration": narration(meta["game"], rec, players)}


def narration(game: str, rec: list[dict[str, Any]], players: list[Any]) -> list[str | None]:
    """One sentence per public ``event`` entry of the record (the live log's, from the same
    narrator), None for the record's other entries."""
    names = [str(p.get("name", "")) if isinstance(p, dict) else "" for p in players]
    return [narrate(game, e["event"], e.get("data"), names)
            if e.get("type") == "event" and isinstance(e.get("event"), str)
            and isinstance(e.get("data", {}), dict) else None
            for e in rec]


@router.get("/api/matches/{game_id}/audit", **typed(hm.Audit))
async def audit(game_id: str, gw: Gw) -> dict[str, Any]:
    """A finished game's audit bundle: the record document (record and move log) plus the
    game's options, rules version and reveal entries, the escrow key its rounds' openings were
    sealed to (``escrow_key``, from the record's round_opened entries; null if none) and
    ``signatures``, the session keys each seat's signed commands use (seat -> keys).
    ``python -m shared.fairness.verify bundle.json`` and the replay viewer take it as it is
    (docs/fairness.md)."""
    meta, archived = await gw.game(game_id)
    if archived is not None:
        rec, log = archived["record"], archived["log"]
    elif await gw.store.stage(game_id) == "ended":
        k = Keys(game_id)
        rec, log = await gw.store.entries(k.record), await gw.store.entries(k.publog)
    else:
        raise HttpError(409, "replay/not_ended", "the audit bundle is served once the game "
                        "has ended")
    rec = await gw.anonymized_record(rec)
    created: dict[str, Any] = next((e for e in rec if e.get("type") == "game_created"), {})
    return {"audit": 1, "game_id": game_id, "game": meta["game"],
            "players": await gw.anonymized(handover.first_players(meta)),
            "ended": True, "options": created.get("options", meta.get("options", {})),
            "rules_version": created.get("rules_version"), "record": rec, "log": log,
            "reveals": [e for e in rec if e.get("type") in ("round_revealed", "seed_revealed")],
            "escrow_key": next((e["escrow_key"] for e in rec if e.get("type") == "round_opened"
                                and e.get("escrow_key") is not None), None),
            "signatures": signing.keys_by_seat(rec, log)}


@router.get("/api/matches/{game_id}/replay", **typed(hm.ReplayStep))
async def replay_step(game_id: str, gw: Gw, step: int = 0,
                      seat: int | None = None) -> dict[str, Any]:
    """A finished game's board after ``step`` moves of its log (0 = the setup), as ``seat``
    saw it (omitted: the spectator's view). Only once the game has ended: then the whole log
    is public, so no step's view carries anything the rules still hide."""
    meta, archived = await gw.game(game_id)
    if archived is None and await gw.store.stage(game_id) != "ended":
        raise HttpError(409, "replay/not_ended",
                        "boards of past steps are served once the game has ended")
    if seat is not None and not 0 <= seat < len(meta["players"]):
        raise HttpError(400, "replay/bad_request", f"seat must be 0-{len(meta['players']) - 1}")

    async def load_log() -> list[dict[str, Any]]:
        if archived is not None:
            return list(archived["log"])
        return await gw.store.entries(Keys(game_id).publog)

    states = await gw.boards.states(game_id, meta, load_log)
    if not 0 <= step < len(states):
        raise HttpError(400, "replay/bad_request", f"step must be 0-{len(states) - 1}")
    return {"ok": True, "game_id": game_id, "game": meta["game"], "step": step,
            "steps": len(states) - 1, "seat": seat,
            "view": gw.boards.view(meta["game"], states[step], seat)}


@router.get("/api/matches/{game_id}/chat", **typed(hm.MatchChat))
async def match_chat(game_id: str, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    """The game's chat channels the caller may read: a player the table's (before the start)
    and the seats'; anyone else, where spectators are allowed, the spectators'. From the live
    channels, or the game's archive once archived. Chat is never part of the record, the audit
    bundle or what ``shared.fairness.verify`` checks."""
    who = await gw.identity(authorization)
    meta, archived = await gw.game(game_id)
    channels = readable_channels(meta, who.player_id)
    if not channels:
        raise HttpError(403, "chat/not_member", "only this game's players may read its chat")
    if archived is not None:
        kept = archived.get("chat") or {}
        out = {c: list(kept.get(c, [])) for c in channels}
    else:
        out = {c: await gw.chat.lines(archive_room(meta, c).key) for c in channels}
    # a deleted author anonymized, as in every row naming players
    return {"ok": True, "game_id": game_id,
            "chat": {c: await gw.anonymized(lines) for c, lines in out.items()}}


@router.get("/api/matches/{game_id}/result", **typed(hm.Result))
async def result(game_id: str, gw: Gw) -> dict[str, Any]:
    live = await gw.store.result(game_id)
    if live is not None:
        return await gw.anonymized_meta(live)
    archived = await gw.archive.get(game_id)
    if archived is None or archived.get("result") is None:
        raise HttpError(404, "game/not_found", "no result (yet) for this game")
    return await gw.anonymized_meta(dict(archived["result"]))


@router.get("/api/leaderboard/{game}", **typed(hm.Leaderboard))
async def leaderboard(game: str, gw: Gw, limit: int = 50) -> dict[str, Any]:
    entries = await gw.store.leaderboard(game, min(limit, 500))
    # a deleted player's rows are removed at deletion (services/lobby/accounts.py); one
    # rated meanwhile (a game that ended after the deletion) is left out here
    gone = await gw.store.erased(erased.row_ids(entries))
    return {"game": game, "entries": [e for e in entries if e["player_id"] not in gone]}


@router.get("/api/players/{player_id}/history", **typed(hm.History))
async def history(player_id: str, gw: Gw) -> dict[str, Any]:
    """The player's last 100 games, newest first (none for a deleted player: the lobby
    removes the list at deletion, and a game rated after it is not listed)."""
    if await gw.store.erased([player_id]):
        return {"player_id": player_id, "games": []}
    return {"player_id": player_id, "games": await gw.store.history(player_id, 100)}


@router.post("/api/games/{game_id}/resign", **typed(hm.ResignAnswer))
async def resign(game_id: str, gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    """Leave a running game: the seat goes to a bot for the rest of it, shown to everyone
    (a ``seat_handed_over`` record entry); the player's later acts and commits for the seat
    are refused ``game/seat_handed_over``. A second resignation answers the same. Refused:
    ``lobby/not_seated`` (no seat in this game), ``game/over``, ``lobby/not_found``."""
    who = await gw.identity(authorization)
    gid = path_id(game_id, "game")
    out = await gw.lobby(lobby_request(lm.Resign, {}, stamp(who, game_id=gid)))
    gw.hub.forget_meta(gid)  # the seat's player changed: read the game's metadata again
    return out
