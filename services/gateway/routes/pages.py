"""The browser client: its page, its static files, and the one WebSocket per player
(services/gateway/ws.py)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, WebSocket
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from services.gateway.deps import Gw

STATIC = Path(__file__).parent.parent / "static"

router = APIRouter()
ws_router = APIRouter()


def static_files() -> StaticFiles:
    return StaticFiles(directory=STATIC)


@router.get("/", include_in_schema=False)
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@ws_router.websocket("/ws")
async def websocket(ws: WebSocket, gw: Gw) -> None:
    await gw.edge.serve(ws)
