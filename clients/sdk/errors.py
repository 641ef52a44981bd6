"""A refusal from the server, and which refusals say the message may be sent again."""

from __future__ import annotations

# refusals that say the message was not taken and may be sent again as it is
TRANSIENT_CODES = frozenset({"message/unavailable", "message/rate_limited"})


class ApiError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    @property
    def transient(self) -> bool:
        """The server did not take the message (a backend hiccup, a rate limit): retry."""
        return self.code in TRANSIENT_CODES
