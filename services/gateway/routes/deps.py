"""The routes' dependencies: the gateway built by the composition root (services/gateway/app.py),
from ``app.state``, and the ``Authorization`` header the token routes read."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header
from starlette.requests import HTTPConnection

from services.gateway.service import Gateway


async def gateway(conn: HTTPConnection) -> Gateway:
    """A coroutine, not a function: FastAPI runs a sync dependency in a worker thread on
    every request, a hop that costs about a tenth of the gateway's busy CPU under load
    (tests/unit/platform/test_gateway_no_thread_hops.py)."""
    gw: Gateway = conn.app.state.gateway
    return gw


Gw = Annotated[Gateway, Depends(gateway)]
Auth = Annotated[str | None, Header()]
