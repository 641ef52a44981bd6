"""lobby shell: players, tables, bots, starting games; per-player quotas; idle tables closed;
the listing paged newest first.

Requests arrive concurrently (services/lobby/rpc.py). Changes to one table run one at a time
in this process (a lock per table) and with WATCH/MULTI across replicas; a player's quota
steps run one at a time in this process (a lock per player) and as one Lua step each in
Redis, so every replica counts the same reservations.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import structlog
from cachetools import TTLCache
from pydantic import ValidationError

from services.lobby import invites, tables
from services.lobby.mygames_service import MyGames
from services.lobby.ports import AccountsPort, LobbyStorePort
from services.lobby.resign import Resignations
from services.lobby.store import AUDIT, IDLE_TABLES, LIVE_GAMES, OPEN_TABLES
from services.lobby.tables import LobbyError
from shared.identity import handles
from shared.protocol import internal as im
from shared.protocol import lobby as lm
from shared.protocol import streams
from shared.runtime import tokens
from shared.runtime.ports import Publisher
from shared.runtime.settings import Settings

log = structlog.get_logger("lobby")
TURN_BASED_CLOCK_MS = 86_400_000  # a turn-based table's clocks when it names none
__all__ = ["AUDIT", "IDLE_TABLES", "LIVE_GAMES", "OPEN_TABLES", "KeyedLocks", "Lobby"]


def now_ms() -> int:
    return int(time.time() * 1000)


class KeyedLocks:
    """One asyncio lock per key, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


class Lobby:
    def __init__(self, settings: Settings, store: LobbyStorePort, accounts: AccountsPort,
                 broker: Publisher, my_games: MyGames | None = None) -> None:
        self.my_games = my_games  # "My games" (services/lobby/mygames_service.py)
        self.settings = settings
        self.broker = broker
        self.store = store
        self.accounts = accounts
        self.table_locks = KeyedLocks()
        self.player_locks = KeyedLocks()
        # identical listing requests share one page for lobby_list_cache_ms (0: none)
        self._pages: TTLCache[tuple[Any, ...], dict[str, Any]] = TTLCache(
            maxsize=1_000, ttl=max(settings.lobby_list_cache_ms, 1) / 1000)
        self._paging: dict[tuple[Any, ...], asyncio.Future[dict[str, Any]]] = {}
        # resigning a running game, and on_expiry "bot": a seat handed to a bot
        self.resignations = Resignations(
            settings, store, broker, lambda name: self.create_player(name, bot="heuristic"),
            self._token)

    @property
    def limits(self) -> tuple[int, int, int]:
        s = self.settings
        return s.quota_open_tables, s.quota_running_games, s.quota_bot_seats

    @property
    def ended_expire_s(self) -> int:
        """How long a started or closed table (and its invite) stays readable."""
        return int(self.settings.game_lifetime_s + self.settings.archive_live_ttl_s)

    def expire_for(self, t: lm.Table) -> int:
        """How long a started or closed table stays readable: a turn-based table's as long as
        its game may run."""
        if t.pace == "turn-based" and t.status == "started":
            return int(self.settings.turn_based_lifetime_max_s
                       + self.settings.archive_live_ttl_s)
        return self.ended_expire_s

    def _token(self, player_id: str, name: str) -> str:
        return tokens.issue(self.settings.signing_key, player_id, name,
                            now_ms() + self.settings.token_ttl_s * 1000)

    async def create_player(self, name: str, bot: str | None = None,
                            exact: bool = False, agent: str = "") -> dict[str, Any]:
        """A guest (or a bot: its generated name is taken as it is). A guest's name is
        normalized and checked (shared/identity/handles.py) and held, case- and
        confusable-insensitively, while the guest lives; a held one gets a "name#1234"
        display, or ``lobby/name_taken`` when ``exact``. A guest gets a session at once
        (services/lobby/accounts/); a bot a seat token."""
        pid = ("b-" if bot else "p-") + secrets.token_hex(8)
        if not bot:
            name = await self._claim_handle(name, pid, exact)
        player = {"player_id": pid, "name": name, "bot": bot, "created_ms": now_ms()}
        await self.store.put_player(player, self.settings.token_ttl_s)
        if bot:
            return {"player_id": pid, "name": name, "token": self._token(pid, name)}
        return await self.accounts.open_session(player, agent)

    async def _claim_handle(self, raw: str, player_id: str, exact: bool) -> str:
        try:
            chosen = handles.check_chosen(raw)
        except handles.BadName as exc:
            raise LobbyError("lobby/bad_name", str(exc)) from exc
        display = chosen
        for _ in range(8):
            if await self.store.claim_handle(handles.key(display), player_id,
                                             self.settings.token_ttl_s):
                return display
            if exact:
                raise LobbyError("lobby/name_taken", "That name (or one that looks like it) is "
                                 "taken: choose another.")
            display = handles.with_suffix(chosen, secrets.randbelow(10_000))
        raise LobbyError("lobby/name_taken", "That name is taken: choose another.")

    def _view(self, t: lm.Table, player_id: str | None) -> dict[str, Any]:
        """The table as the player may see it, with the invite link beside the invite."""
        return invites.with_link(tables.for_viewer(t, player_id), self.settings.page_address)

    async def _update(self, table_id: str, change: Callable[[lm.Table], lm.Table]) -> lm.Table:
        t = now_ms()

        def touched(before: lm.Table) -> lm.Table:
            after = change(before)
            return after if after is before else tables.touched(after, t)

        async with self.table_locks.hold(table_id):
            return await self.store.update(table_id, touched, self.expire_for)

    async def handle(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            req = lm.LOBBY_REQUEST.validate_python(body)
            return {"ok": True, **await self._handle(req)}
        except ValidationError as exc:
            return {"ok": False, "code": "lobby/bad_request",
                    "message": str(exc.errors(include_url=False, include_input=False))[:500]}
        except LobbyError as exc:
            return {"ok": False, "code": exc.code, "message": str(exc)}

    async def _handle(self, req: lm.LobbyRequest) -> dict[str, Any]:
        if isinstance(req, lm.CreatePlayer):
            return await self.create_player(req.name, exact=req.exact, agent=req.agent)
        if req.op in lm.ACCOUNT_OPS:
            return await self._account(req)
        if isinstance(req, lm.MyGames):
            if self.my_games is None:
                raise LobbyError("lobby/unavailable", "My games is not kept here")
            return await self.my_games.listing(req.player_id)
        if isinstance(req, lm.Resign):
            return await self.resignations.resign(req.game_id, req.player_id)
        if isinstance(req, lm.HandOverSeat):  # from the adjudicator (no reply awaited)
            return await self.resignations.on_expired(req.game_id, req.seat, req.from_player)
        assert isinstance(req, lm.CreateTable | lm.JoinTable | lm.LeaveTable | lm.AddBot
                          | lm.StartTable | lm.KickPlayer | lm.GetTable | lm.ListTables)
        me = im.PlayerRef(player_id=req.player_id, name=req.name)
        if isinstance(req, lm.CreateTable):
            return await self._create_table(req, me)
        if isinstance(req, lm.JoinTable):
            tid: str | None = req.table_id
            by_invite = bool(req.invite)
            if req.invite:
                tid = await self.store.table_of_invite(req.invite)
            if not tid:
                raise LobbyError("lobby/not_found", "No table has that invite code: check the "
                                 "code with the host, or ask for a new one.")
            t = await self._update(tid, lambda t: tables.join(t, me, by_invite))
            return {"table": self._view(t, me.player_id)}
        if isinstance(req, lm.LeaveTable):
            return await self._leave(req.table_id, me.player_id)
        if isinstance(req, lm.KickPlayer):
            return await self._kick(req.table_id, me.player_id, req.target)
        if isinstance(req, lm.AddBot):
            return await self._add_bot(req, me)
        if isinstance(req, lm.StartTable):
            return await self._start(req.table_id, me.player_id)
        if isinstance(req, lm.GetTable):
            return {"table": self._view(await self.store.load(req.table_id),
                                               me.player_id)}
        assert isinstance(req, lm.ListTables)
        return await self.listing(req)

    async def _account(self, req: lm.LobbyRequest) -> dict[str, Any]:
        a = self.accounts
        if isinstance(req, lm.Refresh):
            return await a.refresh(req)
        if isinstance(req, lm.PasswordSignIn):
            return await a.password_sign_in(req)
        if isinstance(req, lm.PasskeySignInBegin):
            return await a.passkey_sign_in_begin(req)
        if isinstance(req, lm.PasskeySignInFinish):
            return await a.passkey_sign_in_finish(req)
        if isinstance(req, lm.RegisterSessionKey):  # checks the token itself
            return await a.register_session_key(req)
        # signed in from here on (the gateway stamped the token's identity)
        if isinstance(req, lm.SignOut):
            if req.session:
                await a.revoke(req.session, req.player_id)
            return {"signed_out": True}
        if isinstance(req, lm.ListSessions):
            return {"sessions": await a.sessions(req.player_id, req.session)}
        if isinstance(req, lm.RevokeSession):
            return await a.revoke_own(req.player_id, req.session_id)
        if isinstance(req, lm.Me):
            return await a.me(req)
        if isinstance(req, lm.SetPassword):
            return await a.set_password(req)
        if isinstance(req, lm.PasskeyRegisterBegin):
            return await a.passkey_register_begin(req)
        if isinstance(req, lm.PasskeyRegisterFinish):
            return await a.passkey_register_finish(req)
        if isinstance(req, lm.ExportData):
            return await a.export(req)
        if isinstance(req, lm.DeleteAccount):
            return await a.delete(req)
        return await self._admin(req)

    # -- admin --------------------------------------------------------------------------

    async def _admin(self, req: lm.LobbyRequest) -> dict[str, Any]:
        """Admin actions (the role comes from EMPIRE_ADMINS), each appended to the bounded
        audit stream ``lobby:audit`` before it is carried out."""
        assert isinstance(req, lm.AdminSuspend | lm.AdminCloseTable | lm.AdminEndGame
                          | lm.AdminAudit)
        admin = await self.accounts.player(req.player_id)
        if not self.accounts.is_admin(admin):
            log.warning("admin_refused", player_id=req.player_id, op=req.op)
            raise LobbyError("auth/forbidden", "this needs the admin role")
        if isinstance(req, lm.AdminAudit):
            return {"entries": await self.store.audit_entries(req.limit)}
        target = req.target if isinstance(req, lm.AdminSuspend) else \
            req.table_id if isinstance(req, lm.AdminCloseTable) else req.game_id
        action = req.op.removeprefix("admin_")
        if isinstance(req, lm.AdminSuspend) and not req.suspended:
            action = "unsuspend"
        await self._audit(req.player_id, action, target, req.reason)
        if isinstance(req, lm.AdminSuspend):
            return await self.accounts.suspend(req.target, req.reason, req.suspended)
        if isinstance(req, lm.AdminCloseTable):
            return await self._close_table(req.table_id, req.reason)
        return await self._end_game(req.game_id, req.reason)

    async def _audit(self, admin: str, action: str, target: str, reason: str) -> None:
        entry = {"at_ms": now_ms(), "admin": admin, "action": action, "target": target,
                 "reason": reason}
        await self.store.audit(entry, self.settings.audit_maxlen)
        log.info("admin_action", **entry)

    async def _close_table(self, table_id: str, reason: str) -> dict[str, Any]:
        t = now_ms()

        def close(x: lm.Table) -> lm.Table:
            if x.status == "started":
                raise LobbyError("lobby/already_started", "The game has started: end the game "
                                 "instead of closing its table.")
            if x.status == "closed":
                return x
            return x.model_copy(update={"status": "closed", "updated_ms": t})

        after = await self._update(table_id, close)
        await self.store.reserve(after.host, "drop_table", table_id, t, self.limits)
        return {"table": self._view(after, None), "reason": reason}

    async def _end_game(self, game_id: str, reason: str) -> dict[str, Any]:
        over = (await self.store.games_over([game_id])).get(game_id)
        if over is None:
            raise LobbyError("lobby/not_found", "There is no such game.")
        if over:
            raise LobbyError("lobby/already_started", "This game is already over.")
        end = im.EndGame(game_id=game_id, reason=reason)
        control = streams.sharded(streams.ADJ_CONTROL, game_id, self.settings.partitions)
        await self.broker.publish(end.model_dump(mode="json"), stream=control,
                                  maxlen=streams.maxlen(control))
        return {"game_id": game_id, "ending": True, "reason": reason}

    async def _leave(self, table_id: str, player_id: str) -> dict[str, Any]:
        t0 = await self.store.load(table_id)
        t = await self._update(table_id, lambda t: tables.leave(t, player_id, now_ms()))
        if t0.host == player_id and t.host != player_id:  # handed over
            await self.store.reserve(player_id, "drop_table", table_id, now_ms(), self.limits)
            await self.store.reserve(t.host, "table", table_id, now_ms(), (1 << 30, 0, 0))
            log.info("table_handed_over", table_id=table_id, host=t.host)
        elif t.status == "closed" and t.host == player_id:
            await self.store.reserve(player_id, "drop_table", table_id, now_ms(), self.limits)
            log.info("table_closed_host_left", table_id=table_id)
        return {"table": self._view(t, player_id)}

    async def _kick(self, table_id: str, host_id: str, target: str) -> dict[str, Any]:
        t0 = await self.store.load(table_id)
        gone = next((p for p in t0.players if p.player_id == target), None)
        t = await self._update(table_id, lambda t: tables.kick(t, host_id, target))
        if gone is not None and gone.bot:
            await self.store.reserve(host_id, "unbot", table_id, now_ms(), self.limits)
        log.info("player_removed", table_id=table_id, host=host_id, player_id=target)
        return {"table": self._view(t, host_id)}

    # -- quotas -------------------------------------------------------------------------

    async def _reconcile(self, player_id: str) -> None:
        """Put the player's reservations right: tables that started or closed, games over."""
        held_t, held_g = await self.store.reservations(player_id)
        docs = await self.store.load_many(list(held_t))
        over = await self.store.games_over(list(held_g))
        await self.store.apply(player_id, tables.reconcile(held_t, held_g, docs, over,
                                                          now_ms()))

    async def _reserve(self, player_id: str, op: str, table_id: str, game_id: str = "",
                       bots: int = 0, turn_based: bool = False) -> None:
        limits = self.limits
        if turn_based:  # a turn-based start counts against its own, larger quota
            limits = (limits[0], self.settings.quota_turn_based_games, limits[2])
        refused = await self.store.reserve(player_id, op, table_id, now_ms(), limits,
                                           game_id, bots, turn_based)
        if refused:  # perhaps only stale reservations stand in the way: recount, try again
            await self._reconcile(player_id)
            refused = await self.store.reserve(player_id, op, table_id, now_ms(), limits,
                                               game_id, bots, turn_based)
        if refused:
            limit = dict(zip(("open_tables", "running_games", "bot_seats"), limits,
                             strict=True)).get(refused, limits[1])
            log.info("quota_refused", player_id=player_id, quota=refused, limit=limit)
            raise tables.quota_error(refused, limit)

    async def _create_table(self, req: lm.CreateTable, me: im.PlayerRef) -> dict[str, Any]:
        tables.check_new_table(req.game, req.seats, req.options)
        new_id = "t-" + secrets.token_hex(6)
        async with self.player_locks.hold(me.player_id):
            await self._reserve(me.player_id, "table", new_id)
        # a clock left out: the operator's default, a day per move at a turn-based table
        rt = req.pace == "real-time"
        turn = self.settings.turn_timeout_ms if rt else TURN_BASED_CLOCK_MS
        rounds = self.settings.round_timeout_ms if rt else TURN_BASED_CLOCK_MS
        t = lm.Table(table_id=new_id, game=req.game, options=req.options, seats=req.seats,
                     players=[me], host=me.player_id, public=req.public,
                     spectators=req.spectators or ("anyone" if req.public else "players"),
                     invite=secrets.token_urlsafe(8), client_entropy=req.client_entropy,
                     turn_timeout_ms=req.turn_timeout_ms or turn,
                     round_timeout_ms=req.round_timeout_ms or rounds,
                     created_ms=now_ms(), pace=req.pace, time_bank_ms=req.time_bank_ms,
                     on_expiry=req.on_expiry)
        await self.store.create(t)
        return {"table": self._view(t, me.player_id)}

    async def _add_bot(self, req: lm.AddBot, me: im.PlayerRef) -> dict[str, Any]:
        t0 = await self.store.load(req.table_id)
        if t0.host != me.player_id:
            raise LobbyError("lobby/not_host", "Only the table's host can add bots.")
        tables.join(t0, im.PlayerRef(player_id="", name=""))  # refuses early: started, full
        async with self.player_locks.hold(me.player_id):
            await self._reserve(me.player_id, "bot", req.table_id)
        try:
            bot = await self.create_player(tables.bot_name(t0, req.kind), bot=req.kind)
            ref = im.PlayerRef(player_id=bot["player_id"], name=bot["name"], bot=req.kind)
            t = await self._update(req.table_id, lambda t: tables.join(t, ref))
        except Exception:
            await self.store.reserve(me.player_id, "unbot", req.table_id, now_ms(),
                                     self.limits)
            raise
        return {"table": self._view(t, me.player_id)}

    # -- starting -----------------------------------------------------------------------

    async def _start(self, table_id: str, player_id: str) -> dict[str, Any]:
        """Freeze the table as started (with its game id) first, then create the game. A
        crash or a Redis error after the first step leaves a started table whose game may be
        missing: the host's retry finishes the start with the same game id (every later step
        is idempotent: the metadata is written once, the adjudicator and the bots runner take
        a second CreateGame / SeatBot for the same game as a redelivery)."""
        t0 = await self.store.load(table_id)
        if tables.started_by(t0, player_id):
            return await self._launch(t0, player_id, resumed=True)
        tables.start(t0, player_id)  # refuses early (not host, not open, seats)
        game_id = t0.game_id or "g-" + secrets.token_hex(8)
        async with self.player_locks.hold(player_id):
            await self._reserve(player_id, "start", table_id, game_id, tables.bots(t0),
                                turn_based=t0.pace == "turn-based")

        def change(t: lm.Table) -> lm.Table:
            if tables.started_by(t, player_id):
                return t  # a concurrent start of ours won: finish it below
            t = tables.start(t, player_id)
            return t.model_copy(update={"game_id": game_id})

        try:
            t = await self._update(table_id, change)
        except LobbyError:
            await self.store.reserve(player_id, "unstart", table_id, now_ms(), self.limits,
                                     game_id)
            raise
        if t.game_id != game_id:  # the other start holds its own reservation
            await self.store.apply(player_id, tables.Reconcile(drop_games=[game_id]))
            return await self._launch(t, player_id, resumed=True)
        return await self._launch(t, player_id, resumed=False)

    async def _launch(self, t: lm.Table, player_id: str, resumed: bool) -> dict[str, Any]:
        """Create the game of a started table: metadata, live listing, CreateGame, one
        SeatBot per bot seat. Safe to run again for the same table."""
        assert t.game_id is not None
        out = {"table": self._view(t, player_id), "game_id": t.game_id}
        if resumed and (await self.store.games_over([t.game_id])).get(t.game_id):
            return out  # long over: nothing left to create
        meta = {"game_id": t.game_id, "game": t.game, "options": t.options,
                "players": [p.model_dump() for p in t.players], "table_id": t.table_id,
                "public": t.public, "spectators": t.spectators}
        await self.store.put_meta(t.game_id, meta)
        if t.public:  # a private game stays out of the live listing
            await self.store.add_live(t.game_id, now_ms())
        create = im.CreateGame(game_id=t.game_id, game=t.game, options=t.options,
                               players=t.players, client_entropy=t.client_entropy,
                               turn_timeout_ms=t.turn_timeout_ms,
                               round_timeout_ms=t.round_timeout_ms,
                               pace=t.pace, time_bank_ms=t.time_bank_ms, on_expiry=t.on_expiry)
        control = streams.sharded(streams.ADJ_CONTROL, t.game_id, self.settings.partitions)
        await self.broker.publish(create.model_dump(mode="json"), stream=control,
                                  maxlen=streams.maxlen(control))
        for seat, p in enumerate(t.players):
            if p.bot:
                seat_bot = im.SeatBot(game_id=t.game_id, seat=seat, player_id=p.player_id,
                                      token=self._token(p.player_id, p.name), kind=p.bot)
                await self.broker.publish(seat_bot.model_dump(mode="json"),
                                          stream=streams.BOTS_IN,
                                          maxlen=streams.maxlen(streams.BOTS_IN))
        log.info("game_started", table_id=t.table_id, game_id=t.game_id, game=t.game,
                 resumed=resumed)
        return out

    # -- the listing --------------------------------------------------------------------

    async def listing(self, req: lm.ListTables) -> dict[str, Any]:
        """One page of open tables and one of live games, newest first. Identical requests
        share one computation and its result for ``lobby_list_cache_ms``."""
        key = (min(req.limit, self.settings.lobby_page_max), req.cursor,
               min(req.live_limit, self.settings.lobby_page_max), req.live_cursor)
        hit = self._pages.get(key)
        if hit is not None:
            return hit
        pending = self._paging.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._compute_listing(*key))
            self._paging[key] = pending
            pending.add_done_callback(lambda _: self._paging.pop(key, None))
        out = await asyncio.shield(pending)
        if self.settings.lobby_list_cache_ms > 0:
            self._pages[key] = out
        return out

    async def _compute_listing(self, limit: int, cursor: str | None, live_limit: int,
                               live_cursor: str | None) -> dict[str, Any]:
        tables_page = await self._tables_page(limit, cursor)
        live, live_next = await self._live_page(live_limit, live_cursor)
        return {"tables": tables_page.tables, "next_cursor": tables_page.next_cursor,
                "live_games": live, "live_next_cursor": live_next}

    async def _tables_page(self, limit: int, cursor: str | None) -> tables.Page:
        after = tables.parse_cursor(cursor)
        chunk = limit * (self.settings.lobby_page_per_host + 1) + 16
        out: list[dict[str, Any]] = []
        for _ in range(4):  # a few chunks at most: a page may come back short, never slow
            raw = await self.store.newest(OPEN_TABLES, after, chunk)
            entries = tables.after_cursor(raw, after)
            docs = await self.store.load_many([m for m, _ in entries])
            pg = tables.page(entries, docs, limit - len(out), self.settings.lobby_page_per_host,
                             exhausted=len(raw) < chunk)
            await self.store.unlist(OPEN_TABLES, pg.stale)
            out += pg.tables
            if pg.next_cursor is None or len(out) >= limit:
                return tables.Page(out, pg.next_cursor, [])
            after = tables.parse_cursor(pg.next_cursor)
        return tables.Page(out, tables.cursor_of(after[0], after[1]) if after else None, [])

    async def _live_page(self, limit: int, cursor: str | None) -> tuple[list[str], str | None]:
        """Started games still running, newest first. Games older than the longest lifetime
        (a turn-based game's cap) are over whatever their state: they leave the index in one
        step; the others leave it once over (scored or archived)."""
        longest = max(self.settings.game_lifetime_s, self.settings.turn_based_lifetime_max_s)
        await self.store.drop_live_before(now_ms() - int(longest * 1000) - 60_000)
        after = tables.parse_cursor(cursor)
        raw = await self.store.newest(LIVE_GAMES, after, limit * 2 + 16)
        entries = tables.after_cursor(raw, after)
        over = await self.store.games_over([g for g, _ in entries])
        out: list[str] = []
        gone: list[str] = []
        last: tuple[str, int] | None = None
        for gid, score in entries:
            if len(out) >= limit:
                break
            last = (gid, score)
            if over.get(gid):
                gone.append(gid)
            else:
                out.append(gid)
        await self.store.unlist(LIVE_GAMES, gone)
        more = last is not None and (len(out) >= limit or len(raw) >= limit * 2 + 16)
        return out, tables.cursor_of(last[1], last[0]) if more and last else None

    # -- idle tables --------------------------------------------------------------------

    async def sweep_once(self) -> int:
        """Close the open tables unchanged for ``table_idle_s``; returns how many closed."""
        idle_ms = int(self.settings.table_idle_s * 1000)
        t = now_ms()
        closed = 0
        for tid in await self.store.idle(t - idle_ms):
            try:
                after = await self._update(tid, lambda x: tables.close_if_idle(x, t, idle_ms))
            except LobbyError:  # gone already: drop it from the indexes
                await self.store.forget_idle(tid)
                continue
            if after.status == "open":  # changed meanwhile: due later
                await self.store.reindex_idle(after)
            elif after.status == "closed":
                closed += 1
                await self.store.reserve(after.host, "drop_table", tid, t, self.limits)
                log.info("table_closed_idle", table_id=tid, host=after.host)
        return closed

    async def sweep_loop(self) -> None:
        every = min(30.0, max(0.2, self.settings.table_idle_s / 4))
        while True:
            await asyncio.sleep(every)
            try:
                await self.sweep_once()
            except Exception as exc:  # keep sweeping; the table stays due
                log.error("sweep_failed", error=repr(exc)[:300])
