"""Table talk (docs/protocol.md "Table talk", docs/operations.md "Table talk").

Channels (chat/rooms.py), each one bounded Redis stream (``EMPIRE_CHAT_KEEP`` messages,
``MAXLEN ~``):

* ``table``: a table's, before its start (``tchat:{<table>}:msgs``): its seated players read
  it; they write while the table is open. A player the host removed is refused
  (``chat/kicked``) and stops receiving it.
* ``seats``: a game's seats (``g:{<game>}:chat:seats``): only the game's players read and
  write it. A spectator never receives it.
* ``spectators``: a game's spectators (``g:{<game>}:chat:spec``): only spectators read and
  write it, as on Board Game Arena, where players do not see the spectators' chat during a
  game (no hints from the rail). A game whose host allows only its players to watch has no
  spectators, so no spectators' channel.

Posting is one Lua step on the channel's keys (one hash tag): refuse a replayed message id
(``chat/duplicate``; the last 1,000 ids of the channel), XADD, give the keys their TTL. Then
one ``chat_notify`` entry on ``gw:updates``: every gateway replica reads the channel after
what each of its joined connections holds and queues the new messages (the same fan-out as a
game's views, never waiting for a client). Chat is opt-in (``chat_join``): a client that never
joins, like the bot runner, never receives a chat frame.

Mutes are per player (``chat:mutes:<player>``, a set): a muted player's messages are not sent
to the player who muted it (history included); the muted player is not told. An operator
silences a player for everyone with ``chat:silenced:<player>`` (``chat/muted``). Reports go to
``chat:reports`` (a bounded stream operators read) with the message and its context.

Nothing here is part of a game's record: the verifier and the audit bundle never see chat; the
adjudicator copies the channels into the game's archive (``"chat"``).

A deleted player's messages stay, shown as the "deleted player"'s (history, the live frames
and the HTTP chat of a game: services/gateway/fanout/erased.py, from ``lobby:erased`` when read).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import Awaitable
from typing import Any

import structlog
from redis.exceptions import NoScriptError

from services.gateway.chat.rooms import Room, Sub, game_room, line, table_room
from services.gateway.edge.quotas import Quotas
from services.gateway.fanout import erased
from services.gateway.fanout.hub import Connection, Hub
from services.gateway.ports import Publisher, RedisClient, stream_entries
from shared.identity.chat_text import BadText, clean
from shared.protocol import client as cm
from shared.protocol import keys, streams
from shared.protocol import server as sm
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import dumps, loads, stream_order, text
from shared.runtime.settings import Settings

log = structlog.get_logger("gateway")

PAGE = 200  # messages read per room per pump
IDS_KEPT = 1000  # message ids remembered per channel (replays)
MUTES_TTL_S = 180 * 24 * 3600  # a player's mute list, from its last change
REPORT_BEFORE = 10  # messages before the reported one sent with a report
REPORT_AFTER = 5

# KEYS[1] the channel's stream, KEYS[2] its ids; ARGV: member ("<player>|<cmd id>"), maxlen,
# now ms, ttl ms, ids kept, entry JSON. Returns the new stream id, or false for a replay.
POST = """
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return false end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'd', ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -tonumber(ARGV[5]) - 1)
for i = 1, 2 do
  if redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], ARGV[4]) end
end
return id
"""


class Refused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Chat:
    def __init__(self, redis: RedisClient, settings: Settings, hub: Hub, quotas: Quotas | None,
                 out: Publisher) -> None:
        self.redis = redis
        self.settings = settings
        self.hub = hub
        self.quotas = quotas
        self.out = out  # gw:updates publishes (the Outbox)
        self._sha = hashlib.sha1(POST.encode()).hexdigest()
        self._active: dict[str, float] = {}  # room key -> last fan-out (monotonic)

    # -- who may read and write where -----------------------------------------------------

    async def _table(self, table_id: str) -> dict[str, Any] | None:
        raw = await self.redis.get(keys.lobby_table(table_id))  # services/lobby/store.py
        return None if raw is None else dict(loads(raw))

    async def access(self, conn: Connection, table_id: str | None,
                     game_id: str | None) -> tuple[Room, dict[str, Any] | None]:
        """The room this player reads and writes at the place (and the table, for a table's
        channel), or Refused."""
        if table_id is not None:
            t = await self._table(table_id)
            if t is None:
                raise Refused("lobby/not_found", "no such table")
            if conn.player_id in t.get("kicked", []):
                raise Refused("chat/kicked", "the host removed you from this table")
            if not any(p["player_id"] == conn.player_id for p in t.get("players", [])):
                raise Refused("chat/not_member", "only the table's seated players talk here")
            return table_room(table_id), t
        assert game_id is not None
        place = await self.hub.place(game_id, conn.player_id)
        if not place.exists:
            raise Refused("game/not_found", "no such game")
        if place.seat is not None:
            return game_room(game_id, "seats"), None
        if not place.spectators:
            raise Refused("chat/not_member", "only this game's players may talk about it")
        return game_room(game_id, "spectators"), None

    # -- frames ---------------------------------------------------------------------------

    @staticmethod
    async def answer(step: Awaitable[None], cmd_id: str | None, game_id: str | None = None,
                     ack: bool = True) -> dict[str, Any] | None:
        """The reply to a chat frame once ``step`` (what it asks) is done: ``accepted``
        (None when ``ack`` is off: chat_join answers with its history), or its refusal."""
        try:
            await step
        except Refused as exc:
            log.info("chat_refused", code=exc.code)
            return {"type": "rejected", "v": 1, "cmd_id": cmd_id, "game_id": game_id,
                    "code": exc.code, "message": exc.message}
        return {"type": "accepted", "v": 1, "cmd_id": cmd_id} if ack else None

    async def _mutes(self, conn: Connection) -> set[str]:
        if conn.mutes is None:
            conn.mutes = {text(m) for m in
                          await self.redis.smembers(streams.chat_mutes(conn.player_id))}
        return conn.mutes

    async def join(self, conn: Connection, table_id: str | None, game_id: str | None) -> None:
        room, _ = await self.access(conn, table_id, game_id)
        mutes = await self._mutes(conn)
        sub = Sub(room)
        conn.rooms[room.key] = sub
        self.hub.rooms[room.key].add(conn)
        entries = stream_entries(await self.redis.xrevrange(
            room.key, count=max(1, self.settings.chat_history)))
        if conn.rooms.get(room.key) is not sub:
            return  # left (or joined again) meanwhile
        sub.last_id = text(entries[0][0]) if entries else "0-0"  # what follows is new
        entries.reverse()
        lines = [line(i, f) for i, f in entries][-self.settings.chat_history:] \
            if self.settings.chat_history else []
        lines = [x for x in lines if x["player_id"] not in mutes]
        lines = erased.seats(lines, await erased.erased(self.redis, erased.row_ids(lines)))
        await conn.send(sm.ChatHistory.model_validate(
            {**room.place(), "messages": lines, "muted": sorted(mutes)}).model_dump(mode="json"))
        await self.pump(room.key)  # anything posted while the history was read

    def leave(self, conn: Connection, table_id: str | None, game_id: str | None) -> None:
        keys = [streams.table_chat(table_id)] if table_id is not None else \
            [Keys(game_id).chat(c) for c in ("seats", "spectators")] if game_id else []
        for key in keys:
            self._drop(conn, key)

    def _drop(self, conn: Connection, key: str) -> None:
        conn.rooms.pop(key, None)
        members = self.hub.rooms.get(key)
        if members is not None:
            members.discard(conn)
            if not members:
                del self.hub.rooms[key]

    async def post(self, conn: Connection, msg: cm.ChatSend) -> None:
        room, table = await self.access(conn, msg.table_id, msg.game_id)
        if room.channel != msg.channel:
            mine = "the game's players" if room.channel == "seats" else "spectators"
            raise Refused("chat/wrong_channel",
                          f"you write to the {room.channel} channel ({mine}), not {msg.channel}")
        if table is not None and table.get("status") != "open":
            raise Refused("chat/closed", "the table has started; talk in the game's channel")
        if await self.redis.get(streams.chat_silenced(conn.player_id)) is not None:
            raise Refused("chat/muted", "an operator has silenced you in every chat")
        try:
            words = clean(msg.text, self.settings.chat_max_chars)
        except BadText as exc:
            raise Refused(exc.code, str(exc)) from None
        await self._rate(conn)
        now = int(time.time() * 1000)
        entry = dumps({"player_id": conn.player_id, "name": conn.name, "text": words,
                       "ts": now})
        args = (f"{conn.player_id}|{msg.cmd_id}", self.settings.chat_keep, now,
                int(self.settings.chat_ttl_s * 1000), IDS_KEPT, entry)
        try:
            new_id = await self.redis.evalsha(self._sha, 2, room.key, room.ids_key, *args)
        except NoScriptError:
            await self.redis.script_load(POST)
            new_id = await self.redis.evalsha(self._sha, 2, room.key, room.ids_key, *args)
        if new_id is None:
            raise Refused("chat/duplicate", "this message id was already posted here")
        await self.out.publish({"type": "chat_notify", "v": 1, "room": room.key},
                               stream=streams.GW_UPDATES, maxlen=streams.MAXLEN_UPDATES)

    async def _rate(self, conn: Connection) -> None:
        if self.quotas is None:
            return
        verdict = await self.quotas.take("chat", conn.player_id, self.settings.chat_per_s,
                                         self.settings.chat_burst)
        if not verdict.ok:
            raise Refused("chat/rate_limited",
                          f"too many messages; wait {verdict.retry_after_s} s")

    async def mute(self, conn: Connection, msg: cm.ChatMute) -> None:
        if msg.player_id == conn.player_id:
            raise Refused("chat/bad_request", "you cannot mute yourself")
        key = streams.chat_mutes(conn.player_id)
        mutes = await self._mutes(conn)
        if msg.muted:
            if msg.player_id not in mutes and len(mutes) >= self.settings.chat_mutes_max:
                raise Refused("chat/bad_request",
                              f"at most {self.settings.chat_mutes_max} muted players")
            await self.redis.sadd(key, msg.player_id)
        else:
            await self.redis.srem(key, msg.player_id)
        await self.redis.pexpire(key, MUTES_TTL_S * 1000)
        await self._reload_mutes(conn.player_id)  # this replica at once, the others next
        await self.out.publish({"type": "mutes_changed", "v": 1, "player_id": conn.player_id},
                               stream=streams.GW_UPDATES, maxlen=streams.MAXLEN_UPDATES)

    async def _reload_mutes(self, player_id: str) -> None:
        conns = [c for c in self.hub.by_player.get(player_id, ()) if not c.closed]
        if not conns:
            return
        mutes = {text(m) for m in await self.redis.smembers(streams.chat_mutes(player_id))}
        frame = sm.ChatMutes(muted=sorted(mutes)).model_dump(mode="json")
        for c in conns:
            if c.mutes != mutes:
                c.mutes = set(mutes)
                c.push(frame)

    async def report(self, conn: Connection, msg: cm.ChatReport) -> None:
        room, _ = await self.access(conn, msg.table_id, msg.game_id)
        if room.channel != msg.channel:
            raise Refused("chat/wrong_channel", "you can report only what you can read")
        await self._rate(conn)
        found = stream_entries(await self.redis.xrange(room.key, min=msg.msg_id,
                                                       max=msg.msg_id, count=1))
        if not found:
            raise Refused("chat/not_found", "no such message in this channel (any more)")
        before = stream_entries(await self.redis.xrevrange(room.key, max=f"({msg.msg_id}",
                                                           count=REPORT_BEFORE))
        after = stream_entries(await self.redis.xrange(room.key, min=f"({msg.msg_id}",
                                                       count=REPORT_AFTER))
        try:
            reason = clean(msg.reason, 200) if msg.reason else ""
        except BadText:
            reason = ""
        reported = line(*found[0])
        doc = {"ts": int(time.time() * 1000), "reporter": conn.player_id,
               "reporter_name": conn.name, "reason": reason, **room.place(),
               "message": reported,
               "context": [line(i, f) for i, f in reversed(before)]
               + [line(i, f) for i, f in after]}
        await self.redis.xadd(streams.CHAT_REPORTS, {"d": dumps(doc)},
                              maxlen=streams.maxlen(streams.CHAT_REPORTS), approximate=True)
        log.warning("chat_reported", reporter=conn.player_id, author=reported["player_id"],
                    msg_id=reported["id"], **room.place())

    async def lines(self, key: str) -> list[dict[str, Any]]:
        """Every message a channel keeps, oldest first (at most EMPIRE_CHAT_KEEP and a bit)."""
        found = stream_entries(await self.redis.xrange(key, count=100_000))
        return [line(i, f) for i, f in found]

    # -- fan-out --------------------------------------------------------------------------

    async def on_fanout(self, bodies: list[dict[str, Any]]) -> None:
        """``chat_notify`` / ``mutes_changed`` entries of a ``gw:updates`` batch."""
        rooms: dict[str, None] = {}
        players: dict[str, None] = {}
        for b in bodies:
            if b.get("type") == "chat_notify" and isinstance(r := b.get("room"), str):
                rooms[r] = None
            elif b.get("type") == "mutes_changed" and isinstance(p := b.get("player_id"), str):
                players[p] = None
        for p in players:
            await self._reload_mutes(p)
        now = time.monotonic()
        todo = [r for r in rooms if r in self.hub.rooms]
        for r in todo:
            self._active[r] = now
        await asyncio.gather(*(self.pump(r) for r in todo))

    async def pump(self, key: str) -> None:
        """Queue the room's new messages for each of its joined connections here."""
        while True:
            subs = [(c, s) for c in list(self.hub.rooms.get(key, ()))
                    if not c.closed and (s := c.rooms.get(key)) is not None
                    and s.last_id is not None]
            if not subs:
                return
            low = min((s.last_id for _, s in subs if s.last_id), key=stream_order)
            entries = stream_entries(await self.redis.xrange(key, min=f"({low}", count=PAGE))
            if not entries:
                return
            members: set[str] | None = None
            kicked: set[str] = set()
            room = subs[0][1].room
            authors = [loads(f[b"d"]).get("player_id") for _, f in entries]
            gone = await erased.erased(self.redis, authors)  # shown as "deleted player"
            if room.table_id is not None:  # a removed (or departed) player stops reading
                t = await self._table(room.table_id)
                members = {p["player_id"] for p in (t or {}).get("players", [])}
                kicked = set((t or {}).get("kicked", []))
            for conn, sub in subs:
                if members is not None and conn.player_id not in members:
                    self._drop(conn, key)
                    code = "chat/kicked" if conn.player_id in kicked else "chat/not_member"
                    conn.push({"type": "rejected", "v": 1, "cmd_id": None, "game_id": None,
                               "code": code, "message": "you no longer read this table's chat"})
                    continue
                mutes = conn.mutes or set()
                for i, f in entries:
                    sid = text(i)
                    if sub.last_id is None or stream_order(sid) <= stream_order(sub.last_id):
                        continue
                    sub.last_id = sid
                    said = line(i, f)
                    if said["player_id"] in mutes:
                        continue
                    said = erased.seat(said, gone)
                    if not conn.push({"type": "chat", "v": 1, **room.place(), **said}):
                        break
            if len(entries) < PAGE:
                return

    async def sweep_loop(self, every_s: float = 2.0, active_s: float = 60.0) -> None:
        """Catch what a lost fan-out entry missed, for rooms that changed recently."""
        while True:
            await asyncio.sleep(every_s)
            cutoff = time.monotonic() - active_s
            for key, seen in list(self._active.items()):
                if seen < cutoff or key not in self.hub.rooms:
                    self._active.pop(key, None)
                    continue
                with contextlib.suppress(Exception):
                    await self.pump(key)
