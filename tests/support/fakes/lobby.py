"""services/lobby/ports.py ``LobbyStorePort``, ``AccountsStorePort`` and
``MyGamesStorePort`` in memory."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from services.lobby import tables
from services.lobby.store import IDLE_TABLES, LIVE_GAMES, OPEN_TABLES
from services.lobby.tables import NO_TABLE, LobbyError
from shared.identity import handles
from shared.protocol import lobby as lm
from shared.protocol.turns import TurnsChanged
from shared.runtime.jsonutil import dumps, loads


class FakeLobbyStore:
    """services/lobby/store.py: tables as JSON, the listing indexes as dicts (member ->
    score), the per-player quota reservations with QUOTA_LUA's rules."""

    def __init__(self) -> None:
        self.players: dict[str, dict[str, Any]] = {}
        self.handles: dict[str, str] = {}
        self.tables: dict[str, str] = {}
        self.invites: dict[str, str] = {}
        self.indexes: dict[str, dict[str, int]] = {OPEN_TABLES: {}, IDLE_TABLES: {},
                                                   LIVE_GAMES: {}}
        self.metas: dict[str, dict[str, Any]] = {}
        self.over: set[str] = set()  # games scored or archived
        self.audit_log: list[dict[str, Any]] = []
        self.quota_tables: dict[str, dict[str, str]] = {}
        self.quota_games: dict[str, dict[str, str]] = {}

    async def put_player(self, player: dict[str, Any], ttl_s: int) -> None:
        self.players[player["player_id"]] = copy.deepcopy(player)

    async def claim_handle(self, handle_key: str, player_id: str, ttl_s: int) -> bool:
        if handle_key in self.handles:  # SET NX: held, even by the same player
            return False
        self.handles[handle_key] = player_id
        return True

    async def load(self, table_id: str) -> lm.Table:
        raw = self.tables.get(table_id)
        if raw is None:
            raise LobbyError("lobby/not_found", NO_TABLE)
        return lm.Table.model_validate_json(raw)

    async def load_many(self, table_ids: list[str]) -> dict[str, lm.Table | None]:
        return {tid: lm.Table.model_validate_json(self.tables[tid]) if tid in self.tables
                else None for tid in table_ids}

    async def table_of_invite(self, code: str) -> str | None:
        return self.invites.get(code)

    async def create(self, t: lm.Table) -> None:
        self.tables[t.table_id] = t.model_dump_json()
        self.invites[t.invite] = t.table_id
        self.indexes[IDLE_TABLES][t.table_id] = tables.last_change(t)
        if tables.listed(t):
            self.indexes[OPEN_TABLES][t.table_id] = t.created_ms

    async def update(self, table_id: str, change: Callable[[lm.Table], lm.Table],
                     expire_s: int | Callable[[lm.Table], int]) -> lm.Table:
        before = await self.load(table_id)
        t = change(before)
        if t is before:
            return t
        self.tables[table_id] = t.model_dump_json()
        if tables.listed(t):
            self.indexes[OPEN_TABLES][t.table_id] = t.created_ms
        else:
            self.indexes[OPEN_TABLES].pop(t.table_id, None)
        if t.status == "open":
            self.indexes[IDLE_TABLES][t.table_id] = tables.last_change(t)
        else:
            self.indexes[IDLE_TABLES].pop(t.table_id, None)
        return t

    async def idle(self, before_ms: int, count: int = 100) -> list[str]:
        rows = sorted((s, m) for m, s in self.indexes[IDLE_TABLES].items() if s <= before_ms)
        return [m for _, m in rows[:count]]

    async def forget_idle(self, table_id: str) -> None:
        self.indexes[IDLE_TABLES].pop(table_id, None)
        self.indexes[OPEN_TABLES].pop(table_id, None)

    async def reindex_idle(self, t: lm.Table) -> None:
        self.indexes[IDLE_TABLES][t.table_id] = tables.last_change(t)

    async def newest(self, index: str, cursor: tuple[int, str] | None,
                     count: int) -> list[tuple[str, int]]:
        top = float("inf") if cursor is None else cursor[0]
        rows = sorted(((s, m) for m, s in self.indexes[index].items() if s <= top),
                      reverse=True)
        return [(m, s) for s, m in rows[:count]]

    async def unlist(self, index: str, members: list[str]) -> None:
        for m in members:
            self.indexes[index].pop(m, None)

    async def add_live(self, game_id: str, now_ms: int) -> None:
        self.indexes[LIVE_GAMES].setdefault(game_id, now_ms)

    async def drop_live_before(self, before_ms: int) -> None:
        live = self.indexes[LIVE_GAMES]
        for gid in [g for g, s in live.items() if s <= before_ms]:
            del live[gid]

    async def games_over(self, game_ids: list[str]) -> dict[str, bool | None]:
        return {gid: True if gid in self.over else (False if gid in self.metas else None)
                for gid in game_ids}

    async def put_meta(self, game_id: str, meta: dict[str, Any]) -> None:
        self.metas.setdefault(game_id, loads(dumps(meta)))

    async def get_meta(self, game_id: str) -> dict[str, Any] | None:
        meta = self.metas.get(game_id)
        return None if meta is None else copy.deepcopy(meta)

    async def change_meta(self, game_id: str,
                          change: Callable[[dict[str, Any]], dict[str, Any] | None]
                          ) -> dict[str, Any] | None:
        meta = self.metas.get(game_id)
        after = None if meta is None else change(copy.deepcopy(meta))
        if after is not None:
            self.metas[game_id] = loads(dumps(after))
        return after

    async def audit(self, entry: dict[str, Any], maxlen: int) -> None:
        self.audit_log.append({"id": f"{len(self.audit_log) + 1}-0", **loads(dumps(entry))})
        del self.audit_log[:max(0, len(self.audit_log) - maxlen)]

    async def audit_entries(self, limit: int) -> list[dict[str, Any]]:
        return copy.deepcopy(self.audit_log[::-1][:limit])

    async def reserve(self, player_id: str, op: str, table_id: str, now_ms: int,
                      limits: tuple[int, int, int], game_id: str = "", bots: int = 0,
                      turn_based: bool = False) -> str:
        held_t = self.quota_tables.setdefault(player_id, {})
        held_g = self.quota_games.setdefault(player_id, {})

        def bots_of(v: str) -> int:
            return int(v.split(":", 1)[0] or 0)

        max_tables, max_games, max_bots = limits
        if op == "table":
            if table_id in held_t:
                return ""
            if len(held_t) >= max_tables:
                return "open_tables"
            held_t[table_id] = f"0:{now_ms}"
        elif op == "bot":
            if sum(map(bots_of, [*held_t.values(), *held_g.values()])) + 1 > max_bots:
                return "bot_seats"
            v = held_t.get(table_id)
            since = v.split(":", 1)[1] if v else str(now_ms)
            held_t[table_id] = f"{(bots_of(v) if v else 0) + 1}:{since}"
        elif op == "unbot":
            v = held_t.get(table_id)
            if v and bots_of(v) > 0:
                held_t[table_id] = f"{bots_of(v) - 1}:{v.split(':', 1)[1]}"
        elif op == "start":
            if game_id in held_g:
                return ""
            if sum(1 for v in held_g.values() if v.endswith(":t") == turn_based) >= max_games:
                return "turn_based_games" if turn_based else "running_games"
            held_t.pop(table_id, None)
            held_g[game_id] = f"{bots}:{now_ms}" + (":t" if turn_based else "")
        elif op == "unstart":
            v = held_g.pop(game_id, None)
            if v is not None:
                held_t[table_id] = v.removesuffix(":t")
        elif op == "drop_table":
            held_t.pop(table_id, None)
        else:
            raise ValueError("unknown quota op")
        return ""

    async def reservations(self, player_id: str) -> tuple[dict[str, str], dict[str, str]]:
        return (dict(self.quota_tables.get(player_id, {})),
                dict(self.quota_games.get(player_id, {})))

    async def apply(self, player_id: str, fix: tables.Reconcile) -> None:
        held_t = self.quota_tables.setdefault(player_id, {})
        held_g = self.quota_games.setdefault(player_id, {})
        for tid in fix.drop_tables:
            held_t.pop(tid, None)
        for gid in fix.drop_games:
            held_g.pop(gid, None)
        held_t.update(fix.set_tables)


class FakeAccountsStore:
    """services/lobby/accounts/store.py: players, names, sessions (REFRESH_LUA's rotation
    and reuse rules), credentials, challenges and failure counts in dicts. Expiry is not
    modelled: ``ttl_s`` keeps the last TTL given per key name, for what a test checks."""

    def __init__(self, games: tuple[str, ...] = ()) -> None:
        self.players: dict[str, dict[str, Any]] = {}
        self.handles: dict[str, str] = {}  # normal name -> player id
        self.persistent: set[str] = set()  # player ids whose record and name do not expire
        self.sessions: dict[str, dict[str, str]] = {}
        self.index: dict[str, dict[str, int]] = {}  # player id -> session id -> created ms
        self.revoked: set[str] = set()
        self.announced: list[str] = []  # lobby:revoked, in order
        self.session_keys: dict[str, dict[str, int]] = {}
        self.creds: dict[str, dict[str, str]] = {}  # player id -> 'pw' | 'pk:<id>' -> value
        self.passkey_owners: dict[str, str] = {}
        self.challenges: dict[str, dict[str, str]] = {}
        self.fails: dict[str, int] = {}
        self.fail_windows: dict[str, int] = {}
        self.erased: set[str] = set()
        self.scores: dict[str, set[str]] = {g: set() for g in games}  # game -> rated players
        self.histories: set[str] = set()
        self.ttl_s: dict[str, int] = {}

    def add_player(self, p: dict[str, Any], normal_name: str) -> None:
        """What the lobby's store does at sign-up: the record and the held name."""
        self.players[p["player_id"]] = copy.deepcopy(p)
        self.handles[handles.key(normal_name)] = p["player_id"]

    async def player(self, pid: str) -> dict[str, Any] | None:
        p = self.players.get(pid)
        return copy.deepcopy(p) if p is not None else None

    async def put_player(self, p: dict[str, Any]) -> None:
        self.players[p["player_id"]] = loads(dumps(p))

    async def make_account(self, p: dict[str, Any]) -> None:
        self.players[p["player_id"]] = loads(dumps(p))
        self.persistent.add(p["player_id"])

    async def pid_of_name(self, normal: str) -> str | None:
        return self.handles.get(handles.key(normal))

    async def delete_player(self, pid: str, name: str, passkeys: list[str]) -> None:
        for c in passkeys:
            self.passkey_owners.pop(c, None)
        self.creds.pop(pid, None)
        self.players.pop(pid, None)
        self.index.pop(pid, None)
        self.handles.pop(handles.key(name), None)
        self.erased.add(pid)

    async def erase_scores(self, pid: str, games: list[str]) -> None:
        for game in games:
            self.scores.get(game, set()).discard(pid)
        self.histories.discard(pid)

    async def open_session(self, pid: str, sid: str, secret_hash: str, now_ms: int,
                           agent: str, ttl_s: int, index_ttl_s: int) -> None:
        self.sessions[sid] = {"pid": pid, "cur": secret_hash, "old": "",
                              "created_ms": str(now_ms), "used_ms": str(now_ms), "agent": agent}
        self.ttl_s[f"sess:{sid}"] = ttl_s
        self.index.setdefault(pid, {})[sid] = now_ms
        self.ttl_s[f"sessions:{pid}"] = index_ttl_s

    def _ordered(self, pid: str) -> list[str]:
        return [sid for sid, _ in sorted(self.index.get(pid, {}).items(),
                                         key=lambda kv: (kv[1], kv[0]))]

    async def sessions_beyond(self, pid: str, keep: int) -> list[str]:
        ids = self._ordered(pid)
        return ids[:max(0, len(ids) - keep)]

    async def session_ids(self, pid: str) -> list[str]:
        return self._ordered(pid)

    async def rotate(self, sid: str, presented: str, new: str, now_ms: int, ttl_s: int,
                     kept: int) -> tuple[str, str]:
        s = self.sessions.get(sid)
        if s is None:
            return "gone", ""
        if s["cur"] == presented:
            s["old"] = (presented + " " + s["old"])[:65 * kept]
            s.update(cur=new, used_ms=str(now_ms))
            self.ttl_s[f"sess:{sid}"] = ttl_s
            return "ok", s["pid"]
        if presented in s["old"]:
            return "reused", s["pid"]
        return "invalid", ""

    async def touch_session(self, sid: str, ttl_s: int, agent: str | None,
                            guest: tuple[str, str] | None = None) -> None:
        self.ttl_s[f"sess:{sid}"] = ttl_s
        if agent is not None and sid in self.sessions:
            self.sessions[sid]["agent"] = agent
        if guest is not None:
            self.ttl_s[f"player:{guest[0]}"] = ttl_s

    async def session_owner(self, sid: str) -> str | None:
        s = self.sessions.get(sid)
        return s["pid"] if s else None

    async def session_live(self, sid: str) -> bool:
        return sid not in self.revoked and sid in self.sessions

    async def session_rows(self, sids: list[str]) -> list[dict[str, str]]:
        return [dict(self.sessions.get(sid, {})) for sid in sids]

    async def forget_sessions(self, pid: str, sids: list[str]) -> None:
        for sid in sids:
            self.index.get(pid, {}).pop(sid, None)

    async def revoke(self, sid: str, pid: str | None, revoked_ttl_s: int) -> bool:
        gone = self.sessions.pop(sid, None)
        existed = gone is not None
        if pid:
            self.index.get(pid, {}).pop(sid, None)
            if gone and gone.get("skey"):
                self.session_keys.get(pid, {}).pop(gone["skey"], None)
        self.revoked.add(sid)
        self.ttl_s[f"rev:{sid}"] = revoked_ttl_s
        self.announced.append(sid)
        return existed

    async def register_session_key(self, pid: str, key: str, expires_ms: int,
                                   now_ms: int) -> None:
        held = self.session_keys.setdefault(pid, {})
        held[key] = max(expires_ms, held.get(key, 0))

    async def unregister_session_key(self, pid: str, key: str) -> None:
        self.session_keys.get(pid, {}).pop(key, None)

    async def bound_key(self, sid: str) -> str | None:
        return self.sessions.get(sid, {}).get("skey") or None

    async def bind_session_key(self, sid: str, expected: str, key: str) -> str | None:
        s = self.sessions.get(sid)
        if s is None:
            return None
        if s.get("skey", "") == expected:
            s["skey"] = key
        return s.get("skey") or None

    async def password_hash(self, pid: str) -> str | None:
        return self.creds.get(pid, {}).get("pw")

    async def set_password_hash(self, pid: str, hashed: str) -> None:
        self.creds.setdefault(pid, {})["pw"] = hashed

    async def failures(self, subject: str) -> int | None:
        return self.fails.get(subject)

    async def failures_ttl(self, subject: str) -> int:
        return self.fail_windows.get(subject, -2)

    async def count_failure(self, subject: str, window_s: int) -> None:
        self.fails[subject] = self.fails.get(subject, 0) + 1
        self.fail_windows.setdefault(subject, window_s)

    async def clear_failures(self, subject: str) -> None:
        self.fails.pop(subject, None)
        self.fail_windows.pop(subject, None)

    async def put_challenge(self, cid: str, data: dict[str, str], ttl_s: int) -> None:
        self.challenges[cid] = dict(data)
        self.ttl_s[f"chal:{cid}"] = ttl_s

    async def take_challenge(self, cid: str) -> dict[str, Any] | None:
        return self.challenges.pop(cid, None)

    async def credentials(self, pid: str) -> tuple[bool, dict[str, dict[str, Any]]]:
        rows = self.creds.get(pid, {})
        return "pw" in rows, {k[3:]: loads(v) for k, v in rows.items() if k.startswith("pk:")}

    async def passkeys(self, pid: str) -> dict[str, dict[str, Any]]:
        return (await self.credentials(pid))[1]

    async def claim_passkey(self, cred_id: str, pid: str) -> bool:
        if cred_id in self.passkey_owners:
            return False
        self.passkey_owners[cred_id] = pid
        return True

    async def passkey_owner(self, cred_id: str) -> str | None:
        return self.passkey_owners.get(cred_id)

    async def passkey(self, pid: str, cred_id: str) -> dict[str, Any] | None:
        raw = self.creds.get(pid, {}).get(f"pk:{cred_id}")
        return loads(raw) if raw is not None else None

    async def put_passkey(self, pid: str, cred_id: str, pk: dict[str, Any]) -> None:
        self.creds.setdefault(pid, {})[f"pk:{cred_id}"] = dumps(pk)


class FakeMyGamesStore:
    """services/lobby/mygames_store.py: each game's newest entry (by seq; at one seq the ended
    one), each player's games by last change (never moved back), cut to ``most``."""

    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Any]] = {}
        self.lists: dict[str, dict[str, int]] = {}
        self.erased: set[str] = set()  # lobby:erased (deleted accounts)
        self.sealed: dict[tuple[str, str], set[int]] = {}  # lobby:mg:sealed:<game>:<round>
        self.texts: dict[str, str] = {}  # an entry as ``replace`` wrote it (byte for byte)

    async def not_erased(self, players: list[str]) -> list[str]:
        return [p for p in players if p not in self.erased]

    async def record(self, turns: TurnsChanged, keep_ms: int) -> bool:
        cur = self.entries.get(turns.game_id)
        if cur is not None and (cur["seq"] > turns.seq or (
                cur["seq"] == turns.seq and (cur["ended"] or not turns.ended))):
            return False
        self.entries[turns.game_id] = turns.model_dump(mode="json")
        self.texts.pop(turns.game_id, None)
        return True

    async def add(self, players: list[str], game_id: str, at_ms: int, most: int,
                  keep_ms: int) -> None:
        for p in players:
            held = self.lists.setdefault(p, {})
            held[game_id] = max(at_ms, held.get(game_id, at_ms))
            for gone in sorted(held, key=lambda g: (held[g], g))[:max(0, len(held) - most)]:
                del held[gone]

    async def games_of(self, player_id: str, most: int) -> list[dict[str, Any]]:
        held = self.lists.get(player_id, {})
        ids = sorted(held, key=lambda g: (held[g], g), reverse=True)[:most]
        return [copy.deepcopy(self.entries[g]) for g in ids if g in self.entries]

    async def entry(self, game_id: str) -> str | None:
        cur = self.entries.get(game_id)
        return None if cur is None else self.texts.get(game_id, dumps(cur))

    async def replace(self, game_id: str, read: str, new: str) -> bool:
        if await self.entry(game_id) != read:
            return False
        self.entries[game_id] = loads(new)
        self.texts[game_id] = new
        return True

    async def mark_committed(self, game_id: str, round_id: str, seat: int,
                             keep_ms: int) -> None:
        self.sealed.setdefault((game_id, round_id), set()).add(seat)

    async def committed(self, game_id: str, round_id: str) -> set[int]:
        return set(self.sealed.get((game_id, round_id), set()))
