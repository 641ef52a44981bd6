"""Prometheus metrics shared by the services (one registry per process)."""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)

from shared.runtime.jsonutil import text
from shared.runtime.redis import Client

REGISTRY = CollectorRegistry()
# the process's own figures (process_cpu_seconds_total, process_resident_memory_bytes,
# process_open_fds, ...: the alerts and dashboard in deploy/ can use them) and the Python build
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

ACTIONS_APPLIED = Counter("empire_actions_applied_total", "Moves applied to games",
                          ["game", "by"], registry=REGISTRY)
REJECTIONS = Counter("empire_rejections_total", "Refusals sent to clients", ["code"],
                     registry=REGISTRY)
SEALED_OPEN = Gauge("empire_sealed_rounds_open", "Sealed rounds opened minus closed here",
                    registry=REGISTRY)
REVEAL_LATENCY = Histogram("empire_reveal_latency_seconds",
                           "Round open to reveal (escrow)", registry=REGISTRY,
                           buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 120))
DRAWS = Counter("empire_draws_total", "Dealer draws answered", registry=REGISTRY)
STREAM_LAG = Gauge("empire_stream_lag", "Entries not yet delivered to the group",
                   ["stream", "group"], registry=REGISTRY)
STREAM_PENDING = Gauge("empire_stream_pending", "Entries delivered but not acknowledged",
                       ["stream", "group"], registry=REGISTRY)
# the live stream readers (shared/runtime/bus.py ``StreamReader``), counted once per read batch
STREAM_MESSAGES = Counter("empire_stream_messages_total",
                          "Stream entries the live readers handled, by outcome (handled, "
                          "failed: left pending for a retry, dead_letter)",
                          ["stream", "outcome"], registry=REGISTRY)
STREAM_FAILURES = Counter("empire_stream_failures_total",
                          "Stream entries whose handler raised, by exception type",
                          ["stream", "exception_type"], registry=REGISTRY)
STREAM_BATCH_SECONDS = Histogram("empire_stream_batch_seconds",
                                 "Time to handle one read batch of a stream", ["stream"],
                                 registry=REGISTRY,
                                 buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                          0.5, 1, 2.5, 5, 10))
STREAM_IN_PROCESS = Gauge("empire_stream_in_process", "Stream entries being handled",
                          ["stream"], registry=REGISTRY)
WS_CONNECTIONS = Gauge("empire_ws_connections", "Open WebSocket connections",
                       registry=REGISTRY)
# the game fan-out (services/gateway/fanout/shards.py): what this gateway reads of it
FANOUT_ENTRIES = Counter("empire_fanout_entries_total",
                         "Game fan-out entries read by this gateway", registry=REGISTRY)
FANOUT_SHARDS = Gauge("empire_fanout_shards", "Game fan-out shards this gateway reads",
                      registry=REGISTRY)
# the notifier (services/notifier/service.py): each message's end, by kind and channel;
# outcome sent, retry (a try failed, another is due), failed (tries used up or refused), capped
NOTIFY = Counter("empire_notify_total", "Notifier messages by outcome",
                 ["kind", "channel", "outcome"], registry=REGISTRY)


def render() -> bytes:
    return generate_latest(REGISTRY)


async def sample_groups(redis: Client, groups: list[tuple[str, str]]) -> None:
    """Refresh lag/pending gauges from XINFO GROUPS (Redis 7+/Valkey)."""
    for stream, group in groups:
        try:
            infos = await redis.xinfo_groups(stream)
        except Exception:
            continue
        for info in infos:
            name = info.get("name")
            name = text(name)
            if name != group:
                continue
            STREAM_PENDING.labels(stream, group).set(int(info.get("pending") or 0))
            lag = info.get("lag")
            STREAM_LAG.labels(stream, group).set(int(lag) if lag is not None else 0)
