"""The gateway's limits against hostile clients on the open internet, read once per process
from the environment (prefix EMPIRE_, like shared.runtime.settings; docs/operations.md lists
them): request bytes, JSON depth, slow HTTP clients, slow WebSocket readers, and the rate
limits and quotas shared by every gateway replica through Redis.
"""

from __future__ import annotations

import ipaddress
import os
from functools import cache, cached_property

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(text: str) -> tuple[Network, ...]:
    """Comma-separated addresses or CIDR blocks (``10.0.0.0/8, ::1``)."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False)
                 for part in text.split(",") if part.strip())


class GatewayLimits(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="EMPIRE_", env_file=os.environ.get(
        "EMPIRE_ENV_FILE", ".env"), extra="ignore")

    # bytes: HTTP bodies, JSON nesting, move frames (act/commit) on the WebSocket
    http_max_body_bytes: int = Field(16 * 1024, ge=1024)
    json_max_depth: int = Field(32, ge=4, le=512)
    ws_move_max_bytes: int = Field(4096, ge=512, le=8192)  # <= streams.MOVE_FRAME
    # slow HTTP clients (the server's own guards, services/gateway/edge/server.py)
    http_head_timeout_s: float = Field(10.0, gt=0)  # first byte .. end of the request head
    http_body_timeout_s: float = Field(30.0, gt=0)  # end of the head .. end of the body
    http_write_timeout_s: float = Field(30.0, gt=0)  # a response the client does not read
    http_keep_alive_s: int = Field(5, ge=1)  # idle between requests on a kept-alive socket
    http_max_connections: int = Field(4096, ge=16)  # per process, besides WebSockets: 503
    # descriptors kept free of client connections: the Valkey pools (up to 512), the
    # listening socket, logs and files; the connection cap is RLIMIT_NOFILE less this
    fd_reserve: int = Field(640, ge=32)
    # slow WebSocket readers: each connection's outbound queue and its writer
    ws_queue_frames: int = Field(4096, ge=64)
    ws_queue_bytes: int = Field(4 * 1024 * 1024, ge=64 * 1024)
    ws_send_timeout_s: float = Field(10.0, gt=0)  # one frame blocked this long: closed 4008
    ws_close_grace_s: float = Field(5.0, gt=0)  # after a 4008 close frame, the socket is cut
    ws_max_sockets: int = Field(10_000, ge=16)  # per process; beyond it close 1013
    # one player's connections watching one game, per process (more sockets of one account
    # on one game add nothing but fan-out work): message/rate_limited
    ws_watches_per_game: int = Field(4, ge=1)
    # the lobby listing (GET /api/tables) reused per replica this long (0: off), whatever the
    # number of callers: services/gateway/edge/micro_cache.py
    listing_cache_ms: int = Field(500, ge=0, le=5_000)
    # Valkey memory: from this fraction of maxmemory on, new players, tables and games are
    # refused 503 storage/full; running games' moves go on (services/gateway/edge/memory_guard.py)
    memory_soft_limit: float = Field(0.85, gt=0, le=1)
    # rate limits and quotas (Redis, shared by the replicas; keys rl:*)
    rate_limits: bool = True
    trusted_proxies: str = ""  # peers whose X-Forwarded-For is honoured (CIDRs)
    # client IPs without per-IP limits: none on a deployment (a proxy on the same host would
    # exempt everyone behind it); the development system (make run) exempts loopback
    rate_exempt_ips: str = ""
    signup_per_min: float = Field(10.0, gt=0)  # POST /api/players per client IP
    signup_burst: int = Field(30, ge=1)
    http_per_s: float = Field(20.0, gt=0)  # HTTP requests (and WebSocket handshakes) per IP
    http_burst: int = Field(200, ge=1)
    token_per_s: float = Field(20.0, gt=0)  # authenticated HTTP requests per player
    token_burst: int = Field(200, ge=1)
    ws_per_player: int = Field(16, ge=1)  # open WebSockets per player, all replicas
    ws_per_ip: int = Field(64, ge=1)  # open WebSockets per client IP, all replicas
    ws_slot_ttl_s: float = Field(60.0, ge=5)  # a dead replica's sockets free after this

    @cached_property
    def trusted(self) -> tuple[Network, ...]:
        return networks(self.trusted_proxies)

    @cached_property
    def exempt(self) -> tuple[Network, ...]:
        return networks(self.rate_exempt_ips)


@cache
def get_limits() -> GatewayLimits:
    return GatewayLimits()
