"""The shipped reverse proxy (deploy/proxy/nginx.conf) run for real with Debian's nginx in front
of a running system: games play through it (HTTP and WebSocket), a body over 64 KiB is refused
413, a slow-loris request head is dropped after client_header_timeout, one IP cannot hold more
than 64 concurrent requests (WebSockets count), and /metrics and /docs are not served. Where no
nginx binary is installed (make test installs nginx-light when it runs as root), the config is
checked for the same directives instead and the live checks are skipped with the reason."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from services.supervisor import Supervisor
from shared.runtime.valkey import free_port
from tests.e2e.conftest import play_bot_game

pytestmark = pytest.mark.deploy

CONF = Path(__file__).resolve().parents[2] / "deploy" / "proxy" / "nginx.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def test_the_config_sets_every_bound() -> None:
    text = CONF.read_text()
    for directive in (
        "client_header_timeout 10s",
        "client_body_timeout 10s",
        "client_max_body_size 64k",
        "limit_conn per_ip 64",
        "limit_req zone=api_rate",
        "location = /metrics { return 404; }",
        "location ^~ /docs { return 404; }",
        "proxy_set_header X-Forwarded-For",
    ):
        assert directive in text, directive


@pytest.fixture(scope="module")
def proxied() -> Iterator[tuple[str, Supervisor]]:
    if NGINX is None:
        pytest.skip("no nginx binary (apt-get install nginx-light): config checked statically")
    sup = Supervisor(port=free_port(), log_dir=Path("test-output/logs/proxy"))
    sup.start(wait=180)
    port = free_port()
    work = Path(tempfile.mkdtemp(prefix="empire-nginx-"))
    conf = CONF.read_text().replace("listen 8080;", f"listen 127.0.0.1:{port};")
    conf = conf.replace("listen [::]:8080;\n", "").replace(
        "server gateway:8000;", f"server 127.0.0.1:{sup.port};"
    )
    conf = conf.replace("/tmp/", f"{work}/")
    (work / "nginx.conf").write_text(conf)
    check = subprocess.run(
        [NGINX, "-t", "-c", str(work / "nginx.conf"), "-p", str(work)],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    proc = subprocess.Popen(
        [NGINX, "-c", str(work / "nginx.conf"), "-p", str(work), "-g",
         "daemon off; master_process off;"],  # one process: no workers to orphan
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", sup
    finally:
        proc.terminate()
        proc.wait(10)
        sup.stop()
        shutil.rmtree(work, ignore_errors=True)


async def test_a_game_plays_and_verifies_through_the_proxy(proxied: tuple[str, Supervisor]) -> None:
    url, _ = proxied
    played = await play_bot_game(url, "duel", 2, {"rounds": 2})
    assert played.problems == []


async def test_bodies_over_64_kib_are_refused_413(proxied: tuple[str, Supervisor]) -> None:
    url, _ = proxied
    async with httpx.AsyncClient(base_url=url) as http:
        r = await http.post(
            "/api/players",
            content=b"{" + b" " * 70_000 + b"}",
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 413


async def test_metrics_and_docs_are_not_public(proxied: tuple[str, Supervisor]) -> None:
    url, sup = proxied
    async with httpx.AsyncClient(base_url=url) as http:
        for path in ("/metrics", "/docs", "/openapi.json"):
            assert (await http.get(path)).status_code == 404, path
    async with httpx.AsyncClient(base_url=sup.url) as direct:  # nor the gateway's own port:
        for path in ("/metrics", "/docs", "/openapi.json"):  # /metrics is on its metrics port
            assert (await direct.get(path)).status_code == 404, path


@pytest.mark.full  # tens of seconds: make test-full
def test_a_slow_loris_head_is_dropped(proxied: tuple[str, Supervisor]) -> None:
    url, _ = proxied
    host, port = re.match(r"http://(.+):(\d+)", url).groups()  # type: ignore[union-attr]
    with socket.create_connection((host, int(port)), timeout=20) as s:
        s.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")  # the head never ends
        t0 = time.monotonic()
        try:  # nginx closes (reset_timedout_connection: a RST) at client_header_timeout
            data = s.recv(4096)
        except ConnectionResetError:
            data = b""
        waited = time.monotonic() - t0
    assert data == b"" or b" 408 " in data.split(b"\r\n")[0]
    assert waited < 15  # a bound, not a benchmark: the config says 10 s


def test_one_ip_holds_at_most_64_requests(proxied: tuple[str, Supervisor]) -> None:
    """70 requests from one IP whose bodies never finish (each held by nginx while it reads the
    body, as a WebSocket is for its lifetime): 64 are held, 6 are answered 429 at once."""
    url, _ = proxied
    host, port = re.match(r"http://(.+):(\d+)", url).groups()  # type: ignore[union-attr]
    socks, refused = [], 0
    try:
        for _ in range(70):
            s = socket.create_connection((host, int(port)), timeout=5)
            s.sendall(
                b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                b"\r\nContent-Length: 1000\r\n\r\n{"
            )
            socks.append(s)
        time.sleep(0.5)
        for s in socks:
            s.setblocking(False)
            try:
                head = s.recv(64)
            except BlockingIOError:
                continue  # still held: nginx waits for the body
            if head.startswith(b"HTTP/1.1 429"):
                refused += 1
        assert refused == 6
    finally:
        for s in socks:
            s.close()


def test_kubernetes_sets_the_same_bounds_as_the_proxy() -> None:
    """The gateway's Ingress annotations and the controller's ConfigMap carry nginx.conf's
    limits: one policy, two deployments."""
    import yaml

    root = CONF.parents[1] / "k8s"
    docs = list(yaml.safe_load_all((root / "base" / "gateway.yaml").read_text()))
    ingress = next(d for d in docs if d and d.get("kind") == "Ingress")
    ann = ingress["metadata"]["annotations"]
    text = CONF.read_text()
    size = re.search(r"client_max_body_size (\S+);", text).group(1)  # type: ignore[union-attr]
    conns = re.search(r"limit_conn per_ip (\d+);", text).group(1)  # type: ignore[union-attr]
    rate = re.search(r"rate=(\d+)r/s", text).group(1)  # type: ignore[union-attr]
    assert ann["nginx.ingress.kubernetes.io/proxy-body-size"] == size
    assert ann["nginx.ingress.kubernetes.io/limit-connections"] == conns
    assert ann["nginx.ingress.kubernetes.io/limit-rps"] == rate
    controller = yaml.safe_load((root / "ingress" / "ingress-nginx-controller.yaml").read_text())
    head = re.search(r"client_header_timeout (\d+)s;", text).group(1)  # type: ignore[union-attr]
    body = re.search(r"client_body_timeout (\d+)s;", text).group(1)  # type: ignore[union-attr]
    assert controller["data"]["client-header-timeout"] == head
    assert controller["data"]["client-body-timeout"] == body
    paths = {p["path"] for r in ingress["spec"]["rules"] for p in r["http"]["paths"]}
    assert not paths & {"/metrics", "/docs", "/openapi.json"}
