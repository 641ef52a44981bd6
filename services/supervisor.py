"""Start the whole system on one machine: a private Valkey (unless REDIS_URL is set), every
service as its own process (N replicas each), restarted if it dies; stop it all on Ctrl-C.

    python -m services.supervisor [--port 8000] [--replicas adjudicator=2,escrow=2]
                                  [--data-dir .run/valkey | --no-aof]

The same ACL model and persistence as production: the private Valkey starts through
deploy/valkey/entrypoint.sh with the shipped valkey.conf (its AOF with appendfsync always, as
is) and the ACL rendered from users.acl.template (fresh random passwords; the default user
off), so every service connects as its own ACL user and ``Supervisor.redis_url`` is the admin
user's URL. ``make run`` keeps the data in .run/valkey across runs (``--no-aof``: a throwaway
server without persistence). The library default (``Supervisor(aof=False)``) is that
throwaway server: the tests start hundreds of systems and an fsync per write would slow them.
With REDIS_URL the given URL is used as is by every service: set up the users of
deploy/valkey/users.acl.template on that server yourself (deploy/valkey/entrypoint.sh renders
them) and run each service with its own EMPIRE_REDIS_URL.

Secrets where they belong: only the lobby (which signs player tokens) gets the token private
key; the lobby and the gateway (which check them) get the public keys; the other services see
neither. ``make run`` makes a fresh key pair each start unless EMPIRE_TOKEN_PRIVATE_KEY is set.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared.runtime import tokens
from shared.runtime.valkey import EmbeddedValkey, free_port

SERVICES = ("adjudicator", "escrow", "dealer", "scoring", "lobby", "bots", "notifier", "gateway")
TOKEN_KEY_HOLDERS = ("lobby", "gateway")  # check player tokens: the public keys
TOKEN_SIGNERS = ("lobby",)  # sign them: the private key, nobody else
STABLE_S = 10.0  # a process that ran this long before exiting is restarted at once
BACKOFF_S = 0.5  # then 1, 2, 4 ... seconds after consecutive quick crashes
BACKOFF_MAX_S = 30.0
MAX_QUICK_CRASHES = 8  # then FATAL: the supervisor gives up on that process


@dataclass
class Proc:
    service: str
    index: int
    popen: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    started: float = 0.0
    held: bool = False  # killed on purpose and kept down (no restart)
    killed: bool = False  # killed on purpose (chaos tests): restarted at once, not a crash
    quick_crashes: int = 0  # consecutive exits soon after start
    next_start: float = 0.0  # monotonic time of the next restart (back-off)
    fatal: str = ""  # given up: why
    metrics_port: int = 0  # >0: its /metrics, /healthz, /readyz (every service)


@dataclass
class Supervisor:
    redis_url: str | None = None
    port: int = 8000
    host: str = "127.0.0.1"
    replicas: dict[str, int] = field(default_factory=dict)
    # False: the AOF off (the tests' throwaway server); None: the shipped valkey.conf's (AOF,
    # appendfsync always; make run); True: AOF with appendfsync always
    aof: bool | None = False
    data_dir: str | None = None  # the private Valkey's data (None: a temporary directory)
    partitions: int = 1
    token_private_key: str | None = None  # the lobby's signing key (None: a fresh one)
    token_public_keys: str | None = None  # more public keys accepted (a rotation's other)
    log_dir: Path | None = None
    env_extra: dict[str, str] = field(default_factory=dict)
    valkey: EmbeddedValkey | None = None
    metrics: bool = False  # every service serves /metrics on a free port of its own
    service_urls: dict[str, str] = field(default_factory=dict)
    procs: list[Proc] = field(default_factory=list)
    _own_valkey: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)
    _watch: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def public_keys(self) -> list[str]:
        """What verifiers hold: the signing key's public half and any other listed."""
        own = [tokens.public_key(self.token_private_key)] if self.token_private_key else []
        return own + (self.token_public_keys or "").replace(",", " ").split()

    def env(self, proc: Proc) -> dict[str, str]:
        assert self.redis_url is not None
        env = {**os.environ, **self.env_extra,
               "EMPIRE_REDIS_URL": self.service_urls.get(proc.service, self.redis_url),
               "EMPIRE_PORT": str(self.port),
               "EMPIRE_HOST": self.host, "EMPIRE_PARTITIONS": str(self.partitions),
               "EMPIRE_INSTANCE": f"{proc.service}-{proc.index}-{secrets.token_hex(3)}",
               "EMPIRE_PUBLIC_URL": self.url, "PYTHONUNBUFFERED": "1"}
        env.pop("REDIS_URL", None)
        for key in ("EMPIRE_TOKEN_PRIVATE_KEY", "EMPIRE_TOKEN_PUBLIC_KEYS"):
            env.pop(key, None)
        # empty, not absent, for everyone else: it also outweighs a compose .env (settings.py
        # reads ./.env) in the directory make run starts in
        signs = proc.service in TOKEN_SIGNERS
        env["EMPIRE_TOKEN_PRIVATE_KEY"] = (self.token_private_key or "") if signs else ""
        if proc.service in TOKEN_KEY_HOLDERS:
            env["EMPIRE_TOKEN_PUBLIC_KEYS"] = ",".join(self.public_keys)
        # the private Valkey listens on loopback only: plaintext is allowed for it (and for a
        # REDIS_URL given to make run / the tests); deployments use rediss:// (settings.py)
        env.setdefault("EMPIRE_REDIS_PLAINTEXT", "1")
        # development: the player on this machine (and the tests' many clients) reach the
        # gateway over loopback, without per-address limits; a deployment exempts nobody
        env.setdefault("EMPIRE_RATE_EXEMPT_IPS", "127.0.0.0/8,::1/128")
        # the gateway spreads its sockets' closes over EMPIRE_DRAIN_S so they reconnect to the
        # other gateways; this supervisor stops the whole system at once (no other gateway to
        # move to), so it drains within a second unless told otherwise
        env.setdefault("EMPIRE_DRAIN_S", "1")
        if proc.metrics_port:
            env["EMPIRE_METRICS_PORT"] = str(proc.metrics_port)
        return env

    def argv(self, proc: Proc) -> list[str]:
        return [sys.executable, "-m", f"services.{proc.service}"]

    def _spawn(self, proc: Proc) -> None:
        out: Any = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            out = open(self.log_dir / f"{proc.service}-{proc.index}.log", "ab")  # noqa: SIM115
        proc.popen = subprocess.Popen(self.argv(proc), env=self.env(proc), stdout=out,
                                      stderr=out)
        proc.started = time.monotonic()

    def start(self, wait: float = 60.0) -> str:
        if self.redis_url is None:
            if self.valkey is None:  # ours; a caller's (already started) is kept running
                self.valkey = self.make_valkey()
                self.valkey.start()
                self._own_valkey = True
            self.redis_url = self.valkey.url  # the admin user's URL
            if self.valkey.shipped and not self.service_urls:  # (a caller may route them)
                self.service_urls = {svc: self.valkey.url_for(svc) for svc in SERVICES}
        self._migrate()
        self.token_private_key = self.token_private_key or tokens.new_private_key()
        for svc in SERVICES:
            for i in range(self.replicas.get(svc, 1)):
                p = Proc(svc, i)
                if self.metrics:  # /metrics and probes off the public port (the gateway too)
                    p.metrics_port = free_port()
                self._spawn(p)
                self.procs.append(p)
        self._watch = threading.Thread(target=self._watchdog, daemon=True)
        self._watch.start()
        try:
            self._wait_healthy(wait)
        except BaseException:
            self.stop()  # no orphans when a caller does not stop a system that never came up
            raise
        return self.url

    def make_valkey(self) -> EmbeddedValkey:
        """The private Valkey (not started): the shipped configuration and ACL."""
        data = None
        if self.data_dir is not None:
            data = Path(self.data_dir).resolve()  # valkey.conf's dir and aclfile: absolute
            data.mkdir(parents=True, exist_ok=True)
        return EmbeddedValkey(aof=self.aof, shipped=True,
                              data_dir=None if data is None else str(data))

    def _migrate(self) -> None:
        """The upgrade steps that need the admin user (services/adjudicator/migrate.py: the
        public log of games that ended before it existed), before any service starts."""
        import redis

        from services.adjudicator.migrate import publish_ended_logs

        try:
            with redis.Redis.from_url(self.redis_url or "") as r:
                copied = publish_ended_logs(r)
        except redis.RedisError as exc:
            print(f"WARNING: the public-log upgrade step failed: {exc!r}", file=sys.stderr,
                  flush=True)
            return
        if copied:
            print(f"made the public log of {copied} game(s) that ended before it existed",
                  file=sys.stderr, flush=True)

    def _wait_healthy(self, wait: float) -> None:
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        time.sleep(0.5)  # let the stream consumers join their groups
                        return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the gateway did not become healthy")

    def _watchdog(self) -> None:
        while not self._stop.is_set():
            now = time.monotonic()
            for p in self.procs:
                if p.popen is None or p.held or p.fatal or self._stop.is_set():
                    continue
                code = p.popen.poll()
                if code is None:
                    continue
                if p.next_start == 0.0:
                    self._exited(p, code, now)
                if p.fatal or now < p.next_start:
                    continue
                p.next_start = 0.0
                self._spawn(p)
                p.restarts += 1  # after the spawn: a restart counted is one a kill() can reach
            self._stop.wait(0.1)

    def _exited(self, p: Proc, code: int, now: float) -> None:
        """Decide when a process that exited starts again: at once after a kill on purpose or
        a run longer than STABLE_S; with exponential back-off (BACKOFF_S, doubling up to
        BACKOFF_MAX_S) after quick crashes; never after MAX_QUICK_CRASHES in a row or a
        configuration refusal (exit 78), with one FATAL line saying why."""
        if p.killed:
            p.killed = False
            p.next_start = now
            return
        if code == 78:
            p.fatal = "refused its configuration (exit 78)"
        elif now - p.started < STABLE_S:
            p.quick_crashes += 1
            if p.quick_crashes >= MAX_QUICK_CRASHES:
                p.fatal = (f"crashed {p.quick_crashes} times in a row within {STABLE_S:.0f} s "
                           f"of starting (last exit {code})")
        else:
            p.quick_crashes = 0
        if p.fatal:
            where = f" (log: {self.log_dir / f'{p.service}-{p.index}.log'})" if self.log_dir else ""
            print(f"FATAL: services.{p.service} #{p.index} {p.fatal}; not restarting{where}",
                  file=sys.stderr, flush=True)
            return
        delay = 0.0 if p.quick_crashes == 0 else min(
            BACKOFF_MAX_S, BACKOFF_S * 2 ** (p.quick_crashes - 1))
        p.next_start = now + delay

    def kill(self, service: str, index: int = 0, restart: bool = True) -> None:
        """SIGKILL one replica; the watchdog restarts it unless ``restart`` is False."""
        for p in self.procs:
            if p.service == service and p.index == index and p.popen is not None:
                p.held = not restart
                p.killed = True
                p.popen.kill()

    def stop(self) -> None:
        self._stop.set()
        for p in self.procs:
            if p.popen is not None and p.popen.poll() is None:
                p.popen.terminate()
        for p in self.procs:
            if p.popen is not None:
                try:
                    p.popen.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.popen.kill()
                    p.popen.wait()
        if self.valkey is not None and self._own_valkey:
            self.valkey.stop()


def parse_replicas(text: str) -> dict[str, int]:
    out = {}
    for part in filter(None, text.split(",")):
        name, _, n = part.partition("=")
        if name not in SERVICES:
            raise SystemExit(f"unknown service {name!r}; one of {', '.join(SERVICES)}")
        out[name] = int(n or 1)
    return out


def from_args(argv: list[str] | None = None) -> Supervisor:
    """The supervisor ``make run`` starts (command line and environment)."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=int(os.environ.get("EMPIRE_PORT", 8000)))
    ap.add_argument("--host", default=os.environ.get("EMPIRE_HOST", "127.0.0.1"))
    ap.add_argument("--replicas", default=os.environ.get("EMPIRE_REPLICAS", ""))
    ap.add_argument("--data-dir", default=".run/valkey",
                    help="the private Valkey's data (AOF), kept across runs")
    ap.add_argument("--no-aof", action="store_true",
                    help="a throwaway private Valkey: no AOF, data in a temporary directory")
    ap.add_argument("--partitions", type=int, default=1)
    args = ap.parse_args(argv)
    port = args.port
    try:
        import socket

        with socket.create_connection((args.host, port), timeout=0.2):
            port = free_port()  # the default port is taken: use a free one
    except OSError:
        pass
    return Supervisor(redis_url=os.environ.get("REDIS_URL") or None, port=port, host=args.host,
                      replicas=parse_replicas(args.replicas),
                      aof=False if args.no_aof else None,  # None: valkey.conf's, as shipped
                      data_dir=None if args.no_aof else args.data_dir,
                      partitions=args.partitions,
                      token_private_key=os.environ.get("EMPIRE_TOKEN_PRIVATE_KEY"),
                      token_public_keys=os.environ.get("EMPIRE_TOKEN_PUBLIC_KEYS"),
                      log_dir=Path(".run/logs"),
                      # development on this machine: webhooks to a local receiver (loopback,
                      # plain http) are allowed; a deployment refuses them (services/notifier)
                      env_extra={"EMPIRE_NOTIFY_ALLOW_PRIVATE": os.environ.get(
                          "EMPIRE_NOTIFY_ALLOW_PRIVATE", "1")})


def main() -> None:
    sup = from_args()
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        url = sup.start()
        kept = (f"AOF in {sup.valkey.dir}, kept across runs" if sup.aof is None
                else "no AOF: nothing kept") if sup.valkey else ""
        where = (f"embedded Valkey 127.0.0.1:{sup.valkey.port} (shipped valkey.conf, {kept}, "
                 f"one ACL user per service, default user off)" if sup.valkey
                 else "REDIS_URL (as given, for every service)")
        print(f"\nEmpire Hall is running: open {url}\n  storage: {where}\n"
              f"  services: {', '.join(f'{p.service}#{p.index}' for p in sup.procs)}\n"
              f"  logs: .run/logs/   (Ctrl-C stops everything)\n", flush=True)
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        print("\nstopping…", flush=True)
    finally:
        sup.stop()
        print("stopped.", flush=True)


if __name__ == "__main__":
    main()
