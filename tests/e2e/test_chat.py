"""Table talk: chat per table and per game, through two gateway replicas of one
system running under the shipped Valkey ACLs (every service its own user, so a missing
permission shows up as a refusal here and in the ACL log).

Each refusal has its typed code: not at the table, kicked, silenced by an operator, a
spectator in the seats' channel, a seat in the spectators', a player of another game, a
replayed message id, too long, empty once control and bidi characters are gone, over the rate.
A spectator never receives the seats' channel, nor a seat the spectators'; a muted player's
messages never reach the player who muted it; a report lands in ``chat:reports`` with its
context; the finished game's archive holds its chat, and its record, audit bundle and the
verifier are the same as without chat. Bots never join a chat and play on.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from clients.sdk import ApiError, Client
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from shared.fairness.verify import verify
from shared.protocol import streams
from shared.runtime.archive import archive_key, unpack
from shared.runtime.valkey import free_port
from tests.siege.conftest import extra_gateways
from tests.support.node import NODE, WS_FLAGS

pytestmark = [pytest.mark.e2e, pytest.mark.full]

ENV = {"EMPIRE_CHAT_BURST": "5", "EMPIRE_CHAT_PER_S": "0.05", "EMPIRE_CHAT_MAX_CHARS": "40",
       "EMPIRE_ARCHIVE_AFTER_S": "0"}


@pytest.fixture(scope="module")
def hall() -> Iterator[tuple[Supervisor, str, str]]:
    """One system on its own Valkey with the shipped ACLs, and a second gateway."""
    sup = Supervisor(port=free_port(), log_dir=Path("test-output/logs/chat"), env_extra=ENV)
    sup.start(wait=180)
    try:
        with extra_gateways(sup, ENV) as (second,):
            yield sup, sup.url, second
    finally:
        sup.stop()


async def refused(code: str, call: Any) -> None:
    with pytest.raises(ApiError) as exc:
        await call
    assert exc.value.code == code, exc.value


def chat_frames(c: Client) -> list[dict[str, Any]]:
    assert c.captured is not None
    return [m for m in map(json.loads, c.captured) if m.get("type", "").startswith("chat")]


async def test_table_chat_across_two_gateways_and_every_refusal(
        hall: tuple[Supervisor, str, str]) -> None:
    sup, one, two = hall
    async with Client(one) as host, Client(two, capture=True) as guest, Client(two) as third, \
            Client(one) as outsider:
        for c, name in ((host, "talk-host"), (guest, "talk-guest"), (third, "talk-third"),
                        (outsider, "talk-out")):
            await c.sign_in(name)
        t = await host.create_table("duel", seats=3, options={"rounds": 1})
        tid = t["table_id"]
        await guest.join(tid)
        await third.join(tid)
        h_log = await host.chat_join(table_id=tid)
        g_log = await guest.chat_join(table_id=tid)  # on the other replica
        t_log = await third.chat_join(table_id=tid)
        assert h_log.channel == g_log.channel == "table"

        # delivered through both replicas; control and bidi characters gone, HTML as text
        await host.chat("hello \u202egnp.exe\u202c <b>all</b>\u200b\n!", table_id=tid)
        want = "hello gnp.exe <b>all</b> !"
        await g_log.wait_for(lambda: want in g_log.texts(), 20)
        await guest.chat("hi from replica two", table_id=tid)
        await h_log.wait_for(lambda: "hi from replica two" in h_log.texts(), 20)

        # refusals, each typed; nothing is posted
        await refused("chat/not_member", outsider.chat_join(table_id=tid))
        await refused("chat/not_member", outsider.chat("let me in", table_id=tid))
        await refused("chat/too_long", host.chat("x" * 41, table_id=tid))
        await refused("chat/empty", host.chat("\u202e\u2066 \u200b\n", table_id=tid))
        mid = await host.chat("once", table_id=tid)
        await refused("chat/duplicate", host.chat("once again", table_id=tid, cmd_id=mid))
        await refused("message/malformed", host.chat("wrong place", game_id=tid,
                                                     channel="table"))

        # mute: the host stops seeing the guest; the third still does; the guest is not told
        await host.chat_mute(guest.player_id or "")
        await refused("chat/bad_request", host.chat_mute(host.player_id or ""))
        await guest.chat("can you hear me", table_id=tid)
        await third.chat("after the mute", table_id=tid)
        await t_log.wait_for(lambda: "after the mute" in t_log.texts(), 20)
        await h_log.wait_for(lambda: "after the mute" in h_log.texts(), 20)
        assert "can you hear me" in t_log.texts()
        assert "can you hear me" not in h_log.texts()
        async with Client(two, token=host.token) as host_again:  # the history is filtered too
            again = await host_again.chat_join(table_id=tid)
            assert "can you hear me" not in again.texts()
            assert again.texts() == [want, "once", "after the mute"]  # none of the guest's

        # report: the operators' stream gets the message and its context
        bad = next(m for m in t_log.messages if m["text"] == "can you hear me")
        await third.chat_report(bad["id"], table_id=tid, reason="spam \u202e")
        await refused("chat/not_found", third.chat_report("1-1", table_id=tid))
        with redis.Redis.from_url(sup.redis_url or "") as admin:
            reports = [json.loads(f[b"d"]) for _, f in admin.xrange(streams.CHAT_REPORTS)]
            report = next(r for r in reports if r["message"]["id"] == bad["id"])
            assert report["reporter"] == third.player_id and report["reason"] == "spam"
            assert report["table_id"] == tid and report["message"]["player_id"] == \
                guest.player_id
            assert want in [m["text"] for m in report["context"]]
            # an operator silences the third player
            admin.set(streams.chat_silenced(third.player_id or ""), "test", ex=60)
        await refused("chat/muted", third.chat("silenced?", table_id=tid))

        # the host removes the guest: refused, and it stops receiving the table's chat
        await host._call("POST", f"/api/tables/{tid}/kick", {"target": guest.player_id})
        await refused("chat/kicked", guest.chat("still here?", table_id=tid))
        await refused("chat/kicked", guest.chat_join(table_id=tid))
        await host.chat("after the kick", table_id=tid)
        await t_log.wait_for(lambda: "after the kick" in t_log.texts(), 20)
        await asyncio.sleep(0.3)
        assert "after the kick" not in {f.get("text") for f in chat_frames(guest)}
        assert "hi from replica two" in {f.get("text") for f in chat_frames(guest)}

        # the per-player rate (burst 5, every replica): the outsider's own table
        t2 = await outsider.create_table("duel", seats=2, options={"rounds": 1})
        codes = []
        for i in range(8):
            try:
                await outsider.chat(f"flood {i}", table_id=t2["table_id"])
                codes.append("ok")
            except ApiError as exc:
                codes.append(exc.code)
        assert codes[:5] == ["ok"] * 5 and set(codes[5:]) == {"chat/rate_limited"}, codes


async def test_game_channels_are_secret_archived_and_outside_the_record(
        hall: tuple[Supervisor, str, str]) -> None:
    sup, one, two = hall
    async with Client(one, capture=True) as seat, Client(two, capture=True) as fan, \
            Client(one) as other:
        await seat.sign_in("talk-seat")
        await fan.sign_in("talk-fan")
        await other.sign_in("talk-other")
        t = await seat.create_table("duel", seats=2, options={"rounds": 1})
        tid = t["table_id"]
        await seat.add_bot(tid)
        await seat.chat_join(table_id=tid)
        await seat.chat("good luck, bot", table_id=tid)
        gid = await seat.start(tid)
        await refused("chat/closed", seat.chat("late", table_id=tid))
        # a player of another game
        t2 = await other.create_table("duel", seats=2, options={"rounds": 1})
        await other.add_bot(t2["table_id"])
        await other.start(t2["table_id"])

        await seat.watch(gid)
        s_log = await seat.chat_join(game_id=gid)
        f_log = await fan.chat_join(game_id=gid)  # on the other replica
        assert (s_log.channel, f_log.channel) == ("seats", "spectators")
        await seat.chat("seats only", game_id=gid)
        await fan.chat("rail only", game_id=gid)
        await refused("chat/wrong_channel", fan.chat("psst", game_id=gid, channel="seats"))
        await refused("chat/wrong_channel",
                      seat.chat("hello rail", game_id=gid, channel="spectators"))
        await refused("chat/wrong_channel",
                      other.chat("from elsewhere", game_id=gid, channel="seats"))
        await s_log.wait_for(lambda: "seats only" in s_log.texts(), 20)
        await f_log.wait_for(lambda: "rail only" in f_log.texts(), 20)

        # the seat's heuristic bot finishes the game with the lobby's bot (which never chats)
        await asyncio.wait_for(play_seat(seat, gid), 120)
        await seat.chat("gg", game_id=gid)  # after the end, still the seats' channel
        await s_log.wait_for(lambda: "gg" in s_log.texts(), 20)

        # secrecy on the wire: not one frame of the other channel, either way
        fan_texts = {m.get("text") for f in chat_frames(fan)
                     for m in [f, *f.get("messages", [])]}
        seat_texts = {m.get("text") for f in chat_frames(seat)
                      for m in [f, *f.get("messages", [])]}
        assert not fan_texts & {"seats only", "gg", "good luck, bot"}, fan_texts
        assert "rail only" not in seat_texts
        assert {f.get("channel") for f in chat_frames(fan)} <= {"spectators", None}

        # the archive holds the chat; the record, the audit bundle and verify do not see it
        with redis.Redis.from_url(sup.redis_url or "") as admin:
            for _ in range(300):
                blob = admin.get(archive_key(gid))
                if blob is not None:
                    break
                await asyncio.sleep(0.1)
            assert blob is not None, "the game was not archived"
            doc = unpack(blob)
            denied = [e for e in admin.acl_log(count=1000)
                      if e.get("username") in ("gateway", "adjudicator") and any(
                          k in str(e.get("object")) for k in ("chat", "lobby:table", "gw:"))]
        kept = {c: [m["text"] for m in doc["chat"][c]] for c in doc["chat"]}
        assert kept["table"] == ["good luck, bot"]
        assert "seats only" in kept["seats"] and "rail only" in kept["spectators"]
        assert doc["chat"]["seats"][0]["player_id"] == seat.player_id
        assert denied == [], denied[:3]
        audit = await seat.audit(gid)
        text = json.dumps([audit, doc["record"], doc["log"]])
        assert "seats only" not in text and "rail only" not in text and "chat" not in audit
        problems, _ = verify(audit)
        assert problems == []
        # served from the archive to whom may read each channel
        mine = (await seat._call("GET", f"/api/matches/{gid}/chat"))["chat"]
        theirs = (await fan._call("GET", f"/api/matches/{gid}/chat"))["chat"]
        assert set(mine) == {"table", "seats"} and set(theirs) == {"spectators"}
        assert [m["text"] for m in theirs["spectators"]] == ["rail only"]


NODE_SCRIPT = """
import { Client, ApiError } from "%(client)s";
const url = process.argv[1];
const a = new Client(url), b = new Client(url), c = new Client(url);
await a.signIn("js-talk-a"); await b.signIn("js-talk-b"); await c.signIn("js-talk-c");
const t = await a.createTable("duel", 2, { rounds: 1 });
await b.call("POST", `/api/tables/${t.table_id}/join`);
const la = await a.chatJoin({ tableId: t.table_id });
const lb = await b.chatJoin({ tableId: t.table_id });
const id = await a.chat("<i>from node</i>\\u202e", { tableId: t.table_id });
const deadline = Date.now() + 20000;
const got = () => lb.messages.some((m) => m.text === "<i>from node</i>");
while (!got() && Date.now() < deadline) await lb.wait(200);
const codes = [];
for (const call of [() => a.chat("again", { tableId: t.table_id, cmdId: id }),
                    () => c.chatJoin({ tableId: t.table_id }),
                    () => c.chat("me too", { tableId: t.table_id })]) {
  try { await call(); codes.push("ok"); }
  catch (e) { codes.push(e instanceof ApiError ? e.code : String(e)); }
}
const received = lb.messages.map((m) => m.text);
console.log(JSON.stringify({ channel: la.channel, received, codes }));
for (const x of [a, b, c]) x.close();
process.exit(0);
"""


@pytest.mark.skipif(NODE is None, reason="node (20+) is not installed")
def test_the_node_client_talks_at_a_table(hall: tuple[Supervisor, str, str]) -> None:
    _, one, _ = hall
    client = Path(__file__).resolve().parents[2] / "clients" / "js" / "empire-client.mjs"
    assert NODE is not None
    out = subprocess.run([NODE, *WS_FLAGS, "--input-type=module", "-e",
                          NODE_SCRIPT % {"client": client.as_uri()}, one],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["channel"] == "table"
    assert result["received"] == ["<i>from node</i>"]
    assert result["codes"] == ["chat/duplicate", "chat/not_member", "chat/not_member"]
