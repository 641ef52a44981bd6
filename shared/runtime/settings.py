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
    metrics_port: int = 0  # >0: serve /metrics, /healthz, /readyz on this port (0.0.0.0)
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

    @property
    def verify_secrets(self) -> list[str]:
        return [s for s in (self.secret, self.secret_previous) if s]

    @property
    def gateway_url(self) -> str:
        return self.public_url or f"http://{self.host}:{self.port}"


@cache
def get_settings() -> Settings:
    return Settings()
