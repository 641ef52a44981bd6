"""Who is calling: access tokens checked against revoked sessions, the WebSocket's Origin."""
