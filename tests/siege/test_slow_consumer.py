"""Slow consumers never stall others. A raw WebSocket client with a tiny receive buffer
(SO_RCVBUF) completes the handshake, watches a live game (and floods ``watch``, each answered
with the latest view and the whole record) and then never reads again, while a normal player
plays a whole game on the same gateway. The normal player must keep getting frames and
finish; the stalled connection must be closed with 4008 ("slow consumer"): by the send
timeout (EMPIRE_WS_SEND_TIMEOUT_S) when its socket blocks, or by its outbound queue bound
(EMPIRE_WS_QUEUE_FRAMES / EMPIRE_WS_QUEUE_BYTES) when frames pile up faster.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import websockets

from clients.sdk import Client, GameSession
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from tests.siege.conftest import extra_gateways, metric, report
from tests.siege.rawws import CLOSE, Closed, RawWs, close_code
from tests.support.wsauth import offer, ws_url

pytestmark = [pytest.mark.siege, pytest.mark.timeout(300)]

SLOW = "empire_ws_slow_consumers_total"
DAY_MS = 86_400_000


def _stall(url: str, token: str, live: str, finished: str | None, watches: int) -> RawWs:
    raw = RawWs(url, token, rcvbuf=2048).connect()
    hello = json.loads(raw.recv_text())
    assert hello["type"] == "welcome", hello
    raw.send(json.dumps({"type": "watch", "game_id": live}))
    for _ in range(watches):  # each one: the latest view and the whole record
        raw.send(json.dumps({"type": "watch", "game_id": finished or live}))
    return raw  # and never read again


async def _discard(ws: websockets.ClientConnection) -> None:
    with contextlib.suppress(websockets.ConnectionClosed):
        async for _ in ws:
            pass


def _closed_after_metric(url: str, raw: RawWs, before: float,
                         timeout: float) -> tuple[int | None, str, int, float]:
    """Wait until the gateway counts a slow consumer, then read the stalled socket to its
    close frame: (code, reason, frames read first, seconds waited)."""
    t0 = time.monotonic()
    while metric(url, SLOW) <= before:
        if time.monotonic() - t0 > timeout:
            return None, "never closed", 0, time.monotonic() - t0
        time.sleep(0.1)
    waited = time.monotonic() - t0
    code, reason, frames = raw.drain_until_close(20)
    return code, reason, frames, waited


async def test_a_stalled_reader_never_stalls_other_players(siege: Supervisor) -> None:
    url = siege.url
    async with Client(url, capture=True) as a, Client(url) as s:
        await a.sign_in("siege-player")
        await s.sign_in("siege-staller")
        warm = await a.create_table("duel", 2, {"rounds": 10})  # a finished game to replay
        await a.add_bot(warm["table_id"])
        done = await a.start(warm["table_id"])
        await asyncio.wait_for(play_seat(a, done), 60)
        t = await a.create_table("duel", 2, {"rounds": 4})
        await a.add_bot(t["table_id"])
        gid = await a.start(t["table_id"])
        await asyncio.sleep(0.5)  # the game's first entries exist
        before = metric(url, SLOW)
        raw = await asyncio.to_thread(_stall, url, s.token or "", gid, done, 150)
        closer = asyncio.create_task(asyncio.to_thread(_closed_after_metric, url, raw, before,
                                                       45.0))
        await asyncio.sleep(2.0)  # the replays fill the stalled socket's buffers
        assert a.captured is not None
        a.captured.clear()
        t0 = time.monotonic()
        ended = False
        try:
            session = await asyncio.wait_for(play_seat(a, gid), 60)
            ended = session.ended
        except TimeoutError:
            pass
        play_s = time.monotonic() - t0
        frames = len(a.captured or [])
        code, reason, stalled_frames, waited = await closer
        raw.close()
        report("slow_consumer", {"normal_player_frames": frames, "game_ended": ended,
                                 "play_s": round(play_s, 1), "stalled_close_code": code,
                                 "stalled_close_reason": reason,
                                 "stalled_frames_buffered": stalled_frames,
                                 "closed_after_s": round(waited, 1)})
        assert ended, f"the normal player stalled after {frames} frames"
        assert code == 4008, (code, reason)
        # a reading client's replay of the finished game is paged, whole and in order
        async with Client(url) as r:
            r.token = s.token
            await r.connect()
            replay = await r.watch(done)
            want = (await r.record(done))["record"]
            for _ in range(100):
                if len(replay.record) >= len(want):
                    break
                await asyncio.sleep(0.05)
            assert replay.record == [{k: v for k, v in e.items() if k != "id"} for e in want]
            assert replay.record_id == want[-1]["id"] and len(want) > 64  # several pages


@pytest.mark.full
@pytest.mark.parametrize("bound", ["frames", "bytes"])
async def test_the_outbound_queue_bound_closes_a_stalled_connection(
        siege: Supervisor, bound: str) -> None:
    """A player's second connection stops reading; its first floods refused acts, whose
    refusals reach every connection of the player through the fan-out. The stalled one's
    queue passes its bound (256 frames, or 64 KiB) long before the (here: one minute) send
    timeout. After the close frame the server waits EMPIRE_WS_CLOSE_GRACE_S (2 s here) for
    the client's answer, then cuts the socket."""
    env = {"EMPIRE_WS_SEND_TIMEOUT_S": "60", "EMPIRE_WS_CLOSE_GRACE_S": "2",
           **({"EMPIRE_WS_QUEUE_FRAMES": "256"} if bound == "frames" else
              {"EMPIRE_WS_QUEUE_FRAMES": "100000", "EMPIRE_WS_QUEUE_BYTES": "65536"})}
    with extra_gateways(siege, env) as (gw,):
        async with Client(gw) as p:
            await p.sign_in("siege-two-sockets")
            warm = await p.create_table("duel", 2, {"rounds": 10})  # a finished game to replay
            await p.add_bot(warm["table_id"])
            done = await p.start(warm["table_id"])
            await asyncio.wait_for(play_seat(p, done), 60)
            t = await p.create_table("duel", 2, {"rounds": 3}, turn_timeout_ms=DAY_MS,
                                     round_timeout_ms=DAY_MS)
            await p.add_bot(t["table_id"])
            gid = await p.start(t["table_id"])
            await asyncio.sleep(0.5)
            before = metric(gw, SLOW)
            raw = await asyncio.to_thread(_stall, gw, p.token or "", gid, done, 150)
            closer = asyncio.create_task(asyncio.to_thread(_closed_after_metric, gw, raw,
                                                           before, 40.0))
            flood = await websockets.connect(ws_url(gw), subprotocols=offer(p.token or ""),
                                             max_size=2**24)
            assert json.loads(await flood.recv())["type"] == "welcome"
            drain = asyncio.create_task(_discard(flood))
            t0 = time.monotonic()
            sent = 0
            while not closer.done() and time.monotonic() - t0 < 30:
                for _ in range(50):  # stale acts: each refused later, to every connection
                    await flood.send(json.dumps({"type": "act", "cmd_id": f"f{sent}",
                                                 "game_id": gid, "expected_seq": 0,
                                                 "action": {"type": "call", "stake": 1}}))
                    sent += 1
                await asyncio.sleep(1.0)
            code, reason, _, waited = await closer
            t1 = time.monotonic()  # the close frame is read; it is not answered
            while code is not None and raw.is_open() and time.monotonic() - t1 < 15:
                await asyncio.sleep(0.1)
            cut_s = time.monotonic() - t1
            drain.cancel()
            await flood.close()
            raw.close()
            report(f"slow_consumer_queue_{bound}", {
                "acts_sent": sent, "stalled_close_code": code, "stalled_close_reason": reason,
                "closed_after_s": round(waited, 1), "cut_after_close_frame_s": round(cut_s, 1)})
            assert code == 4008 and "queue" in reason, (code, reason)
            assert cut_s < 2 + 3, cut_s


def _contiguous(seqs: list[int]) -> bool:
    return all(b == a + 1 for a, b in itertools.pairwise(seqs))


def _read_to_close(raw: RawWs, game_id: str) -> tuple[int | None, list[dict[str, Any]],
                                                     list[tuple[str, dict[str, Any]]]]:
    """What a stalled socket had been sent before its close: (close code, the game's views
    in order, its record entries (id, entry) in order)."""
    seqs: list[dict[str, Any]] = []
    records: list[tuple[str, dict[str, Any]]] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            op, data = raw.recv(max(0.01, deadline - time.monotonic()))
        except (Closed, TimeoutError, OSError):
            return None, seqs, records
        if op == CLOSE:
            return close_code(data), seqs, records
        msg = json.loads(data)
        if msg.get("game_id") != game_id:
            continue
        if msg.get("type") == "view":
            seqs.append(msg)
        elif msg.get("type") == "record":
            records.append((msg["id"], msg["entry"]))
    return None, seqs, records


@pytest.mark.full
async def test_a_slow_consumer_closed_4008_resumes_from_its_last_seq(
        siege: Supervisor) -> None:
    """A player's watching socket stops reading mid-game (replays of a finished game fill
    it); the game moves on a few views meanwhile; a third connection floods stale acts, whose
    refusals reach every connection of the player, so the stalled socket's queue passes its
    256-frame bound and it is closed 4008 (its queued frames dropped). The player then
    resumes that watch (the SDK) from the last seq and record id the socket had received: the
    views it missed arrive from the next seq on, none missed or doubled (contiguous, no gap
    snapshot), and with what the socket had, the record whole and in order, to the game's
    end. (A resume more than the 16 kept view snapshots behind gets one complete snapshot
    flagged ``gap`` instead; the record is resumed exactly either way.)"""
    # a long close grace: the stalled socket's buffered frames and its close frame are read
    # at leisure after the close (a cut socket's unread data is lost to a reset)
    env = {"EMPIRE_WS_SEND_TIMEOUT_S": "60", "EMPIRE_WS_CLOSE_GRACE_S": "60",
           "EMPIRE_WS_QUEUE_FRAMES": "256"}
    with extra_gateways(siege, env) as (gw,):
        async with Client(gw) as p, Client(gw) as w:
            await p.sign_in("siege-resumer")
            warm = await p.create_table("duel", 2, {"rounds": 10})  # a finished game to replay
            await p.add_bot(warm["table_id"])
            done = await p.start(warm["table_id"])
            await asyncio.wait_for(play_seat(p, done), 60)
            t = await p.create_table("duel", 2, {"rounds": 100}, turn_timeout_ms=DAY_MS,
                                     round_timeout_ms=DAY_MS)
            await p.add_bot(t["table_id"])
            gid = await p.start(t["table_id"])
            game = await p.watch(gid)

            async def play_views(n: int) -> None:
                """The player plays until the game has moved ``n`` views, then pauses."""
                pause = asyncio.Event()
                task = asyncio.create_task(play_seat(p, gid, stop=pause))
                try:
                    start = game.seq
                    await game.wait_until(lambda: game.seq >= start + n, 60)
                    pause.set()
                    await asyncio.wait_for(task, 60)
                finally:
                    task.cancel()

            player: asyncio.Task[Any] | None = None
            try:
                await play_views(2)
                before = metric(gw, SLOW)
                raw = await asyncio.to_thread(_stall, gw, p.token or "", gid, done, 150)
                await asyncio.sleep(2.0)  # the replays fill the stalled socket's buffers
                # the game moves on a few views while the socket is stalled (fewer than the
                # 16 view snapshots a seat's stream keeps), then waits for the player
                await play_views(6)
                flood = await websockets.connect(ws_url(gw), subprotocols=offer(p.token or ""),
                                                 max_size=2**24)
                assert json.loads(await flood.recv())["type"] == "welcome"
                drain = asyncio.create_task(_discard(flood))
                sent = 0
                try:
                    for _ in range(60):  # bounded: 3,000 stale acts at most
                        if metric(gw, SLOW) > before:
                            break
                        for _ in range(50):
                            await flood.send(json.dumps({
                                "type": "act", "cmd_id": f"f{sent}", "game_id": gid,
                                "expected_seq": 0, "action": {"type": "call", "stake": 1}}))
                            sent += 1
                        await asyncio.sleep(0.5)
                finally:
                    drain.cancel()
                    await flood.close()
                code, views, records = await asyncio.to_thread(_read_to_close, raw, gid)
                seqs = [v["seq"] for v in views]
                raw.close()
                assert code == 4008, (code, len(seqs), sent)
                assert seqs and records, (seqs, len(records))
                held = game.seq
                # the resume: the SDK's session holds what the closed socket had received
                session = GameSession(game_id=gid, client=w, view=views[-1], seq=seqs[-1],
                                      record=[e for _, e in records], record_id=records[-1][0])
                w.token = p.token
                await w.connect()
                w.games[gid] = session
                await w.watch(gid)
                player = asyncio.create_task(play_seat(p, gid))  # and on to the end
                await asyncio.wait_for(player, 120)
                await session.wait_until(lambda: session.ended, 60)
            finally:
                if player is not None:
                    player.cancel()
            # the record's last entry (the dealer's seed_revealed) follows the game's end
            for _ in range(300):  # bounded
                want = (await w.record(gid))["record"]
                if want and want[-1].get("type") == "seed_revealed":
                    break
                await asyncio.sleep(0.1)
            await session.wait_until(lambda: len(session.record) >= len(want), 30)
            report("slow_consumer_resume", {"acts_sent": sent, "close_code": code,
                                            "views_before_close": len(seqs),
                                            "resumed_after_seq": seqs[-1],
                                            "game_seq_at_resume": held,
                                            "views_after_resume": len(session.seen_seqs),
                                            "gaps": session.gaps})
            assert _contiguous(seqs), seqs
            assert session.gaps == 0, session.gaps
            assert session.seen_seqs and session.seen_seqs[0] == seqs[-1] + 1, (
                seqs[-1], session.seen_seqs[:3])
            assert _contiguous(session.seen_seqs), session.seen_seqs
            assert session.record == [{k: v for k, v in e.items() if k != "id"}
                                      for e in want]


@contextlib.asynccontextmanager
async def _five_sockets_on_a_game(
        url: str, prefix: str) -> AsyncIterator[tuple[str, list[websockets.ClientConnection]]]:
    """A host's 30-round duel against a bot, and five welcomed sockets of another account
    (``{prefix}-fan``) that watch nothing yet; the sockets close on exit."""
    async with Client(url) as host, Client(url) as fan:
        await host.sign_in(f"{prefix}-host")
        await fan.sign_in(f"{prefix}-fan")
        t = await host.create_table("duel", 2, {"rounds": 30})
        await host.add_bot(t["table_id"])
        gid = await host.start(t["table_id"])
        socks = [await websockets.connect(ws_url(url), subprotocols=offer(fan.token or ""))
                 for _ in range(5)]
        try:
            for ws in socks:
                assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "welcome"
            yield gid, socks
        finally:
            for ws in socks:
                await ws.close()


async def test_one_account_watches_one_game_from_at_most_four_sockets(siege: Supervisor) -> None:
    """Sockets of one account on one game add only fan-out work: the fifth ``watch`` of a game
    by one player (EMPIRE_WS_WATCHES_PER_GAME, 4) is refused ``message/rate_limited`` and its
    socket stays open; another player still watches; a socket that stops watching frees its
    place."""
    url = siege.url
    async with Client(url) as other, _five_sockets_on_a_game(url, "watch-cap") as (gid, socks):
        await other.sign_in("watch-cap-other")

        async def first_answer(ws: websockets.ClientConnection) -> dict[str, Any]:
            await ws.send(json.dumps({"type": "watch", "game_id": gid}))
            return dict(json.loads(await asyncio.wait_for(ws.recv(), 10)))

        for ws in socks[:4]:
            assert (await first_answer(ws))["type"] in ("view", "record")
        refused = await first_answer(socks[4])
        assert refused["type"] == "rejected", refused
        assert refused["code"] == "message/rate_limited", refused
        await socks[4].send(json.dumps({"type": "ping"}))  # still open
        while (f := json.loads(await asyncio.wait_for(socks[4].recv(), 10)))["type"] != "pong":
            assert f["type"] != "view", f  # nothing of the game came to it
        session = await other.watch(gid)  # another account is not held back
        assert session.view is not None
        await socks[0].send(json.dumps({"type": "unwatch", "game_id": gid}))
        await asyncio.sleep(0.2)
        for _ in range(50):  # the freed place is taken (bounded)
            answer = await first_answer(socks[4])
            if answer["type"] != "rejected":
                break
            await asyncio.sleep(0.1)
        assert answer["type"] in ("view", "record"), answer


async def test_refused_watches_are_not_flood_strikes(siege: Supervisor) -> None:
    """Only the socket's own rate counts as flooding: 300 ``watch`` frames refused by the
    per-player watch cap (``message/rate_limited``, like a rate refusal) from a client that
    waits for each answer do not close the socket 1008 (were each refusal a strike, the 201st
    would close it); the socket still answers a ping. A real flood still
    closes 1008 (test below)."""
    async with _five_sockets_on_a_game(siege.url, "strike") as (gid, socks):
        for ws in socks[:4]:  # the player's four places on this game are taken
            await ws.send(json.dumps({"type": "watch", "game_id": gid}))
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert first["type"] in ("view", "record"), first
        codes: dict[str, int] = {}
        for _ in range(300):
            await socks[4].send(json.dumps({"type": "watch", "game_id": gid}))
            answer = json.loads(await asyncio.wait_for(socks[4].recv(), 10))
            assert answer["type"] == "rejected", answer
            codes[answer["code"]] = codes.get(answer["code"], 0) + 1
        assert codes == {"message/rate_limited": 300}, codes
        for _ in range(100):  # the last watches may have emptied its bucket: paced
            await socks[4].send(json.dumps({"type": "ping"}))
            answer = json.loads(await asyncio.wait_for(socks[4].recv(), 10))
            if answer["type"] == "pong":
                break
            assert answer.get("code") == "message/rate_limited", answer
            await asyncio.sleep(0.05)
        assert answer["type"] == "pong" and socks[4].close_code is None, answer


async def test_a_flooding_socket_is_paced_then_closed_1008_and_the_player_plays_on(
        siege: Supervisor) -> None:
    """A socket that keeps sending over its rate is paced (after a refusal its next frame is
    read once a token is back) and, past its burst of refusals (200) without calming down,
    closed 1008; the player's other socket is not held back."""
    url = siege.url
    async with Client(url) as c:
        await c.sign_in("flooder")
        flood = await websockets.connect(ws_url(url), subprotocols=offer(c.token or ""))
        calm = await websockets.connect(ws_url(url), subprotocols=offer(c.token or ""))
        try:
            for ws in (flood, calm):
                assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "welcome"

            async def send_all() -> None:
                with contextlib.suppress(websockets.ConnectionClosed):
                    for _ in range(2_000):
                        await flood.send('{"type":"ping"}')

            sender = asyncio.create_task(send_all())
            answers: dict[str, int] = {}
            with pytest.raises(websockets.ConnectionClosed):
                while True:
                    f = json.loads(await asyncio.wait_for(flood.recv(), 30))
                    key = f.get("code") or f["type"]
                    answers[key] = answers.get(key, 0) + 1
            await asyncio.wait_for(sender, 30)
            assert flood.close_code == 1008, (flood.close_code, answers)
            # its burst answered, then paced: about one pong per refusal, never all 2,000
            assert 150 <= answers.get("message/rate_limited", 0) <= 201, answers
            assert answers["pong"] >= 250 and sum(answers.values()) < 1_000, answers
            await calm.send('{"type":"ping"}')
            assert json.loads(await asyncio.wait_for(calm.recv(), 10))["type"] == "pong"
        finally:
            for ws in (flood, calm):
                await ws.close()
