"""Accounts and sessions through the whole system, on its own Valkey with the
shipped ACLs (every service its own user): the WebSocket without a token in its URL (one
there is refused and never logged), Origin, revoked sessions' sockets closed, refresh
rotation and theft detection, guest upgrade and a second device, passkeys, the admin role,
export and deletion (a deleted player anonymized on every surface a client can read)."""

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
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from shared.runtime.archive import archive_key
from shared.runtime.valkey import free_port
from tests.e2e.conftest import OUT
from tests.support.passkey import SoftPasskey

pytestmark = pytest.mark.e2e
ADMIN = "warden-e2e"
LOGS = OUT / "logs" / "accounts"


@pytest.fixture(scope="module")
def hall() -> Iterator[Supervisor]:
    # the sweep is slow here: a revoked socket must close from the pub/sub message; its own
    # Valkey with the shipped ACLs (a deletion touches the scoring service's keys too)
    sup = Supervisor(port=free_port(), log_dir=LOGS,
                     env_extra={"EMPIRE_ADMINS": ADMIN, "EMPIRE_REVOCATION_SWEEP_S": "60",
                                "EMPIRE_ARCHIVE_AFTER_S": "0"})
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
        for _ in range(300):  # (a loaded machine: the dealer's reveal may take seconds)
            rec = await player.record(gid)
            if any(e.get("type") == "seed_revealed" for e in rec["record"]):
                break
            await asyncio.sleep(0.1)
        ended = [e for e in rec["record"] if e["type"] == "game_ended"]
        assert ended and ended[0]["outcome"]["status"] == "aborted"
        assert ended[0]["outcome"]["reason"] == "abusive chat"
        v = await player.verify_game(gid, wait=30)
        assert v.ok, v.problems
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


async def test_a_token_in_the_url_is_refused_and_never_logged(hall: Supervisor) -> None:
    async with Client(hall.url) as c:
        me = await c.sign_in("url-token")
        token = me["token"]
        offer = [Subprotocol("empire.v1"), Subprotocol("empire.token." + token)]
        for subprotocols in (None, offer):  # refused even beside a valid offer
            async with websockets.connect(ws_url(hall) + "?token=" + token,
                                          subprotocols=subprotocols) as ws:
                first, code = await first_and_close(ws)
            assert (first["type"], first["code"], code) == ("rejected", "auth/invalid_token",
                                                            4401)
            assert token not in json.dumps(first)
        async with websockets.connect(ws_url(hall)) as ws:  # the token itself is good
            await ws.send(json.dumps({"type": "auth", "token": token}))
            assert json.loads(await ws.recv())["type"] == "welcome"
    lines = [line for path in sorted(LOGS.glob("gateway-*.log"))
             for line in path.read_text(errors="replace").splitlines()]
    assert any("ws_token_in_url_refused" in line for line in lines)  # the refusal is logged
    payload, _, signature = token.partition(".")
    assert not [line for line in lines if payload in line or signature in line]


def leaks(doc: Any, *secrets: str) -> list[str]:
    """Which of ``secrets`` (a deleted player's id and name) appear anywhere in ``doc``."""
    text = json.dumps(doc)
    return [s for s in secrets if s in text]


async def test_a_deleted_player_is_anonymized_on_every_surface(hall: Supervisor) -> None:
    """Two players finish a game with chat; one deletes the account once the game is rated
    and archived. Then every surface shows the seat as "deleted player" (the HTTP match,
    record, audit bundle and result, read from the archive; the table; a fresh WebSocket
    watch's replayed record and log sentences; chat history over the WebSocket and HTTP),
    the leaderboard and the history drop the player, and the game still verifies."""
    import redis

    async with Client(hall.url) as leaver, Client(hall.url) as witness:
        await leaver.sign_in("erasee")
        await leaver.set_password("erasee password")
        await witness.sign_in("witness")
        pid, name = leaver.player_id or "", leaver.name or ""
        assert name == "erasee"
        t = await leaver.create_table("duel", seats=2, options={"rounds": 2})
        await witness.join(t["table_id"])
        gid = await leaver.start(t["table_id"])
        mine = await leaver.chat_join(game_id=gid)
        theirs = await witness.chat_join(game_id=gid)
        await leaver.chat("good game all", game_id=gid)
        await theirs.wait_for(lambda: "good game all" in theirs.texts(), 20)
        assert mine.channel == "seats"
        await asyncio.wait_for(asyncio.gather(play_seat(leaver, gid), play_seat(witness, gid)),
                               180)
        with redis.Redis.from_url(hall.redis_url or "") as admin:
            for _ in range(300):  # rated and archived (EMPIRE_ARCHIVE_AFTER_S=0)
                board = await witness.leaderboard("duel")
                if admin.exists(archive_key(gid)) and pid in leaks(board, pid):
                    break
                await asyncio.sleep(0.1)
            assert admin.exists(archive_key(gid)), "the game was not archived"
        # before the deletion the player is on every surface (so the checks below can fail)
        assert leaks(board, pid, name) == [pid, name]
        hist = await witness._call("GET", f"/api/players/{pid}/history", auth=False)
        assert gid in hist["games"]
        assert leaks(await witness.record(gid), pid, name) == [pid, name]
        seat = next(i for i, p in enumerate((await witness.match(gid))["players"])
                    if p["player_id"] == pid)

        await leaver.delete_account("erasee")

        anon = {"player_id": "deleted", "name": "deleted player"}
        match = await witness.match(gid)
        assert match["players"][seat] == {**match["players"][seat], **anon}
        assert match["players"][1 - seat]["player_id"] == witness.player_id
        rec, audit = await witness.record(gid), await witness.audit(gid)
        for doc in (match, rec, audit, await witness.result(gid)):
            assert leaks(doc, pid, name) == [], doc.keys()
        created = next(e for e in rec["record"] if e["type"] == "game_created")
        assert created["players"] == rec["players"]  # both copies anonymized alike
        assert rec["players"][seat] == {**rec["players"][seat], **anon}
        assert (await witness.verify_game(gid)).ok  # seats bind, not names
        board = await witness.leaderboard("duel")
        assert leaks(board, pid, name) == []
        assert any(e["player_id"] == witness.player_id for e in board)
        hist = await witness._call("GET", f"/api/players/{pid}/history", auth=False)
        assert hist["games"] == []
        assert gid in (await witness._call("GET", f"/api/players/{witness.player_id}/history",
                                           auth=False))["games"]
        table = await witness.get_table(t["table_id"])
        assert leaks(table, pid, name) == [] and table["players"][seat]["name"] == "deleted player"
        http_chat = await witness._call("GET", f"/api/matches/{gid}/chat")
        said = [m for m in http_chat["chat"]["seats"] if m["text"] == "good game all"]
        assert said and said[0] == {**said[0], **anon}
        assert leaks(http_chat, pid, name) == []

        async with Client(hall.url, token=witness.token, capture=True) as fresh:
            replay = await fresh.watch(gid)
            await replay.wait_until(lambda: any(e.get("type") == "seed_revealed"
                                                for e in replay.record), 30)
            watched = next(e for e in replay.record if e["type"] == "game_created")
            # the WebSocket's replay and the HTTP record agree (the HTTP one carries its id)
            assert watched == {k: v for k, v in created.items() if k != "id"}
            history = await fresh.chat_join(game_id=gid)
            said = [m for m in history.messages if m["text"] == "good game all"]
            assert said and said[0] == {**said[0], **anon}
            assert fresh.captured is not None
            # record entries were replayed (the SDK watches at v3: in "records" frames)
            assert any('"record"' in f or '"records"' in f for f in fresh.captured)
            assert [f for f in fresh.captured if leaks(f, pid, name)] == []


async def test_a_session_plays_under_its_one_key_and_hands_it_on_signed(hall: Supervisor) -> None:
    """The SDK binds its key at sign-in; a second holder of the same access token cannot
    bring a key of its own; the session hands on to a new key under the current key's
    signature, and its acts then verify under the new key only."""
    import redis

    from shared.protocol import keys

    admin = redis.Redis.from_url(hall.redis_url or "")
    async with Client(hall.url) as me, Client(hall.url) as holder:
        await me.sign_in("one-key")
        first = me.session_key.public
        registry = keys.lobby_session_keys(me.player_id or "")
        assert {k.decode() for k in admin.hkeys(registry)} == {first}  # bound at sign-in
        holder.token = me.token  # the same access token, another key
        with pytest.raises(ApiError) as refused:
            await holder.register_session_key()
        assert refused.value.code == "auth/bad_signature"
        await me.rotate_session_key()
        assert me.session_key.public != first
        assert {k.decode() for k in admin.hkeys(registry)} == {me.session_key.public}
        t = await me.create_table("duel", seats=2, options={"rounds": 1})
        await me.add_bot(t["table_id"])
        gid = await me.start(t["table_id"])
        await asyncio.wait_for(play_seat(me, gid), 120)
        v = await me.verify_game(gid, wait=30)
        assert v.ok, v.problems
        signed = {x["key"] for x in v.record["log"] if x["by"] == "seat"} | {
            e["key"] for e in v.record["record"] if e["type"] == "committed" and "key" in e}
        assert me.session_key.public in signed and first not in signed
    admin.close()
