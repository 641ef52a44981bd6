"""A real partition: Valkey in a network namespace of its own, a service's Redis
client in another, joined by a veth pair; the partition drops the packets in the kernel
(an nftables rule in Valkey's namespace, or the link set down where nft is not installed).
Unlike the proxy's cut, TCP retransmits what was dropped once the link heals:

- a partition shorter than the socket timeout delays a command, which then completes on the
  same connection (nothing fails, nothing runs twice);
- a longer one fails the command with a timeout within a bound (never a hang), and the next
  command after the heal is answered on a new connection.

Only the project's own namespaces are touched (created and deleted here); skipped cleanly
where namespaces cannot be made (not root, no ``ip``, a container without the capability)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from shared.runtime.valkey import valkey_binary

pytestmark = [pytest.mark.integration, pytest.mark.faults]

ROOT = Path(__file__).resolve().parents[2]
PORT = 6390
CLIENT = r"""
import asyncio, json, sys, time
from shared.runtime import redis as rt
from shared.runtime.settings import Settings

async def main() -> None:
    r = rt.client(Settings(redis_url=sys.argv[1], redis_plaintext=True))
    await r.ping()
    await r.set("n", 0)
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    while (line := await loop.run_in_executor(None, sys.stdin.readline)).strip():
        t = time.monotonic()
        try:
            await asyncio.wait_for(r.incr("n"), 60)
            out = "answered"
        except TimeoutError:
            out = "hung"
        except Exception as exc:
            out = type(exc).__name__
        print(json.dumps({"outcome": out, "s": round(time.monotonic() - t, 2),
                          "n": int(await r.get("n") or 0) if out == "answered" else None}),
              flush=True)
    await r.aclose()

asyncio.run(main())
"""


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


@dataclass
class Net:
    a: str  # the client's namespace
    b: str  # Valkey's namespace
    veth_b: str
    nft: bool

    def cut(self) -> None:
        if self.nft:
            subprocess.run(["ip", "netns", "exec", self.b, "nft", "-f", "-"], check=True,
                           timeout=10, capture_output=True,
                           input=(b"table inet ehfault { chain input { type filter hook input "
                                  b"priority 0; policy accept; tcp dport " + str(PORT).encode()
                                  + b" drop; } }\n"))
        else:
            _ip("-n", self.b, "link", "set", self.veth_b, "down")

    def heal(self) -> None:
        if self.nft:
            subprocess.run(["ip", "netns", "exec", self.b, "nft", "delete", "table", "inet",
                            "ehfault"], check=True, timeout=10, capture_output=True)
        else:
            _ip("-n", self.b, "link", "set", self.veth_b, "up")


@pytest.fixture
def net() -> Iterator[Net]:
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("network namespaces need root and iproute2")
    tag = f"{os.getpid() % 100000}"
    a, b = f"ehf-a-{tag}", f"ehf-b-{tag}"
    va, vb = f"ehfa{tag}", f"ehfb{tag}"
    made: list[str] = []
    try:
        for ns in (a, b):
            _ip("netns", "add", ns)
            made.append(ns)
        _ip("link", "add", va, "netns", a, "type", "veth", "peer", "name", vb, "netns", b)
        for ns, dev, addr in ((a, va, "10.251.77.1/30"), (b, vb, "10.251.77.2/30")):
            _ip("-n", ns, "addr", "add", addr, "dev", dev)
            _ip("-n", ns, "link", "set", dev, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
    except (subprocess.CalledProcessError, OSError) as exc:
        for ns in made:
            subprocess.run(["ip", "netns", "delete", ns], capture_output=True, timeout=10)
        pytest.skip(f"cannot make network namespaces here: {exc}")
    try:
        yield Net(a, b, vb, nft=shutil.which("nft") is not None)
    finally:
        for ns in made:  # deleting a namespace deletes its end of the veth pair (and the pair)
            subprocess.run(["ip", "netns", "delete", ns], capture_output=True, timeout=10)


@pytest.fixture
def client(net: Net) -> Iterator[subprocess.Popen[str]]:
    server = subprocess.Popen(
        ["ip", "netns", "exec", net.b, valkey_binary(), "--port", str(PORT), "--bind",
         "10.251.77.2", "--protected-mode", "no", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc: subprocess.Popen[str] | None = None
    try:
        time.sleep(0.5)
        proc = subprocess.Popen(
            ["ip", "netns", "exec", net.a, sys.executable, "-c", CLIENT,
             f"redis://10.251.77.2:{PORT}/0"],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        yield proc
    finally:
        for p in (proc, server):
            if p is not None:
                p.kill()
                p.wait(10)


def _command(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("go\n")
    proc.stdin.flush()


def _result(proc: subprocess.Popen[str]) -> dict[str, object]:
    assert proc.stdout is not None
    return dict(json.loads(proc.stdout.readline()))


def test_a_short_real_partition_delays_a_command_which_then_completes_once(
        net: Net, client: subprocess.Popen[str]) -> None:
    net.cut()
    _command(client)  # INCR sent into the partition
    time.sleep(1.5)  # below the services' 5 s socket timeout
    net.heal()
    out = _result(client)
    assert out["outcome"] == "answered", out  # TCP retransmitted it: no error
    assert out["n"] == 1  # applied once


def test_a_long_real_partition_fails_the_command_then_the_next_is_answered(
        net: Net, client: subprocess.Popen[str]) -> None:
    net.cut()
    _command(client)
    out = _result(client)  # the partition outlasts the socket timeout
    assert out["outcome"] == "TimeoutError", out  # a typed failure, not a hang
    net.heal()
    _command(client)
    out = _result(client)
    assert out["outcome"] == "answered", out
    assert out["n"] in (1, 2)  # the timed-out INCR may have reached Valkey or not
