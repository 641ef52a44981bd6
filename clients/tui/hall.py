"""What the terminal client's screens share: the app they run in, as far as they use it, and
how a failed call reads."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import httpx
from textual.screen import Screen

from clients.sdk import ApiError, Client

NETWORK = (ApiError, OSError, TimeoutError, httpx.HTTPError)


def error_text(exc: Exception) -> str:
    """``code message`` for a typed refusal, else the error's text."""
    if isinstance(exc, ApiError):
        return f"{exc.code} {exc.message}".strip()
    return str(exc) or type(exc).__name__


@runtime_checkable
class HallApp(Protocol):
    """The app a screen runs in (``EmpireApp``): its SDK client, signed in."""

    client: Client


class HallScreen(Screen[None]):
    """A screen of the signed-in app: ``app_`` is the app as a ``HallApp``."""

    @property
    def app_(self) -> HallApp:
        assert isinstance(self.app, HallApp)
        return self.app
