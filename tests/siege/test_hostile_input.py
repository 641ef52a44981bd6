"""Hostile bytes at the gateway answer 4xx, never 500 or a reset: deep-nested JSON (500 and
5,000 levels), lone surrogates (escaped and raw), invalid UTF-8, huge numbers (1e400, a
5,000-digit integer), wrong content types, non-objects, over-sized bodies, hostile path
segments, on every HTTP route; and the same on the WebSocket, where each hostile frame gets a
typed ``rejected`` and the socket stays open (a ``ping`` after it still gets its ``pong``).
The lobby receives only requests rebuilt from the validated models: a client's forged
``player_id`` is refused, never forwarded, and stored options are the validated ones.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from clients.sdk import Client
from services.supervisor import Supervisor
from shared.protocol.errors import ERROR_CODES
from tests.siege.conftest import report
from tests.siege.rawws import BINARY, RawWs

pytestmark = [pytest.mark.siege, pytest.mark.timeout(300)]

DEEP_500 = b'{"name": "x", "game": "duel", "seats": 2, "options": {"o": ' + b"[" * 500 + \
    b"]" * 500 + b"}}"
DEEP_5000 = b'{"name": ' + b"[" * 5000 + b"]" * 5000 + b"}"
BODIES: dict[str, tuple[bytes, str | None]] = {
    "deep_500": (DEEP_500, "application/json"),
    "deep_5000": (DEEP_5000, "application/json"),
    "lone_surrogate_escaped": (b'{"name": "a\\ud800b", "game": "duel", "seats": 2}',
                               "application/json"),
    "lone_surrogate_raw": (b'{"name": "a\xed\xa0\x80b", "game": "duel", "seats": 2}',
                           "application/json"),
    "invalid_utf8": (b'{"name": "\xff\xfe", "game": "duel", "seats": 2}', "application/json"),
    "huge_float": (b'{"name": "x", "game": "duel", "seats": 1e400}', "application/json"),
    "huge_int": (b'{"name": "x", "game": "duel", "seats": 1' + b"0" * 5000 + b"}",
                 "application/json"),
    "huge_int_option": (b'{"game": "duel", "seats": 2, "options": {"rounds": 1' + b"0" * 5000
                        + b"}}", "application/json"),
    "nan": (b'{"name": NaN}', "application/json"),
    "trailing_garbage": (b'{"name": "x"} {"name": "y"}', "application/json"),
    "not_object": (b'[{"name": "x"}]', "application/json"),
    "string": (b'"ada"', "application/json"),
    "null": (b"null", "application/json"),
    "empty": (b"", "application/json"),
    "text_plain": (b'{"name": "x"}', "text/plain"),
    "form": (b"name=x", "application/x-www-form-urlencoded"),
    "multipart": (b'--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n',
                  "multipart/form-data; boundary=b"),
    "no_content_type": (b'{"name": "x"}', None),
    "nul_in_string": (b'{"name": "a\\u0000b", "game": "duel\\u0000", "seats": 2}',
                      "application/json"),
    "oversized": (b'{"name": "' + b"x" * (2 * 1024 * 1024) + b'"}', "application/json"),
    "forged_identity": (b'{"name": "x", "game": "duel", "seats": 2, "player_id": "p-victim"}',
                        "application/json"),
}
POST_ROUTES = ["/api/players", "/api/tables", "/api/tables/{t}/join", "/api/invites/{i}/join",
               "/api/tables/{t}/leave", "/api/tables/{t}/bots", "/api/tables/{t}/start",
               "/api/games/{g}/resign"]
GET_ROUTES = ["/api/games", "/api/tables", "/api/tables/{t}", "/api/matches/{g}",
              "/api/matches/{g}/record", "/api/matches/{g}/result", "/api/leaderboard/duel",
              "/api/players/{p}/history", "/healthz", "/readyz"]
HOSTILE_SEGMENTS = ["%ED%A0%80", "%FF%FE", "x" * 3000, "..%2F..%2Fetc", "%00", "a%20b"]
HOSTILE_QUERIES = ["limit=1e400", "limit=1" + "0" * 5000, "limit=%FF", "step=-1&seat=1e9"]


def _typed(r: httpx.Response) -> bool:
    try:
        body = r.json()
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("ok") is False and body.get("code") in ERROR_CODES


async def test_hostile_http_bodies_paths_and_queries_answer_typed_4xx(siege: Supervisor) -> None:
    url = siege.url
    async with Client(url) as host:
        await host.sign_in("siege-host")
        t = await host.create_table("duel", 2, {"rounds": 1})
        ids = {"t": t["table_id"], "i": t["invite"], "g": "g-0000", "p": host.player_id or ""}
        auth = {"Authorization": f"Bearer {host.token}"}
        bad: list[tuple[str, str, int, str]] = []
        statuses: dict[int, int] = {}
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            async def probe(method: str, path: str, body: bytes | None, ctype: str | None,
                            label: str, need_typed: bool) -> None:
                headers = dict(auth)
                if ctype is not None:
                    headers["Content-Type"] = ctype
                try:
                    r = await http.request(method, path, content=body, headers=headers)
                except httpx.HTTPError as exc:  # a reset or a dropped connection
                    bad.append((method, path[:60], 0, f"{label}: {exc!r}"[:120]))
                    return
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                if r.status_code >= 500 or (need_typed and not (400 <= r.status_code < 500
                                                                 and _typed(r))):
                    bad.append((method, path[:60], r.status_code, f"{label}: {r.text[:80]}"))

            for route in POST_ROUTES:
                path = route.format(**ids)
                for label, (body, ctype) in BODIES.items():
                    # a route without a body ignores one it did not ask for (never a 5xx)
                    takes_body = route in ("/api/players", "/api/tables") or (
                        route == "/api/tables/{t}/bots" and label != "empty")  # optional
                    await probe("POST", path, body, ctype, label, takes_body)
                for seg in HOSTILE_SEGMENTS:
                    p = route.replace("{t}", seg).replace("{i}", seg).replace("{g}", seg)
                    if p != route:
                        await probe("POST", p, b"{}", "application/json", f"segment {seg[:9]}",
                                    True)
            for route in GET_ROUTES:
                path = route.format(**ids)
                for q in HOSTILE_QUERIES:
                    await probe("GET", f"{path}?{q}", None, None, q[:20], False)
                await probe("GET", path, DEEP_5000, "application/json", "body on GET", False)
                for seg in HOSTILE_SEGMENTS:
                    p = route.replace("{t}", seg).replace("{g}", seg).replace("{p}", seg)
                    if p != route:
                        await probe("GET", p, None, None, f"segment {seg[:9]}", False)
        report("hostile_http", {"requests": sum(statuses.values()), "statuses": statuses,
                                "untyped_or_5xx": len(bad)})
        assert bad == [], bad[:12]


async def test_the_lobby_gets_only_validated_requests(siege: Supervisor) -> None:
    """A forged identity field is refused (never forwarded); the stored options are the
    validated model's dump."""
    async with Client(siege.url) as c:
        await c.sign_in("siege-validated")
        r = await c.http.post("/api/tables", headers={"Authorization": f"Bearer {c.token}"},
                              json={"game": "duel", "seats": 2, "player_id": "p-victim"})
        assert r.status_code == 400 and _typed(r), r.text
        t = await c.create_table("duel", 2, {"rounds": 2})
        assert t["host"] == c.player_id and t["options"] == {"rounds": 2}


def _ws_probe(url: str, token: str, frames: list[tuple[str, bytes, int]]) -> dict[str, Any]:
    raw = RawWs(url, token).connect()
    out: dict[str, Any] = {"answers": {}, "dropped": [], "untyped": []}
    try:
        assert json.loads(raw.recv_text())["type"] == "welcome"
        for label, payload, opcode in frames:
            raw.send(payload, opcode)
            raw.send('{"type": "ping"}')
            try:
                first = json.loads(raw.recv_text(20))
                second = json.loads(raw.recv_text(20))
            except Exception as exc:  # a closed socket
                out["dropped"].append(f"{label}: {exc!r}"[:100])
                raw.close()
                raw = RawWs(url, token).connect()
                raw.recv_text()
                continue
            if first.get("type") != "rejected" or first.get("code") not in ERROR_CODES \
                    or second.get("type") != "pong":
                out["untyped"].append((label, first, second))
            out["answers"][label] = first.get("code")
    finally:
        raw.close()
    return out


async def test_hostile_websocket_frames_get_typed_refusals_and_keep_the_socket(
        siege: Supervisor) -> None:
    async with Client(siege.url) as c:
        await c.sign_in("siege-ws-hostile")

        def act(action: bytes) -> bytes:
            return b'{"type": "act", "cmd_id": "h1", "game_id": "g-x", "expected_seq": null, ' \
                b'"action": ' + action + b"}"

        frames: list[tuple[str, bytes, int]] = [
            ("deep_500", act(b"[" * 500 + b"]" * 500), 1),
            ("deep_1100", act(b"[" * 1100 + b"]" * 1100), 1),
            ("lone_surrogate_escaped", act(b'"\\ud800"'), 1),
            ("lone_surrogate_raw", act(b'"\xed\xa0\x80"'), 1),
            ("invalid_utf8_text", act(b'"\xff\xfe"'), 1),
            ("invalid_utf8_binary", act(b'"\xff\xfe"'), BINARY),
            ("binary_json", b'{"type": "ping"}', BINARY),
            ("huge_float", act(b"1e400"), 1),
            ("huge_int", act(b"1" + b"0" * 5000), 1),
            ("nan", act(b"NaN"), 1),
            ("act_over_move_cap", act(b'"' + b"x" * 6000 + b'"'), 1),
            ("commit_over_move_cap", b'{"type": "commit", "v": 2, "cmd_id": "c", "game_id": '
             b'"g", "round_id": "r", "slot": "s", "commitment": "' + b"0" * 64
             + b'", "sealed": "' + b"y" * 8000 + b'"}', 1),
            ("not_object", b"[1, 2]", 1),
            ("empty", b"", 1),
        ]
        out = await asyncio.to_thread(_ws_probe, siege.url, c.token or "", frames)
        report("hostile_ws", {"frames": len(frames), **out})
        assert out["dropped"] == [] and out["untyped"] == [], out
        assert out["answers"]["act_over_move_cap"] == "message/too_large"
        assert out["answers"]["commit_over_move_cap"] == "message/too_large"


async def test_a_streamed_body_past_the_bound_is_refused(siege: Supervisor) -> None:
    """No Content-Length (chunked): the body is counted as it arrives, 413 past the bound."""

    async def chunks() -> Any:
        for _ in range(40):
            yield b" " * 1024  # JSON whitespace, 40 KiB of it
        yield b'{"name": "x"}'

    async with httpx.AsyncClient(base_url=siege.url, timeout=30) as http:
        r = await http.post("/api/players", content=chunks(),
                            headers={"Content-Type": "application/json"})
    report("streamed_body", {"sent_bytes": 40 * 1024 + 13, "status": r.status_code,
                             "code": r.json().get("code")})
    assert r.status_code == 413 and _typed(r) and r.json()["code"] == "message/too_large"
