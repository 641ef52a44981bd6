"""The browser client (clients/web): its page at ``/`` and its files under ``/static``. The
files live with the other clients; the gateway serves them from its own origin, so the page's
CSP stays ``'self'`` (services/gateway/edge/security_headers.py)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

# <root>/clients/web beside <root>/services: the repository, the image (/app) and the wheel
# (empire_hall/) all lay them out so
STATIC = Path(__file__).resolve().parents[3] / "clients" / "web"

router = APIRouter()


def static_files() -> StaticFiles:
    return StaticFiles(directory=STATIC)


@router.get("/", include_in_schema=False)
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html")
