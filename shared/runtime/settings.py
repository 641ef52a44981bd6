"""Settings, read once per process from the environment (prefix EMPIRE_) or an .env file.

Grouped by subject; docs/operations.md names every one of them (a test checks it)."""

from __future__ import annotations

import os
import socket
import uuid
from functools import cache, cached_property

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.runtime import tokens

# the development token signing key (EMPIRE_DEV=1 without EMPIRE_TOKEN_PRIVATE_KEY): public,
# so never accepted otherwise (shared/runtime/startup.py)
DEV_TOKEN_PRIVATE_KEY = "e4" * 32


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="EMPIRE_", env_file=os.environ.get(
        "EMPIRE_ENV_FILE", ".env"), extra="ignore")

    # --- transport: Valkey and its streams ---
    redis_url: str = Field("redis://127.0.0.1:6379/0",
                           validation_alias=AliasChoices("EMPIRE_REDIS_URL", "REDIS_URL"))
    # TLS to Valkey: rediss:// URLs check the server against this CA bundle (PEM); plaintext
    # redis:// is refused at start unless redis_plaintext (development: make run, the tests)
    redis_ca_file: str = ""
    redis_plaintext: bool = False
    # the process's command pool (every replica): at most this many connections (per master on
    # a cluster); callers wait for a free one (up to 10 s) beyond it. Stream readers (the
    # broker's, ~2 per shard read) come on top: docs/operations.md "Connection budget"
    redis_max_connections: int = Field(24, ge=2, le=1024)
    # the commands of one event-loop turn sent as one pipeline (shared/runtime/autopipeline.py;
    # not on a cluster): EMPIRE_REDIS_AUTOPIPELINE=0 sends each alone
    redis_autopipeline: bool = True
    cluster: bool = False  # use RedisCluster clients (Valkey/Redis Cluster)
    partitions: int = Field(1, ge=1, le=1024)  # shards of each inter-service stream
    # shards of the game fan-out gw:updates:<k>: every writer and every gateway must agree; a
    # gateway reads only the shards of the games its sockets watch
    gw_shards: int = Field(64, ge=1, le=4096)
    max_records: int = 64  # stream read batch per subscriber
    # a stream read that failed (e.g. Valkey restarting) is retried after this pause, well
    # under faststream's own 5 s, so consumers resume promptly after a restart
    read_retry_s: float = Field(0.5, gt=0, le=30)

    # --- process lifecycle: identity, stop, liveness ---
    instance: str = Field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}-"
                          f"{uuid.uuid4().hex[:6]}")
    # graceful stop: consumers stop, in-flight handlers finish; whatever is still running at
    # this deadline is left pending for reclaim and the process exits (below any grace period)
    shutdown_deadline_s: float = Field(12.0, gt=0)
    # gateway: on SIGTERM, close WebSockets spread over this many seconds (they resume on
    # another replica) instead of all at once; keep it below the termination grace period
    drain_s: float = Field(20.0, ge=0)
    # /livez fails when this process holds a stream entry unfinished for longer than this
    liveness_stall_s: float = Field(120.0, gt=0)
    # consumers (one per process start) idle this long with nothing pending are removed
    consumer_reap_s: float = Field(3600.0, gt=0)

    # --- security: keys, tokens, signatures ---
    dev: bool = False  # EMPIRE_DEV=1: development keys and short passwords are accepted
    # player tokens are Ed25519 (shared/runtime/tokens.py): the lobby alone holds the private
    # key (hex seed) and signs; every verifier (the gateway, the lobby) holds public keys only
    # (hex, comma-separated: the current one and, while rotating, the previous or next one)
    token_private_key: str = ""
    token_public_keys: str = ""
    token_ttl_s: int = 7 * 24 * 3600
    # every act and commit must carry a valid signature by a session key the lobby registered
    # for the seat's player (auth/bad_signature otherwise). 0 accepts unsigned commands (a
    # signature that is present is still checked): a rolling upgrade's window only
    require_signatures: bool = True

    # --- identity: accounts, sessions, passkeys, admins ---
    access_ttl_s: int = Field(600, ge=10, le=86_400)  # an access token's lifetime
    refresh_ttl_s: int = Field(30 * 24 * 3600, ge=60)  # a session unused this long ends
    sessions_max: int = Field(20, ge=1)  # per player: signing in beyond it ends the oldest
    # WebAuthn (passkeys): the relying party's id (a domain) and name, and the page origins
    # the browser may sign for (comma-separated; empty: http://localhost:<port>)
    webauthn_rp_id: str = "localhost"
    webauthn_rp_name: str = "Empire Hall"
    webauthn_origins: str = ""
    challenge_ttl_s: int = Field(120, ge=10, le=3600)  # a passkey challenge, used once
    # failed password sign-ins in a window, after which the address that made them waits
    # (auth/rate_limited): per name and address; per address, any name; per name from any
    # address, which holds back only addresses that failed for that name (a stranger's
    # failures never refuse the right password from an address that has not failed)
    signin_fail_max: int = Field(10, ge=1)
    signin_fail_per_address: int = Field(50, ge=1)
    signin_fail_per_name: int = Field(200, ge=1)
    signin_fail_window_s: int = Field(900, ge=1)
    admins: str = ""  # player ids or account names with the admin role (comma-separated)
    audit_maxlen: int = Field(10_000, ge=100)  # admin audit log entries kept (lobby:audit)

    # --- gateway: listening, sockets, per-socket limits ---
    host: str = "127.0.0.1"
    port: int = 8000
    public_url: str = ""  # the gateway's URL as bots reach it (defaults to http://host:port)
    # Origin values allowed on /ws (comma-separated); empty: the page's own origin (the
    # Origin's host equals the request's Host). A socket without Origin (not a browser) passes
    ws_origins: str = ""
    ws_auth_timeout_s: float = Field(10.0, gt=0)  # the first frame must authenticate by then
    revocation_sweep_s: float = Field(5.0, gt=0)  # open sockets' sessions re-checked this often
    max_message_bytes: int = 64 * 1024
    rate_per_s: float = 50.0
    rate_burst: int = 200

    # --- limits: lobby quotas and paging (docs/operations.md "Limits") ---
    # per player, held in Valkey (every lobby replica counts the same): open tables it hosts,
    # running games it started, bot seats across both
    quota_open_tables: int = Field(5, ge=1)
    quota_running_games: int = Field(3, ge=1)
    quota_bot_seats: int = Field(12, ge=0)
    lobby_page_max: int = Field(100, ge=1, le=500)  # largest listing page (limit)
    lobby_page_per_host: int = Field(3, ge=1)  # at most this many of one host's tables a page
    lobby_list_cache_ms: int = Field(500, ge=0)  # a listing page is reused this long
    lobby_concurrency: int = Field(256, ge=1)  # lobby requests handled at once per replica
    # refused command ids remembered per (game, seat): at most this many, for this long
    refusals_kept: int = Field(256, ge=1)
    refusals_ttl_s: float = Field(24 * 3600.0, gt=0)

    # --- timers and clocks: turns, expiry, archive ---
    # adjudicator defaults for new games
    turn_timeout_ms: int = 120_000
    round_timeout_ms: int = 120_000
    timer_poll_ms: int = 200
    table_idle_s: float = Field(1800.0, gt=0)  # an open table unchanged this long is closed
    # every game ends by this age (the end path, outcome "expired"), whatever its timeouts
    game_lifetime_s: float = Field(24 * 3600.0, gt=0)
    # a finished game is archived this long after its end (the dealer's reveal and the
    # scoring come first), its live keys then expire after archive_live_ttl_s
    archive_after_s: float = Field(5.0, ge=0)
    archive_live_ttl_s: float = Field(3600.0, gt=0)
    # the archive's retention: an archived game is kept this long after its archive, then
    # expires (0: kept for good); docs/operations.md "Archive" sizes it
    archive_ttl_s: float = Field(30 * 86400.0, ge=0)

    # --- turn-based play (docs/operations.md "Turn-based games") ---
    # running turn-based games per player (real-time ones: quota_running_games)
    quota_turn_based_games: int = Field(30, ge=1)
    # a turn-based game lives while it moves: each change sets its end to now + its longest
    # clock + game_lifetime_s, never past its start + turn_based_lifetime_max_s
    turn_based_lifetime_max_s: float = Field(365 * 86400.0, gt=0)
    # "My games": each player's games kept (the most recent), and how long an ended one stays
    my_games_max: int = Field(200, ge=10, le=10_000)
    my_games_ended_s: float = Field(7 * 86400.0, gt=0)

    # --- bots ---
    bots_max_seats: int = Field(200, ge=1)  # seats one bot runner plays at once
    # a full runner parks, for a seat that waits, the seat whose game has been still the
    # longest, if at least this long (services/bots/parking.py); a parked seat is looked at
    # again after this pause, doubled each time its game is found unchanged up to the max
    bots_park_idle_s: float = Field(30.0, gt=0)
    bots_park_max_s: float = Field(600.0, gt=0)
    # worker processes one runner's search bots share (bounded: a seat's decision waits its
    # turn within its own time budget, else plays the heuristic move)
    bots_search_workers: int = Field(1, ge=1, le=64)

    # --- table talk (docs/operations.md "Table talk") ---
    chat_max_chars: int = Field(500, ge=1, le=2000)  # a message's characters, after cleaning
    chat_per_s: float = Field(0.5, gt=0)  # messages (and reports) per player, every replica
    chat_burst: int = Field(8, ge=1)
    chat_history: int = Field(50, ge=0, le=500)  # messages sent on chat_join
    chat_keep: int = Field(500, ge=16, le=100_000)  # messages kept per channel (MAXLEN ~)
    chat_ttl_s: float = Field(7 * 24 * 3600.0, gt=0)  # a channel expires this long after
    # its first message (a game's channels expire with the game's live keys if sooner)
    chat_mutes_max: int = Field(500, ge=1)  # players one player may mute

    # --- notifications: "your turn" mail and webhooks (services/notifier) ---
    # smtp://user:password@host:port (STARTTLS when offered) or smtps://... (TLS from the
    # start); empty: nothing is mailed and the API says so (docs/operations.md "Notifications")
    smtp_url: str = ""
    # the address players open the page at: the links in mails and a table's invite link
    # start with it (empty: EMPIRE_PUBLIC_URL, which in a deployment is the gateway as the bot
    # runner reaches it)
    page_url: str = ""
    mail_from: str = ""  # the From address of every mail (required with smtp_url)
    # a turn-based game waiting this long for a player mails them (one per wait)
    turn_mail_delay_s: float = Field(300.0, ge=0)
    notify_daily_cap: int = Field(20, ge=1)  # mails per player per UTC day (all kinds)
    notify_tries: int = Field(6, ge=1, le=20)  # tries of one mail or webhook call, then none
    notify_retry_s: float = Field(30.0, gt=0)  # first retry's delay, doubled each time
    notify_poll_ms: int = Field(500, ge=10)  # the due-queue's poll
    # webhooks to loopback, private or link-local addresses and over plain http: development
    # only (make run sets it); refused otherwise
    notify_allow_private: bool = False

    # --- observability: logs, metrics, traces, API docs ---
    log_level: str = "INFO"
    log_json: bool = True
    metrics_port: int = 0  # >0: serve /metrics, /healthz, /readyz, /livez on this port (0.0.0.0)
    # OpenTelemetry traces go to this OTLP/HTTP endpoint (e.g. http://collector:4318/v1/traces);
    # empty: no exporter, tracing costs only the no-op API (shared/runtime/tracing.py)
    otlp_endpoint: str = ""
    # the gateway's public port serves /metrics and the API docs (/docs, /redoc,
    # /openapi.json) only when enabled; /metrics is on EMPIRE_METRICS_PORT either way
    public_metrics: bool = False
    public_docs: bool = False

    @property
    def signing_key(self) -> str:
        """The token private key this process signs with ("" : it signs none); development
        falls back to the public DEV_TOKEN_PRIVATE_KEY."""
        return self.token_private_key.strip() or (DEV_TOKEN_PRIVATE_KEY if self.dev else "")

    @cached_property
    def token_verify_keys(self) -> dict[str, Ed25519PublicKey]:
        """kid -> public key: EMPIRE_TOKEN_PUBLIC_KEYS and the public half of this process's
        own signing key, if it has one."""
        listed = [k for k in self.token_public_keys.replace(",", " ").split() if k]
        if self.signing_key:
            listed.append(tokens.public_key(self.signing_key))
        return tokens.parse_public_keys(listed)

    @property
    def origins_allowed(self) -> list[str]:
        return [o.strip().rstrip("/") for o in self.ws_origins.split(",") if o.strip()]

    @property
    def passkey_origins(self) -> list[str]:
        listed = [o.strip().rstrip("/") for o in self.webauthn_origins.split(",") if o.strip()]
        return listed or [f"http://localhost:{self.port}"]

    @property
    def admin_names(self) -> list[str]:
        return [a.strip() for a in self.admins.split(",") if a.strip()]

    @property
    def gateway_url(self) -> str:
        return self.public_url or f"http://{self.host}:{self.port}"

    @property
    def page_address(self) -> str:
        return (self.page_url or self.gateway_url).rstrip("/")


@cache
def get_settings() -> Settings:
    return Settings()
