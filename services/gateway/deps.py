"""The routes' dependencies: the gateway built by ``create_app`` (services/gateway/app.py),
from ``app.state``, and the ``Authorization`` header the token routes read."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header
from starlette.requests import HTTPConnection

from services.gateway.service import Gateway


def gateway(conn: HTTPConnection) -> Gateway:
    gw: Gateway = conn.app.state.gateway
    return gw


Gw = Annotated[Gateway, Depends(gateway)]
Auth = Annotated[str | None, Header()]
