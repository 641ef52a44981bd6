"""The gateway's HTTP and WebSocket routes, one router per subject; ``create_app``
(services/gateway/app.py) includes them in the order of ``ROUTERS``."""
