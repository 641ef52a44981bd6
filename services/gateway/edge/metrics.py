"""The gateway's own Prometheus metrics (in the process registry of shared.runtime.metrics):
what its guards against hostile clients did."""

from __future__ import annotations

from prometheus_client import Counter

from shared.runtime.metrics import REGISTRY

SLOW_CONSUMERS = Counter("empire_ws_slow_consumers_total",
                         "WebSockets closed 4008 (slow consumer), by reason (queue, send)",
                         ["reason"], registry=REGISTRY)
RATE_LIMITED = Counter("empire_rate_limited_total",
                       "Requests and sockets refused by a rate limit or quota, by limit",
                       ["limit"], registry=REGISTRY)
RATE_LIMIT_ERRORS = Counter("empire_rate_limit_errors_total",
                            "Rate-limit checks whose storage failed (rates decided locally, "
                            "sockets let through)",
                            registry=REGISTRY)
RATE_LIMIT_CHECKS = Counter("empire_rate_limit_checks_total",
                            "Rate-limit and quota checks asked of Valkey (one script call "
                            "each), by limit; a request the replica's own view of the rate "
                            "refuses asks nothing",
                            ["limit"], registry=REGISTRY)
HTTP_TIMEOUTS = Counter("empire_http_timeouts_total",
                        "HTTP connections cut by a server guard, by phase (head, body, write)",
                        ["phase"], registry=REGISTRY)
REFUSED_INPUT = Counter("empire_refused_input_total",
                        "Hostile or malformed HTTP input refused, by reason",
                        ["reason"], registry=REGISTRY)
HTTP_SHED = Counter("empire_http_shed_total",
                    "Connections accepted over the connection cap, answered 503 and closed",
                    registry=REGISTRY)
