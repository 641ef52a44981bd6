"""Empire Hall Python SDK."""

from clients.sdk.client import ApiError, Client, GameSession, Receipt, Verification, updates

__all__ = ["ApiError", "Client", "GameSession", "Receipt", "Verification", "updates"]
