"""Start the whole system on one machine: a private Valkey (unless REDIS_URL is set), every
service as its own process (N replicas each), restarted if it dies; stop it all on Ctrl-C.

    python -m services.supervisor [--port 8000] [--replicas adjudicator=2,escrow=2] [--aof]

Least privilege: with the private Valkey every service connects as its own ACL user (the rules
of deploy/valkey/users.acl, fresh random passwords, ``ACL SETUSER``), and the default user gets
a random password (``Supervisor.redis_url`` is that admin URL). With REDIS_URL the given URL is
used as is by every service: set up the users of deploy/valkey/users.acl on that server
yourself and run each service with its own EMPIRE_REDIS_URL.
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
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared.runtime.valkey import EmbeddedValkey, free_port

SERVICES = ("adjudicator", "escrow", "dealer", "scoring", "lobby", "bots", "gateway")
ACL_FILE = Path(__file__).resolve().parents[1] / "deploy" / "valkey" / "users.acl"


def acl_rules(text: str) -> dict[str, list[str]]:
    """service -> its ACL rules from an ACL file, without the on/off flag and the passwords
    (the file's ``default`` and ``admin`` users are for a deployed server, not ours)."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "user" and parts[1] in SERVICES:
            out[parts[1]] = [r for r in parts[2:]
                             if r not in ("on", "off") and not r.startswith((">", "#", "<"))]
    return out


def create_service_users(admin_url: str, rules: dict[str, list[str]]) -> dict[str, str]:
    """ACL SETUSER one user per service (random passwords); returns service -> its URL."""
    import redis

    base = urllib.parse.urlsplit(admin_url)
    urls = {}
    with redis.Redis.from_url(admin_url) as r:
        for user, rule in rules.items():
            password = secrets.token_hex(24)
            r.execute_command("ACL", "SETUSER", user, "reset", "on", f">{password}", *rule)
            netloc = f"{user}:{password}@{base.hostname}:{base.port}"
            urls[user] = urllib.parse.urlunsplit(base._replace(netloc=netloc))
    return urls


@dataclass
class Proc:
    service: str
    index: int
    popen: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    started: float = 0.0
    held: bool = False  # killed on purpose and kept down (no restart)
    metrics_port: int = 0  # >0: its /metrics, /healthz, /readyz (stream services)


@dataclass
class Supervisor:
    redis_url: str | None = None
    port: int = 8000
    host: str = "127.0.0.1"
    replicas: dict[str, int] = field(default_factory=dict)
    aof: bool = False
    partitions: int = 1
    secret: str | None = None
    log_dir: Path | None = None
    env_extra: dict[str, str] = field(default_factory=dict)
    valkey: EmbeddedValkey | None = None
    least_privilege: bool = True  # private Valkey: one ACL user per service
    metrics: bool = False  # every stream service serves /metrics on a free port of its own
    service_urls: dict[str, str] = field(default_factory=dict)
    procs: list[Proc] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _watch: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def env(self, proc: Proc) -> dict[str, str]:
        assert self.redis_url is not None
        env = {**os.environ, **self.env_extra,
               "EMPIRE_REDIS_URL": self.service_urls.get(proc.service, self.redis_url),
               "EMPIRE_PORT": str(self.port),
               "EMPIRE_HOST": self.host, "EMPIRE_PARTITIONS": str(self.partitions),
               "EMPIRE_SECRET": self.secret or "",
               "EMPIRE_INSTANCE": f"{proc.service}-{proc.index}-{secrets.token_hex(3)}",
               "EMPIRE_PUBLIC_URL": self.url, "PYTHONUNBUFFERED": "1"}
        env.pop("REDIS_URL", None)
        if proc.metrics_port:
            env["EMPIRE_METRICS_PORT"] = str(proc.metrics_port)
        return env

    def _spawn(self, proc: Proc) -> None:
        out: Any = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            out = open(self.log_dir / f"{proc.service}-{proc.index}.log", "ab")  # noqa: SIM115
        proc.popen = subprocess.Popen([sys.executable, "-m", f"services.{proc.service}"],
                                      env=self.env(proc), stdout=out, stderr=out)
        proc.started = time.monotonic()

    def start(self, wait: float = 60.0) -> str:
        if self.redis_url is None:
            self.valkey = EmbeddedValkey(aof=self.aof)
            self.redis_url = self.valkey.start()
            if self.least_privilege:
                self._lock_down()
        self.secret = self.secret or secrets.token_hex(32)
        for svc in SERVICES:
            for i in range(self.replicas.get(svc, 1)):
                p = Proc(svc, i)
                if self.metrics and svc != "gateway":  # the gateway serves its own port
                    p.metrics_port = free_port()
                self._spawn(p)
                self.procs.append(p)
        self._watch = threading.Thread(target=self._watchdog, daemon=True)
        self._watch.start()
        self._wait_healthy(wait)
        return self.url

    def _lock_down(self) -> None:
        """One ACL user per service, then a password on the default user (the admin URL)."""
        import redis

        assert self.redis_url is not None
        self.service_urls = create_service_users(self.redis_url, acl_rules(ACL_FILE.read_text()))
        admin = secrets.token_hex(24)
        with redis.Redis.from_url(self.redis_url) as r:
            r.execute_command("ACL", "SETUSER", "default", "on", "resetpass", f">{admin}")
        base = urllib.parse.urlsplit(self.redis_url)
        self.redis_url = urllib.parse.urlunsplit(
            base._replace(netloc=f"default:{admin}@{base.hostname}:{base.port}"))

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
            for p in self.procs:
                if p.popen is not None and p.popen.poll() is not None and not p.held \
                        and not self._stop.is_set():
                    p.restarts += 1
                    self._spawn(p)
            self._stop.wait(0.2)

    def kill(self, service: str, index: int = 0, restart: bool = True) -> None:
        """SIGKILL one replica; the watchdog restarts it unless ``restart`` is False."""
        for p in self.procs:
            if p.service == service and p.index == index and p.popen is not None:
                p.held = not restart
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
        if self.valkey is not None:
            self.valkey.stop()


def parse_replicas(text: str) -> dict[str, int]:
    out = {}
    for part in filter(None, text.split(",")):
        name, _, n = part.partition("=")
        if name not in SERVICES:
            raise SystemExit(f"unknown service {name!r}; one of {', '.join(SERVICES)}")
        out[name] = int(n or 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--port", type=int, default=int(os.environ.get("EMPIRE_PORT", 8000)))
    ap.add_argument("--host", default=os.environ.get("EMPIRE_HOST", "127.0.0.1"))
    ap.add_argument("--replicas", default=os.environ.get("EMPIRE_REPLICAS", ""))
    ap.add_argument("--aof", action="store_true", help="embedded Valkey with appendfsync always")
    ap.add_argument("--partitions", type=int, default=1)
    args = ap.parse_args()
    port = args.port
    try:
        import socket

        with socket.create_connection((args.host, port), timeout=0.2):
            port = free_port()  # the default port is taken: use a free one
    except OSError:
        pass
    sup = Supervisor(redis_url=os.environ.get("REDIS_URL") or None, port=port, host=args.host,
                     replicas=parse_replicas(args.replicas), aof=args.aof,
                     partitions=args.partitions, secret=os.environ.get("EMPIRE_SECRET"),
                     log_dir=Path(".run/logs"))
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        url = sup.start()
        where = (f"embedded Valkey {sup.valkey.url} (one ACL user per service)" if sup.valkey
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
