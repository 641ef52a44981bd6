"""gateway: the one door for clients (HTTP + WebSocket).

Its rooms: ``app.py`` builds everything (the composition root); ``service.py`` is the shell
the routes and the stream side share; ``ports.py`` the Protocols its logic takes, ``store.py``
the Redis reads of the HTTP routes. ``edge/`` the transport server and its guards (limits,
rate limits and quotas, JSON and body bounds, headers, metrics) and the WebSocket endpoint
with its frame decoding; ``auth/`` sessions; ``fanout/`` the hub of live connections, the
fan-out shards, the outbound queues, deleted players shown anonymized; ``chat/`` table talk;
``lobby/`` requests to the lobby; ``replays/`` past boards; ``routes/`` one router per
subject. The web client it serves lives in clients/web.
"""
