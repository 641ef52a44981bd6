"""Auth: forged, tampered, malformed, expired and other-seat tokens are refused, over the
WebSocket (a typed ``rejected`` then close 4401) and over HTTP (401 with the code); tokens are
Ed25519-signed by the lobby and checked with its public key (shared/runtime/tokens.py)."""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import Any

import httpx
import pytest
import websockets

from clients.sdk import Client
from services.supervisor import Supervisor
from shared.runtime import tokens
from tests.reliability.conftest import report, retry
from tests.support.wsauth import ws_url

pytestmark = pytest.mark.reliability


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


async def _ws_first(url: str, token: str) -> tuple[dict[str, Any], int | None]:
    """The first frame for this token (sent as the first frame: any string fits there) and,
    if the gateway closed, the close code."""
    ws = await websockets.connect(ws_url(url))
    try:
        await ws.send(json.dumps({"type": "auth", "token": token}))
        first = json.loads(await ws.recv())
        code = None
        if first.get("type") == "rejected":
            try:
                await ws.recv()
            except websockets.ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd else None
        return first, code
    finally:
        await ws.close()


async def test_forged_expired_and_other_seat_tokens_are_refused(hall: Supervisor) -> None:
    url = hall.url
    signing_key = hall.token_private_key or ""  # the test holds it to make an expired token
    now = int(time.time() * 1000)
    owner, stranger = Client(url), Client(url)
    try:
        await retry(owner.sign_in, "owner")
        await retry(stranger.sign_in, "stranger")
        good = owner.token or ""
        payload_b64, sig_b64 = good.split(".")
        payload = json.loads(base64.urlsafe_b64decode(payload_b64 + "=="))
        other = {**payload, "pid": stranger.player_id}
        cases = {
            # signed with another key
            "forged": tokens.issue(tokens.new_private_key(), owner.player_id or "", "owner",
                                   now + 10**7, owner.session_id or ""),
            # someone else's id under the owner's signature
            "tampered": _b64(json.dumps(other, separators=(",", ":"), sort_keys=True).encode())
            + "."
            + sig_b64,
            # a longer validity under the owner's signature
            "extended": _b64(
                json.dumps(
                    {**payload, "exp": now + 10**12}, separators=(",", ":"), sort_keys=True
                ).encode()
            )
            + "."
            + sig_b64,
            "unsigned": payload_b64 + ".",
            "sig_only": "." + sig_b64,
            "truncated": good[:-3],
            "garbage": "x" * 300,
            "empty": "",
            "non_ascii": "ü.ü",
            "sha256_not_hmac": payload_b64
            + "."
            + _b64(hashlib.sha256(base64.urlsafe_b64decode(payload_b64 + "==")).digest()),
        }
        expired = tokens.issue(signing_key, owner.player_id or "", "owner", now - 1,
                               owner.session_id or "")
        outcome: dict[str, str] = {}
        async with httpx.AsyncClient(base_url=url) as http:
            for name, tok in [*cases.items(), ("expired", expired)]:
                want = "auth/expired_token" if name == "expired" else "auth/invalid_token"
                first, close = await _ws_first(url, tok)
                assert first["type"] == "rejected" and first["code"] == want, (name, first)
                assert close == 4401, (name, close)
                r = await http.get(
                    "/api/tables", headers={b"Authorization": f"Bearer {tok}".strip().encode()}
                )
                assert r.status_code == 401 and r.json()["code"] == want, (name, r.text)
                outcome[name] = want
        # the genuine token still works (the refusals were about the tokens, not the server)
        first, _ = await _ws_first(url, good)
        assert first["type"] == "welcome" and first["player_id"] == owner.player_id

        # other seats: the stranger's valid token has no seat at the owner's table
        t = await retry(owner.create_table, "duel", 2, {"rounds": 1})
        await retry(owner.add_bot, t["table_id"])
        gid = await retry(owner.start, t["table_id"])
        mine = await owner.watch(gid)
        assert mine.seat == 0
        theirs = await stranger.watch(gid)
        assert theirs.seat is None and theirs.view is not None and theirs.view["seat"] is None
        refusals = []
        for msg in (
            {
                "type": "act",
                "cmd_id": "auth-1",
                "game_id": gid,
                "expected_seq": None,
                "action": {"type": "call", "stake": 1},
            },
            {
                "type": "commit",
                "cmd_id": "auth-2",
                "game_id": gid,
                "round_id": "entropy",
                "slot": "s0",
                "commitment": "0" * 64,
                "v": 2,
                "sealed": "A" * 64,
            },
            {
                "type": "act",
                "cmd_id": "auth-3",
                "game_id": gid,
                "seat": 0,
                "action": {"type": "call", "stake": 1},
            },
        ):
            reply = await stranger._command(msg)
            refusals.append(reply.get("code"))
        assert refusals == ["seat/not_seated", "seat/not_seated", "message/malformed"]
        outcome["other_seat"] = "seat/not_seated"
        report("auth", {"refused": outcome, "tokens_tried": len(cases) + 1})
    finally:
        await owner.close()
        await stranger.close()
