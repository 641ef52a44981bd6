"""The gateway's typed HTTP refusal: ``{"ok": false, "code", "message"}`` with a status, and
the handlers that give every refusal that shape (no route, a bad parameter, storage down)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException as StarletteHTTPException


class HttpError(Exception):
    def __init__(self, status: int, code: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        self.status, self.code, self.message = status, code, message
        self.headers = headers


def add_handlers(app: FastAPI, logger: Any) -> None:
    @app.exception_handler(HttpError)
    async def _http_error(request: Request, exc: HttpError) -> JSONResponse:
        return JSONResponse({"ok": False, "code": exc.code, "message": exc.message},
                            status_code=exc.status, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _no_route(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        """No such route (404) or method (405): typed like every other refusal."""
        return JSONResponse({"ok": False, "code": "message/malformed",
                             "message": "no such route" if exc.status_code == 404
                             else str(exc.detail)[:200]},
                            status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _bad_parameter(request: Request, exc: RequestValidationError) -> JSONResponse:
        """A path or query parameter of the wrong shape (``limit=1e400``): typed 400."""
        where = ", ".join(".".join(str(x) for x in e.get("loc", ())) for e in exc.errors()[:3])
        return JSONResponse({"ok": False, "code": "message/malformed",
                             "message": f"bad parameter: {where}"[:200]}, status_code=400)

    @app.exception_handler(RedisError)
    async def _storage_error(request: Request, exc: RedisError) -> JSONResponse:
        """Storage unreachable (a Valkey restart, a failover): a typed, retryable 503."""
        logger.warning("storage_unavailable", path=request.url.path, error=repr(exc)[:200])
        return JSONResponse({"ok": False, "code": "message/unavailable",
                             "message": "storage is unavailable; retry"}, status_code=503,
                            headers={"Retry-After": "1"})
