"""The gateway's edge: the transport server and what guards it (connection caps, timeouts,
rate limits and quotas, body and JSON bounds, security headers, storage headroom), the HTTP
error and metrics middleware, and the WebSocket endpoint that parses each client frame once."""
