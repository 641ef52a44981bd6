"""Liveness and readiness on the public port; ``/metrics`` there only when the operator
enables it (EMPIRE_PUBLIC_METRICS; else on the ops port, shared/runtime/ops.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from services.gateway.routes.deps import Gw
from services.gateway.service import Gateway
from shared.protocol import http as hm
from shared.protocol.http import typed
from shared.runtime import liveness, metrics

router = APIRouter()
metrics_router = APIRouter()


@router.get("/healthz", **typed(hm.Health))
async def healthz(gw: Gw) -> dict[str, Any]:
    """Liveness: the process answers."""
    return {"ok": True, "instance": gw.settings.instance}


async def _not_ready(gw: Gateway) -> str | None:
    """Why the gateway is not ready (None: ready): Redis answers, the fan-out (the game shards'
    reader and the gw:updates subscriber) and the lobby reply channel are consuming: a
    gateway whose fan-out died would accept sockets and send them nothing."""
    try:
        await gw.store.ping()
    except Exception:
        return "redis"
    if not liveness.subscribers_running(gw.broker) or not gw.fanout.running:
        return "fan-out"  # the chat channel's subscriber or the game shards' reader
    if gw.hub.draining:  # shutting down: the load balancer stops routing new sockets here
        return "draining"
    return None


async def ready(gw: Gateway) -> bool:
    return await _not_ready(gw) is None


@router.get("/readyz", **typed(hm.Health))
async def readyz(gw: Gw) -> JSONResponse:
    """Readiness (see ``_not_ready``)."""
    reason = await _not_ready(gw)
    if reason is not None:
        return JSONResponse({"ok": False, "reason": reason}, status_code=503)
    return JSONResponse({"ok": True, "instance": gw.settings.instance})


@metrics_router.get("/metrics", include_in_schema=False)
async def prometheus_metrics() -> Response:
    return Response(metrics.render(), media_type="text/plain; version=0.0.4")
