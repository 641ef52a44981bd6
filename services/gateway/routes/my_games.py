""""My games": the caller's games, waiting for it first (the lobby keeps them from the turns
stream: services/lobby/mygames_service.py); changes are pushed on the WebSocket as
``my_game`` frames (services/gateway/fanout/my_games.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from services.gateway.lobby.requests import lobby_request
from services.gateway.routes.deps import Auth, Gw
from services.gateway.service import stamp
from shared.protocol import http as hm
from shared.protocol import lobby as lm
from shared.protocol.http import typed

router = APIRouter()


@router.get("/api/me/games", **typed(hm.MyGames))
async def my_games(gw: Gw, authorization: Auth = None) -> dict[str, Any]:
    """Every game of the caller, running and recently ended: the ones waiting for it first
    (the oldest wait first) with their deadline and the server's clock (``now_ms``)."""
    who = await gw.identity(authorization)
    return await gw.lobby(lobby_request(lm.MyGames, {}, stamp(who)))
