"""The one WebSocket per player (services/gateway/edge/websocket.py)."""

from __future__ import annotations

from fastapi import APIRouter, WebSocket

from services.gateway.routes.deps import Gw

router = APIRouter()


@router.websocket("/ws")
async def websocket(ws: WebSocket, gw: Gw) -> None:
    await gw.edge.serve(ws)
