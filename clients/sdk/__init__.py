"""Empire Hall Python SDK."""

from clients.sdk.client import (
                                ApiError,
                                ChatLog,
                                Client,
                                GameSession,
                                Receipt,
                                Verification,
                                updates,
)

__all__ = ["ApiError", "ChatLog", "Client", "GameSession", "Receipt", "Verification", "updates"]
