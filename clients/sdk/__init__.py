"""Empire Hall Python SDK."""

from clients.sdk.client import ApiError, Client, GameSession, Receipt, updates

__all__ = ["ApiError", "Client", "GameSession", "Receipt", "updates"]
