"""Rate limits and quotas hold across gateway replicas: two gateway processes share one
Valkey, and a client alternates between them. Sign-ups and HTTP requests per client IP,
requests per player token, WebSocket sockets per player and per IP: each limit answers a typed
429 (``message/rate_limited``) with Retry-After, or for a socket a typed ``rejected`` and
close code 4029, at the same count whichever gateway is asked.

Both gateways trust 127.0.0.1 as a proxy, so the tests name their client IPs with
X-Forwarded-For; a client on 127.0.0.2 (not a trusted proxy) cannot: its X-Forwarded-For is
ignored and it is limited as 127.0.0.2.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
import redis
import websockets

from services.supervisor import Supervisor
from tests.siege.conftest import extra_gateways, metric, report
from tests.support.wsauth import offer, ws_url

pytestmark = [pytest.mark.siege, pytest.mark.timeout(300)]

STRICT = {
    "EMPIRE_TRUSTED_PROXIES": "127.0.0.1/32",
    "EMPIRE_RATE_EXEMPT_IPS": "",
    "EMPIRE_SIGNUP_PER_MIN": "1",
    "EMPIRE_SIGNUP_BURST": "6",
    "EMPIRE_HTTP_PER_S": "1",
    "EMPIRE_HTTP_BURST": "40",
    "EMPIRE_TOKEN_PER_S": "1",
    "EMPIRE_TOKEN_BURST": "30",
    "EMPIRE_WS_PER_PLAYER": "3",
    "EMPIRE_WS_PER_IP": "5",
    # the siege's 3 s head timeout (tests/siege/test_slow_http.py) is not under test here: a
    # loaded machine let 3 s pass between a connect and its request head among 60 at once,
    # and the connection was closed unanswered, as that timeout does
    "EMPIRE_HTTP_HEAD_TIMEOUT_S": "30",
}
_rng = random.Random()


def fresh_ip() -> str:
    """A client address of its own per call (198.18.0.0/15, the benchmarking range)."""
    return f"198.{18 + _rng.randrange(2)}.{_rng.randrange(256)}.{_rng.randrange(1, 255)}"


PAIR_USER = "siege-pair"


@pytest.fixture(scope="module")
def pair_admin(siege: Supervisor) -> Iterator[tuple[redis.Redis, str]]:
    """The pair's own Valkey user (every permission), so a test can take the rate limiter's
    script away from these two gateways alone; yields an admin client and the user's URL."""
    assert siege.redis_url is not None
    password = secrets.token_hex(16)
    admin = redis.Redis.from_url(siege.redis_url)
    admin.execute_command("ACL", "SETUSER", PAIR_USER, "on", f">{password}", "~*", "&*",
                          "+@all")
    u = urlsplit(siege.redis_url)
    try:
        yield admin, urlunsplit(u._replace(
            netloc=f"{PAIR_USER}:{password}@{u.hostname}:{u.port}"))
    finally:
        admin.execute_command("ACL", "DELUSER", PAIR_USER)
        admin.close()


@pytest.fixture(scope="module")
def pair(siege: Supervisor, pair_admin: tuple[redis.Redis, str]) -> Iterator[list[str]]:
    with extra_gateways(siege, {**STRICT, "EMPIRE_REDIS_URL": pair_admin[1]}, n=2) as urls:
        yield urls


async def _sign_up(http: httpx.AsyncClient, url: str, name: str, ip: str) -> httpx.Response:
    return await http.post(f"{url}/api/players", json={"name": name},
                           headers={"X-Forwarded-For": ip})


def _limited(r: httpx.Response) -> bool:
    return (r.status_code == 429 and r.json().get("code") == "message/rate_limited"
            and int(r.headers.get("Retry-After", "0")) >= 1)


def most(burst: int, per_s: float, t0: float) -> int:
    """The most a token bucket can let through since ``t0``: its burst and what it refilled
    meanwhile (a loaded machine sends the same requests over a longer time: no speed is
    assumed)."""
    return burst + int(per_s * (time.monotonic() - t0)) + 1


async def test_sign_ups_per_ip_hold_across_two_gateways(pair: list[str]) -> None:
    ip = fresh_ip()
    async with httpx.AsyncClient(timeout=30) as http:
        rs = [await _sign_up(http, pair[i % 2], f"su{i}", ip) for i in range(10)]
        other = await _sign_up(http, pair[0], "su-other", fresh_ip())
    ok = [r.status_code for r in rs].count(200)
    report("rate_signups", {"burst": 6, "sent": 10, "ok": ok,
                            "limited": sum(map(_limited, rs))})
    assert ok == 6 and all(_limited(r) for r in rs[6:]), [r.status_code for r in rs]
    assert other.status_code == 200  # another address is not limited


async def test_http_requests_per_ip_hold_across_two_gateways(pair: list[str]) -> None:
    ip = fresh_ip()
    t0 = time.monotonic()
    async with httpx.AsyncClient(timeout=30) as http:
        rs = await asyncio.gather(*[http.get(f"{pair[i % 2]}/api/games",
                                             headers={"X-Forwarded-For": ip})
                                    for i in range(80)])
    ok = [r.status_code for r in rs].count(200)
    report("rate_http_ip", {"burst": 40, "sent": 80, "ok": ok,
                            "limited": sum(map(_limited, rs))})
    assert 40 <= ok <= max(43, most(40, 1, t0)) and ok + sum(map(_limited, rs)) == 80, ok


async def test_http_requests_per_ip_stay_bounded_while_the_limiter_cannot_use_valkey(
        pair: list[str], pair_admin: tuple[redis.Redis, str]) -> None:
    """The gateway's Valkey user loses its scripts (NOPERM: a broken ACL, as Valkey down or
    timing out would do): an address's requests are still held near the burst by the
    gateway's own view of the rate (services/gateway/edge/local_rates.py), not let through
    unlimited, and each failed check is counted: every allowed request (it asked Valkey), and
    a refused one unless the gateway's view already refused it without asking (the
    pre-check, Quotas._known_wait, or the early refusal when the connection is accepted)."""
    admin, _ = pair_admin
    ip = fresh_ip()
    errors = metric(pair[0], "empire_rate_limit_errors_total")
    admin.execute_command("ACL", "SETUSER", PAIR_USER, "-evalsha", "-eval", "-script")
    try:
        t0 = time.monotonic()
        async with httpx.AsyncClient(timeout=30) as http:
            rs = await asyncio.gather(*[http.get(f"{pair[0]}/api/games",
                                                 headers={"X-Forwarded-For": ip})
                                        for _ in range(60)])
    finally:
        admin.execute_command("ACL", "SETUSER", PAIR_USER, "+@all")
    ok = [r.status_code for r in rs].count(200)
    report("rate_http_ip_without_valkey", {"burst": 40, "sent": 60, "ok": ok,
                                           "limited": sum(map(_limited, rs))})
    assert 40 <= ok <= max(43, most(40, 1, t0)) and ok + sum(map(_limited, rs)) == 60, ok
    failed = metric(pair[0], "empire_rate_limit_errors_total") - errors
    assert ok <= failed <= 60, (ok, failed)


async def test_a_flood_past_the_limit_is_refused_without_asking_valkey(
        pair: list[str]) -> None:
    """Past its burst, an address's requests are refused by the gateway's own view of the
    rate (the cluster's state it learned from the last answer): 120 requests over the limit
    cost about one Valkey script call per request let through, not one per request.
    The gateway counts its own calls (``empire_rate_limit_checks_total``); the server's
    EVALSHA total also counted every other service's scripts meanwhile."""
    ip = fresh_ip()
    checks = "empire_rate_limit_checks_total"
    async with httpx.AsyncClient(timeout=30) as http:
        async def get() -> httpx.Response:
            return await http.get(f"{pair[0]}/api/games", headers={"X-Forwarded-For": ip})

        t0 = time.monotonic()  # the bucket refills from here on, while the burst is spent too
        spent = [(await get()).status_code for _ in range(40)]  # the burst
        before = metric(pair[0], checks)
        flood = [await get() for _ in range(120)]
        calls = metric(pair[0], checks) - before
    ok = [r.status_code for r in flood].count(200)
    report("rate_http_precheck", {"burst": 40, "sent": 120, "ok": ok, "script_calls": calls})
    assert spent.count(200) >= 39, spent
    assert ok <= most(40, 1, t0) - spent.count(200) and ok + sum(map(_limited, flood)) == 120, ok
    # one call per request let through, and one per refusal the view was not sure of: the
    # first past the burst, and the first after each token the cluster's rate grants (a few)
    assert calls <= 2 * ok + 5, (calls, ok)


async def test_requests_per_token_hold_across_addresses_and_gateways(pair: list[str]) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        me = (await _sign_up(http, pair[0], "per-token", fresh_ip())).json()
        auth = {"Authorization": f"Bearer {me['token']}"}
        t0 = time.monotonic()
        rs = await asyncio.gather(*[http.get(f"{pair[i % 2]}/api/tables",
                                             headers={**auth, "X-Forwarded-For": fresh_ip()})
                                    for i in range(60)])
    ok = [r.status_code for r in rs].count(200)
    report("rate_token", {"burst": 30, "sent": 60, "ok": ok,
                          "limited": sum(map(_limited, rs))})
    assert 30 <= ok <= max(33, most(30, 1, t0)) and ok + sum(map(_limited, rs)) == 60, ok


async def _open(url: str, token: str, ip: str) -> tuple[websockets.ClientConnection, dict]:
    ws = await websockets.connect(ws_url(url), subprotocols=offer(token),
                                  additional_headers={"X-Forwarded-For": ip})
    return ws, json.loads(await asyncio.wait_for(ws.recv(), 10))


async def _refused(ws: websockets.ClientConnection, first: dict) -> int | None:
    """The close code after a typed refusal (None if the socket was welcomed)."""
    if first.get("type") != "rejected" or first.get("code") != "message/rate_limited":
        return None
    with contextlib.suppress(websockets.ConnectionClosed, TimeoutError):
        await asyncio.wait_for(ws.recv(), 10)
    return ws.close_code


async def test_websockets_per_player_and_per_ip_hold_across_two_gateways(
        pair: list[str]) -> None:
    opened: list[websockets.ClientConnection] = []
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            players = [(await _sign_up(http, pair[0], f"ws{i}", fresh_ip())).json()["token"]
                       for i in range(7)]
        # per player: three sockets (from three addresses, on both gateways), then refused
        firsts = []
        for i in range(4):
            ws, first = await _open(pair[i % 2], players[0], fresh_ip())
            opened.append(ws)
            firsts.append(first)
        got = [f["type"] for f in firsts]
        player_code = await _refused(opened[-1], firsts[-1])
        # a slot frees when a socket closes, whichever gateway held it
        await opened[0].close()
        await asyncio.sleep(0.3)
        ws, again = await _open(pair[1], players[0], fresh_ip())
        opened.append(ws)
        # per IP: five players from one address, then the sixth is refused
        ip = fresh_ip()
        per_ip = []
        for i in range(6):
            ws, first = await _open(pair[i % 2], players[1 + i], ip)
            opened.append(ws)
            per_ip.append(first)
        ip_code = await _refused(opened[-1], per_ip[-1])
        report("rate_ws", {"per_player_limit": 3, "per_player": got,
                           "per_player_close": player_code, "after_a_close": again["type"],
                           "per_ip_limit": 5, "per_ip": [f["type"] for f in per_ip],
                           "per_ip_close": ip_code})
        assert got == ["welcome"] * 3 + ["rejected"] and player_code == 4029, got
        assert again["type"] == "welcome", again
        assert [f["type"] for f in per_ip] == ["welcome"] * 5 + ["rejected"], per_ip
        assert ip_code == 4029
    finally:
        for ws in opened:
            with contextlib.suppress(Exception):
                await ws.close()


async def test_forwarded_for_from_an_untrusted_peer_is_ignored(pair: list[str]) -> None:
    """127.0.0.2 is not a trusted proxy: a fresh X-Forwarded-For on every request does not
    escape its per-IP limit."""
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    t0 = time.monotonic()
    async with httpx.AsyncClient(timeout=30, transport=transport) as http:
        rs = [await http.get(f"{pair[i % 2]}/api/games",
                             headers={"X-Forwarded-For": fresh_ip()}) for i in range(60)]
    ok = [r.status_code for r in rs].count(200)
    report("rate_untrusted_xff", {"burst": 40, "sent": 60, "ok": ok})
    assert 40 <= ok <= max(45, most(40, 1, t0)), ok
    assert all(_limited(r) for r in rs if r.status_code != 200)


def _loopback_source() -> str:
    """A loopback address of its own (127.0.0.0/8 all reaches this host), not a trusted proxy
    (127.0.0.1), so the gateway limits it by its own socket address."""
    return f"127.{_rng.randrange(1, 255)}.{_rng.randrange(256)}.{_rng.randrange(2, 255)}"


def _silent_connection(url: str, source: str, wait_s: float) -> bytes:
    """Connect from ``source``, send nothing, and return what the server says within
    ``wait_s`` (b"" if nothing: a connection that sent no byte is otherwise only timed out)."""
    u = urlsplit(url)
    with socket.create_connection((u.hostname, u.port), timeout=wait_s,
                                  source_address=(source, 0)) as s:
        try:
            return s.recv(4096)
        except TimeoutError:
            return b""


async def test_an_address_over_its_rate_is_answered_429_before_it_sends_a_byte(
        pair: list[str]) -> None:
    """Once a replica knows an address is over its HTTP rate, a new connection from it is
    answered a typed 429 as it is accepted, before any request is read or parsed (the siege's
    socket churn spent 0.3-0.5 ms of the gateway's CPU in h11, uvicorn and the middleware on
    each refused handshake). Before, a connection that sent nothing got no answer at all until
    its head timeout. An address under its rate is not touched: its silent connection still
    gets nothing."""
    source = _loopback_source()
    assert await asyncio.to_thread(_silent_connection, pair[0], source, 0.5) == b""
    async with httpx.AsyncClient(
            timeout=30, transport=httpx.AsyncHTTPTransport(local_address=source)) as http:
        codes = [(await http.get(f"{pair[0]}/api/games")).status_code for _ in range(45)]
    assert codes.count(429) >= 4, codes  # burst 40 at 1/s: the replica learned the address
    answer = await asyncio.to_thread(_silent_connection, pair[0], source, 5.0)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 429"), answer
    assert b"retry-after:" in head.lower(), answer
    assert json.loads(body)["code"] == "message/rate_limited", answer
    other = _loopback_source()  # another address is not refused for this one's flood
    assert await asyncio.to_thread(_silent_connection, pair[0], other, 0.5) == b""
    # the figure (not a bound): the gateway's CPU per refused request of a flooding address
    cpu0 = metric(pair[0], "process_cpu_seconds_total")
    refused = await asyncio.to_thread(_flood_requests, pair[0], source, 1000)
    cpu = metric(pair[0], "process_cpu_seconds_total") - cpu0
    report("rate_http_early", {"requests": 1000, "refused_429": refused,
                               "gateway_cpu_ms_per_request": round(cpu * 1000 / 1000, 3)})
    assert refused >= 980, refused  # a token frees each second (1/s): a few may pass


def _flood_requests(url: str, source: str, n: int) -> int:
    """``n`` requests from ``source``, each on a new connection; how many were answered 429."""
    u = urlsplit(url)
    request = f"GET /api/games HTTP/1.1\r\nhost: {u.hostname}\r\n\r\n".encode()
    refused = 0
    for _ in range(n):
        with socket.create_connection((u.hostname, u.port), timeout=10,
                                      source_address=(source, 0)) as s:
            s.sendall(request)
            refused += s.recv(4096).startswith(b"HTTP/1.1 429")
    return refused


def _keep_alive_until_refused(url: str, source: str, most: int) -> tuple[int, bytes, bytes]:
    """GETs on one kept-alive connection from ``source`` until one is not a 200: how many
    were answered 200, that answer, and what the connection gives after it."""
    u = urlsplit(url)
    request = f"GET /api/games HTTP/1.1\r\nhost: {u.hostname}\r\n\r\n".encode()
    with socket.create_connection((u.hostname, u.port), timeout=10,
                                  source_address=(source, 0)) as s:
        buf = s.makefile("rb")
        for ok in range(most):
            s.sendall(request)
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                head += buf.readline()
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            body = buf.read(length)
            if not head.startswith(b"HTTP/1.1 200"):
                return ok, head + body, buf.read()  # read() ends when the server closes
    return most, b"", b""


async def test_a_request_over_the_rate_ends_its_kept_alive_connection(pair: list[str]) -> None:
    """A 429 for the address's HTTP rate says ``Connection: close`` and the server closes the
    connection after it: a flood on kept-alive connections (the siege's body and listing
    floods) comes back on new connections, refused as they are accepted, and no refused
    request's body is read."""
    source = _loopback_source()
    ok, answer, after = await asyncio.to_thread(_keep_alive_until_refused, pair[0], source, 60)
    assert 38 <= ok <= 45, ok  # the burst (40) on one connection
    head = answer.partition(b"\r\n\r\n")[0].lower()
    assert head.startswith(b"http/1.1 429") and b"connection: close" in head, answer
    assert after == b"", after  # closed by the server, nothing more
