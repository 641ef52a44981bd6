"""lobby shell: request/reply over a stream; tables updated with WATCH/MULTI."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

import structlog
from pydantic import ValidationError
from redis.exceptions import WatchError

from services.lobby import tables
from services.lobby.tables import LobbyError
from shared.protocol import internal as im
from shared.protocol import lobby as lm
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.runtime import tokens
from shared.runtime.jsonutil import dumps, loads
from shared.runtime.settings import Settings

log = structlog.get_logger("lobby")
OPEN_TABLES = "lobby:open"
LIVE_GAMES = "lobby:live"


def now_ms() -> int:
    return int(time.time() * 1000)


def table_key(table_id: str) -> str:
    return f"lobby:table:{table_id}"


class Lobby:
    def __init__(self, settings: Settings, redis: Any, broker: Any) -> None:
        self.settings = settings
        self.redis = redis
        self.broker = broker

    def _token(self, player_id: str, name: str) -> str:
        return tokens.issue(self.settings.secret, player_id, name,
                            now_ms() + self.settings.token_ttl_s * 1000)

    async def create_player(self, name: str, bot: str | None = None) -> dict[str, Any]:
        pid = ("b-" if bot else "p-") + secrets.token_hex(8)
        await self.redis.set(f"lobby:player:{pid}", dumps(
            {"player_id": pid, "name": name, "bot": bot, "created_ms": now_ms()}))
        return {"player_id": pid, "name": name, "token": self._token(pid, name)}

    async def _load(self, table_id: str) -> lm.Table:
        raw = await self.redis.get(table_key(table_id))
        if raw is None:
            raise LobbyError("lobby/not_found", "no such table")
        return lm.Table.model_validate(loads(raw))

    async def _update(self, table_id: str, change: Callable[[lm.Table], lm.Table]) -> lm.Table:
        key = table_key(table_id)
        for _ in range(50):
            try:
                async with self.redis.pipeline(transaction=True) as pipe:
                    await pipe.watch(key)
                    raw = await pipe.get(key)
                    if raw is None:
                        raise LobbyError("lobby/not_found", "no such table")
                    t = change(lm.Table.model_validate(loads(raw)))
                    pipe.multi()
                    pipe.set(key, t.model_dump_json())  # one key: also atomic on a cluster
                    await pipe.execute()
            except WatchError:
                continue
            # the public listing follows the table (idempotent, re-derived on every update)
            if t.status != "open" or not t.public or len(t.players) >= t.seats:
                await self.redis.zrem(OPEN_TABLES, table_id)
            else:
                await self.redis.zadd(OPEN_TABLES, {table_id: t.created_ms})
            return t
        raise LobbyError("lobby/bad_request", "table busy, try again")

    async def handle(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            req = lm.LOBBY_REQUEST.validate_python(body)
            return {"ok": True, **await self._handle(req)}
        except ValidationError as exc:
            return {"ok": False, "code": "lobby/bad_request",
                    "message": str(exc.errors(include_url=False))[:500]}
        except LobbyError as exc:
            return {"ok": False, "code": exc.code, "message": str(exc)}

    async def _handle(self, req: lm.LobbyRequest) -> dict[str, Any]:
        if isinstance(req, lm.CreatePlayer):
            return await self.create_player(req.name)
        me = im.PlayerRef(player_id=req.player_id, name=req.name)
        if isinstance(req, lm.CreateTable):
            tables.check_new_table(req.game, req.seats, req.options)
            new_id = "t-" + secrets.token_hex(6)
            t = lm.Table(table_id=new_id, game=req.game, options=req.options, seats=req.seats,
                         players=[me], host=me.player_id, public=req.public,
                         invite=secrets.token_urlsafe(8), client_entropy=req.client_entropy,
                         turn_timeout_ms=req.turn_timeout_ms or self.settings.turn_timeout_ms,
                         round_timeout_ms=req.round_timeout_ms or self.settings.round_timeout_ms,
                         created_ms=now_ms())
            await self.redis.set(table_key(new_id), t.model_dump_json())
            await self.redis.set(f"lobby:invite:{t.invite}", new_id)
            if t.public and len(t.players) < t.seats:
                await self.redis.zadd(OPEN_TABLES, {new_id: t.created_ms})
            return {"table": t.model_dump()}
        if isinstance(req, lm.JoinTable):
            tid: str | None = req.table_id
            if req.invite:
                raw = await self.redis.get(f"lobby:invite:{req.invite}")
                tid = raw.decode() if raw else None
            if not tid:
                raise LobbyError("lobby/not_found", "no such table or invite")
            return {"table": (await self._update(tid, lambda t: tables.join(t, me))).model_dump()}
        if isinstance(req, lm.LeaveTable):
            t = await self._update(req.table_id, lambda t: tables.leave(t, me.player_id))
            return {"table": t.model_dump()}
        if isinstance(req, lm.AddBot):
            t0 = await self._load(req.table_id)
            if t0.host != me.player_id:
                raise LobbyError("lobby/not_host", "only the host may add bots")
            bot = await self.create_player(f"bot-{req.kind}-{secrets.token_hex(2)}",
                                           bot=req.kind)
            ref = im.PlayerRef(player_id=bot["player_id"], name=bot["name"], bot=req.kind)
            t = await self._update(req.table_id, lambda t: tables.join(t, ref))
            return {"table": t.model_dump()}
        if isinstance(req, lm.StartTable):
            return await self._start(req.table_id, me.player_id)
        if isinstance(req, lm.GetTable):
            return {"table": (await self._load(req.table_id)).model_dump()}
        ids = await self.redis.zrange(OPEN_TABLES, 0, 99)
        out = []
        for raw_id in ids:
            try:
                out.append((await self._load(raw_id.decode())).model_dump())
            except LobbyError:
                await self.redis.zrem(OPEN_TABLES, raw_id)
        live = []
        for raw_gid in await self.redis.zrevrange(LIVE_GAMES, 0, 49):
            gid = raw_gid.decode()
            if await self.redis.exists(Keys(gid).result):  # over: no longer live
                await self.redis.zrem(LIVE_GAMES, gid)
            else:
                live.append(gid)
        return {"tables": out, "live_games": live}

    async def _start(self, table_id: str, player_id: str) -> dict[str, Any]:
        game_id = "g-" + secrets.token_hex(8)

        def change(t: lm.Table) -> lm.Table:
            t = tables.start(t, player_id)
            return t.model_copy(update={"game_id": game_id})

        t = await self._update(table_id, change)
        assert t.game_id is not None
        k = Keys(t.game_id)
        meta = {"game_id": t.game_id, "game": t.game, "options": t.options,
                "players": [p.model_dump() for p in t.players], "table_id": t.table_id}
        await self.redis.set(k.meta, dumps(meta), nx=True)
        await self.redis.zadd(LIVE_GAMES, {t.game_id: now_ms()})
        create = im.CreateGame(game_id=t.game_id, game=t.game, options=t.options,
                               players=t.players, client_entropy=t.client_entropy,
                               turn_timeout_ms=t.turn_timeout_ms,
                               round_timeout_ms=t.round_timeout_ms)
        await self.broker.publish(create.model_dump(mode="json"),
                                  stream=streams.sharded(streams.ADJ_CONTROL, t.game_id,
                                                         self.settings.partitions),
                                  maxlen=streams.MAXLEN_INTERNAL)
        for seat, p in enumerate(t.players):
            if p.bot:
                seat_bot = im.SeatBot(game_id=t.game_id, seat=seat, player_id=p.player_id,
                                      token=self._token(p.player_id, p.name), kind=p.bot)
                await self.broker.publish(seat_bot.model_dump(mode="json"),
                                          stream=streams.BOTS_IN,
                                          maxlen=streams.MAXLEN_INTERNAL)
        log.info("game_started", table_id=t.table_id, game_id=t.game_id, game=t.game)
        return {"table": t.model_dump(), "game_id": t.game_id}
