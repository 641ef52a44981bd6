"""gateway: the one door for clients (HTTP + WebSocket)."""
