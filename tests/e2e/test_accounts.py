"""Accounts and sessions through the whole system (issue #19): the WebSocket without a token
in its URL, Origin, revoked sessions' sockets closed, refresh rotation and theft detection,
guest upgrade and a second device, passkeys, the admin role, export and deletion."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from websockets.typing import Subprotocol

from clients.sdk import ApiError, Client
from services.supervisor import Supervisor
from shared.runtime.valkey import free_port
from tests.e2e.conftest import OUT, with_db
from tests.support.passkey import SoftPasskey

pytestmark = pytest.mark.e2e
ACCOUNTS_DB = 9
ADMIN = "warden-e2e"


@pytest.fixture(scope="module")
def hall(redis_url: str) -> Iterator[Supervisor]:
    # the sweep is slow here: a revoked socket must close from the pub/sub message
    sup = Supervisor(redis_url=with_db(redis_url, ACCOUNTS_DB), port=free_port(),
                     log_dir=OUT / "logs" / "accounts",
                     env_extra={"EMPIRE_ADMINS": ADMIN, "EMPIRE_REVOCATION_SWEEP_S": "60"})
    sup.start(180.0)  # a loaded machine starts seven processes slowly
    yield sup
    sup.stop()


def ws_url(hall: Supervisor) -> str:
    return hall.url.replace("http", "ws", 1) + "/ws"


async def first_and_close(ws: Any) -> tuple[dict[str, Any], int | None]:
    first = json.loads(await asyncio.wait_for(ws.recv(), 10))
    code = None
    if first.get("type") == "rejected":
        try:
            await asyncio.wait_for(ws.recv(), 10)
        except websockets.ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd else None
    return first, code


async def test_socket_authenticates_by_first_frame_or_subprotocol(hall: Supervisor) -> None:
    async with Client(hall.url) as c:
        me = await c.sign_in("frame-user")
        async with websockets.connect(ws_url(hall)) as ws:
            await ws.send(json.dumps({"type": "auth", "token": me["token"]}))
            hello = json.loads(await ws.recv())
            assert hello["type"] == "welcome" and hello["player_id"] == me["player_id"]
        offer = [Subprotocol("empire.v1"), Subprotocol("empire.token." + me["token"])]
        async with websockets.connect(ws_url(hall), subprotocols=offer) as ws:
            assert ws.subprotocol == "empire.v1"  # the token is never echoed
            assert json.loads(await ws.recv())["type"] == "welcome"
        async with websockets.connect(ws_url(hall)) as ws:  # anything else first: refused
            await ws.send(json.dumps({"type": "ping"}))
            first, code = await first_and_close(ws)
            assert (first["code"], code) == ("auth/invalid_token", 4401)
        async with websockets.connect(ws_url(hall)) as ws:
            await ws.send(json.dumps({"type": "auth", "token": me["token"][:-3] + "AAA"}))
            first, code = await first_and_close(ws)
            assert (first["code"], code) == ("auth/invalid_token", 4401)


async def test_wrong_origin_is_refused_with_a_typed_close(hall: Supervisor) -> None:
    async with Client(hall.url) as c:
        me = await c.sign_in("origin-user")
        auth = json.dumps({"type": "auth", "token": me["token"]})
        async with websockets.connect(ws_url(hall), origin="http://evil.example") as ws:
            first, code = await first_and_close(ws)  # refused before any frame is read
            assert (first["type"], first["code"], code) == ("rejected", "auth/bad_origin", 4403)
        same = hall.url  # the page's own origin (Host matches)
        async with websockets.connect(ws_url(hall), origin=same) as ws:  # type: ignore[arg-type]
            await ws.send(auth)
            assert json.loads(await ws.recv())["type"] == "welcome"


async def test_revoked_sessions_socket_closes_within_seconds(hall: Supervisor) -> None:
    async with Client(hall.url) as laptop, Client(hall.url) as phone:
        await laptop.sign_in("revoke-me")
        await laptop.set_password("revoke-me password")
        await phone.sign_in_password("revoke-me", "revoke-me password")
        assert phone.player_id == laptop.player_id
        ws = await websockets.connect(ws_url(hall))
        await ws.send(json.dumps({"type": "auth", "token": laptop.token}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        listed = await phone.sessions()
        assert len(listed) == 2
        await phone.revoke_session(laptop.session_id or "")
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)  # "within seconds"; the sweep is at 60 s
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        assert closed.value.rcvd.reason == "auth/revoked_session"
        with pytest.raises(ApiError) as refused:
            await laptop._call_once("GET", "/api/tables", None, True)
        assert refused.value.code == "auth/revoked_session"
        with pytest.raises(ApiError) as spent:
            await laptop.refresh()
        assert spent.value.code == "auth/refresh_invalid"
        assert len(await phone.sessions()) == 1


async def test_refresh_rotates_and_a_replayed_token_revokes_the_session(
        hall: Supervisor) -> None:
    async with httpx.AsyncClient(base_url=hall.url) as http:
        g = (await http.post("/api/players", json={"name": "rotator"})).json()
        r1 = (await http.post("/api/session/refresh",
                              json={"refresh_token": g["refresh_token"]})).json()
        assert r1["ok"] and r1["refresh_token"] != g["refresh_token"]
        replay = await http.post("/api/session/refresh",
                                 json={"refresh_token": g["refresh_token"]})
        assert (replay.status_code, replay.json()["code"]) == (401, "auth/refresh_reused")
        after = await http.get("/api/tables",
                               headers={"Authorization": "Bearer " + r1["token"]})
        assert (after.status_code, after.json()["code"]) == (401, "auth/revoked_session")
        forged = await http.post("/api/session/refresh", json={"refresh_token": "x.y",
                                                               "player_id": "p-1"})
        assert forged.status_code == 400  # a field the server sets: refused, not used


async def test_guest_upgrade_reaches_the_same_player_and_its_running_game(
        hall: Supervisor) -> None:
    key = SoftPasskey(origin=f"http://localhost:{hall.port}")
    async with Client(hall.url) as guest:
        await guest.sign_in("upgrader")
        t = await guest.create_table("duel", seats=2, options={"rounds": 2})
        await guest.add_bot(t["table_id"])
        gid = await guest.start(t["table_id"])
        await guest.set_password("upgrader password")
        await guest.passkey_register(key.register, label="soft")
        me = await guest.me()
        assert me["account"] and me["password"] and len(me["passkeys"]) == 1
    async with Client(hall.url) as other_device:
        await other_device.sign_in_passkey(key.sign_in)
        assert other_device.player_id == me["player_id"]
        session = await other_device.watch(gid)
        assert session.seat == 0  # seated in the running game, from another device
    async with Client(hall.url) as third:
        await third.sign_in_password("UPGRADER", "upgrader password")
        assert third.player_id == me["player_id"]
        with pytest.raises(ApiError) as wrong:
            await third.sign_in_password("upgrader", "not the password")
        assert wrong.value.code == "auth/bad_credentials"


async def test_admin_ends_a_game_suspends_and_everything_is_audited(hall: Supervisor) -> None:
    async with Client(hall.url) as admin, Client(hall.url) as player:
        await admin.sign_in(ADMIN)
        with pytest.raises(ApiError) as guest_admin:  # the name alone is no role
            await admin.admin_audit()
        assert guest_admin.value.code == "auth/forbidden"
        await admin.set_password("warden password")
        await player.sign_in("suspect")
        await player.set_password("suspect password")
        t = await player.create_table("duel", seats=2, options={"rounds": 3})
        await player.add_bot(t["table_id"])
        gid = await player.start(t["table_id"])
        game = await player.watch(gid)
        await admin.admin_end_game(gid, "abusive chat")
        await game.wait_until(lambda: game.ended, timeout=30)
        for _ in range(100):
            rec = await player.record(gid)
            if any(e.get("type") == "seed_revealed" for e in rec["record"]):
                break
            await asyncio.sleep(0.1)
        ended = [e for e in rec["record"] if e["type"] == "game_ended"]
        assert ended and ended[0]["outcome"]["status"] == "aborted"
        assert ended[0]["outcome"]["reason"] == "abusive chat"
        assert (await player.verify_game(gid)).ok
        t2 = await player.create_table("duel", seats=2)
        await admin.admin_close_table(t2["table_id"], "spam")
        assert (await player.get_table(t2["table_id"]))["status"] == "closed"
        await admin.admin_suspend(player.player_id or "", "cheating")
        with pytest.raises(ApiError) as revoked:
            await player.list_tables()
        assert revoked.value.code in ("auth/revoked_session", "auth/refresh_invalid")
        with pytest.raises(ApiError) as suspended:
            await player.sign_in_password("suspect", "suspect password")
        assert suspended.value.code == "auth/suspended"
        audit = await admin.admin_audit()
        assert [e["action"] for e in audit[:3]] == ["suspend", "close_table", "end_game"]
        assert all(e["admin"] == admin.player_id for e in audit[:3])


async def test_export_and_delete_keep_finished_games_verifiable(hall: Supervisor) -> None:
    async with Client(hall.url) as c:
        await c.sign_in("leaver")
        await c.set_password("leaver password")
        t = await c.create_table("duel", seats=2, options={"rounds": 2})
        await c.add_bot(t["table_id"])
        gid = await c.start(t["table_id"])
        from clients.sdk.bot_player import play_seat
        await asyncio.wait_for(play_seat(c, gid), 120)
        data = await c.export_data()
        assert data["profile"]["player_id"] == c.player_id and data["sessions"]
        assert "ratings" in data and "history" in data and "$argon2" not in json.dumps(data)
        pid = c.player_id
        await c.delete_account("leaver")
        for _ in range(100):
            rec = await c._call_once("GET", f"/api/matches/{gid}/record", None, False)
            if any(e.get("type") == "seed_revealed" for e in rec["record"]):
                break
            await asyncio.sleep(0.1)
        seats = rec["players"]
        assert seats[0] == {**seats[0], "player_id": "deleted", "name": "deleted player"}
        assert all(p["player_id"] != pid for p in seats)
        assert (await c.verify_game(gid)).ok
    async with Client(hall.url) as again:
        with pytest.raises(ApiError) as gone:
            await again.sign_in_password("leaver", "leaver password")
        assert gone.value.code == "auth/bad_credentials"
        fresh = await again.sign_in("leaver")  # the name is free
        assert fresh["name"] == "leaver" and fresh["player_id"] != pid
