"""The gateway's typed HTTP refusal: ``{"ok": false, "code", "message"}`` with a status."""

from __future__ import annotations


class HttpError(Exception):
    def __init__(self, status: int, code: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        self.status, self.code, self.message = status, code, message
        self.headers = headers
