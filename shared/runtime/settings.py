"""Settings, read once per process from the environment (prefix EMPIRE_) or an .env file."""

from __future__ import annotations

import os
import socket
import uuid
from functools import cache

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_SECRET = "empire-hall-dev-secret-change-me"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="EMPIRE_", env_file=os.environ.get(
        "EMPIRE_ENV_FILE", ".env"), extra="ignore")

    redis_url: str = Field("redis://127.0.0.1:6379/0",
                           validation_alias=AliasChoices("EMPIRE_REDIS_URL", "REDIS_URL"))
    # TLS to Valkey: rediss:// URLs check the server against this CA bundle (PEM); plaintext
    # redis:// is refused at start unless redis_plaintext (development: make run, the tests)
    redis_ca_file: str = ""
    redis_plaintext: bool = False
    dev: bool = False  # EMPIRE_DEV=1: development keys and short passwords are accepted
    cluster: bool = False  # use RedisCluster clients (Valkey/Redis Cluster)
    partitions: int = Field(1, ge=1, le=1024)  # shards of each inter-service stream
    secret: str = DEV_SECRET  # signs player tokens (HMAC-SHA256)
    secret_previous: str = ""  # still accepted (not used to sign) while rotating the key
    token_ttl_s: int = 7 * 24 * 3600
    instance: str = Field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}-"
                          f"{uuid.uuid4().hex[:6]}")
    # graceful stop: consumers stop, in-flight handlers finish; whatever is still running at
    # this deadline is left pending for reclaim and the process exits (below any grace period)
    shutdown_deadline_s: float = Field(12.0, gt=0)
    # a stream read that failed (e.g. Valkey restarting) is retried after this pause;
    # faststream's own default is 5 s, which held every consumer that long after a restart
    read_retry_s: float = Field(0.5, gt=0, le=30)
    metrics_port: int = 0  # >0: serve /metrics, /healthz, /readyz, /livez on this port (0.0.0.0)
    # the gateway's public port serves /metrics and the API docs (/docs, /redoc,
    # /openapi.json) only when enabled; /metrics is on EMPIRE_METRICS_PORT either way
    public_metrics: bool = False
    public_docs: bool = False
    # /livez fails when this process holds a stream entry unfinished for longer than this
    liveness_stall_s: float = Field(120.0, gt=0)
    # consumers (one per process start) idle this long with nothing pending are removed
    consumer_reap_s: float = Field(3600.0, gt=0)
    # gateway: on SIGTERM, close WebSockets spread over this many seconds (they resume on
    # another replica) instead of all at once; keep it below the termination grace period
    drain_s: float = Field(20.0, ge=0)
    log_level: str = "INFO"
    log_json: bool = True
    # gateway
    host: str = "127.0.0.1"
    port: int = 8000
    max_message_bytes: int = 64 * 1024
    rate_per_s: float = 50.0
    rate_burst: int = 200
    public_url: str = ""  # the gateway's URL as bots reach it (defaults to http://host:port)
    # adjudicator defaults for new games
    turn_timeout_ms: int = 120_000
    round_timeout_ms: int = 120_000
    timer_poll_ms: int = 200
    max_records: int = 64  # stream read batch per subscriber
    # --- issue 28: lobby quotas, expiry, archive, bots (docs/operations.md "Limits") ---
    # per player, held in Redis (every lobby replica counts the same): open tables it hosts,
    # running games it started, bot seats across both
    quota_open_tables: int = Field(5, ge=1)
    quota_running_games: int = Field(3, ge=1)
    quota_bot_seats: int = Field(12, ge=0)
    table_idle_s: float = Field(1800.0, gt=0)  # an open table unchanged this long is closed
    lobby_page_max: int = Field(100, ge=1, le=500)  # largest listing page (limit)
    lobby_page_per_host: int = Field(3, ge=1)  # at most this many of one host's tables a page
    lobby_list_cache_ms: int = Field(500, ge=0)  # a listing page is reused this long
    lobby_concurrency: int = Field(256, ge=1)  # lobby requests handled at once per replica
    # every game ends by this age (the end path, outcome "expired"), whatever its timeouts
    game_lifetime_s: float = Field(24 * 3600.0, gt=0)
    # a finished game is archived this long after its end (the dealer's reveal and the
    # scoring come first), its live keys then expire after archive_live_ttl_s
    archive_after_s: float = Field(5.0, ge=0)
    archive_live_ttl_s: float = Field(3600.0, gt=0)
    # refused command ids remembered per (game, seat): at most this many, for this long
    refusals_kept: int = Field(256, ge=1)
    refusals_ttl_s: float = Field(24 * 3600.0, gt=0)
    bots_max_seats: int = Field(200, ge=1)  # seats one bot runner plays at once

    @property
    def verify_secrets(self) -> list[str]:
        return [s for s in (self.secret, self.secret_previous) if s]

    @property
    def gateway_url(self) -> str:
        return self.public_url or f"http://{self.host}:{self.port}"


@cache
def get_settings() -> Settings:
    return Settings()
