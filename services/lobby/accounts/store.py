"""The accounts' Redis adapter: every key of the players' records, sessions, credentials,
passkey challenges and sign-in failures (all under ``lobby:``, ACL user ``lobby``), and the
scoring rows a deleted player leaves. The adapter of services/lobby/ports.py
``AccountsStorePort``; tests/support/fakes ``FakeAccountsStore`` answers the same
(tests/integration/test_store_contracts.py).

Keys:
- ``lobby:player:<pid>`` the player's record (a guest's expires; an account's does not).
- ``lobby:handle:<sha256 of the name's key>`` -> player id (a guest's expires with it).
- ``lobby:sess:<sid>`` HASH pid, cur (SHA-256 of the refresh secret), old (spent ones, newest
  first, bounded), created_ms, used_ms, agent, skey (the session key bound to it, hex);
  expires after EMPIRE_REFRESH_TTL_S unused.
- ``lobby:skey:<pid>`` the player's registered session keys (shared/runtime/session_keys.py):
  a session's bound key is withdrawn from it when the session is revoked.
- ``lobby:sessions:<pid>`` ZSET sid -> created ms (at most EMPIRE_SESSIONS_MAX).
- ``lobby:rev:<sid>`` a revoked session, read by the gateway (expires with the last token).
- ``lobby:cred:<pid>`` HASH ``pw`` -> argon2id hash, ``pk:<credential id>`` -> passkey JSON.
- ``lobby:pkid:<sha256 of the credential id>`` -> player id (passkey sign-in).
- ``lobby:chal:<id>`` a passkey challenge (EMPIRE_CHALLENGE_TTL_S, taken with GETDEL: once).
- ``lobby:fail:<sha256 of a failure count>`` failed sign-ins in the window (per name and
  address, per address, per name: core.py ``failure_counts``).
- ``lobby:erased`` SET of deleted players' ids (the gateway shows their seats anonymized).
- the scoring service's ``rating:<game>``, ``lb:<game>`` and ``hist:<pid>`` (the ACL grants the
  lobby those keys to remove a deleted player's rows).
"""

from __future__ import annotations

from typing import Any, cast

from services.lobby.accounts.core import sha
from shared.identity import handles
from shared.protocol import keys
from shared.runtime import session_keys
from shared.runtime.jsonutil import dumps, loads, text
from shared.runtime.redis import Client

REVOKED_CHANNEL = keys.LOBBY_REVOKED_CHANNEL
ERASED = keys.LOBBY_ERASED

# KEYS[1] the session; ARGV: presented hash, new hash, now ms, ttl s, spent hashes kept
REFRESH_LUA = """
local cur = redis.call('HGET', KEYS[1], 'cur')
if not cur then return {'gone', ''} end
local pid = redis.call('HGET', KEYS[1], 'pid')
local old = redis.call('HGET', KEYS[1], 'old') or ''
if cur == ARGV[1] then
  old = string.sub(ARGV[1] .. ' ' .. old, 1, 65 * tonumber(ARGV[5]))
  redis.call('HSET', KEYS[1], 'cur', ARGV[2], 'old', old, 'used_ms', ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  return {'ok', pid}
end
if string.find(old, ARGV[1], 1, true) then return {'reused', pid} end
return {'invalid', ''}
"""

# KEYS[1] the session; ARGV: the key expected bound now ('' for none), the key to bind.
# Returns the key bound afterwards (false: no such session)
BIND_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local cur = redis.call('HGET', KEYS[1], 'skey') or ''
if cur == ARGV[1] then
  redis.call('HSET', KEYS[1], 'skey', ARGV[2])
  return ARGV[2]
end
return cur
"""


def player_key(pid: str) -> str:
    return keys.lobby_player(pid)


def handle_key(name: str) -> str:
    return keys.lobby_handle(sha(handles.key(name)))


def session_key(sid: str) -> str:
    return keys.lobby_session(sid)


def sessions_key(pid: str) -> str:
    return keys.lobby_sessions(pid)


def revoked_key(sid: str) -> str:
    return keys.lobby_revoked(sid)


def cred_key(pid: str) -> str:
    return keys.lobby_credentials(pid)


def passkey_key(cid: str) -> str:
    return keys.lobby_passkey(sha(cid))


def challenge_key(cid: str) -> str:
    return keys.lobby_challenge(cid)


def fail_key(subject: str) -> str:
    return keys.lobby_failures(sha(subject))


class AccountsStore:
    def __init__(self, redis: Client) -> None:
        self.redis = redis
        self._refresh = redis.register_script(REFRESH_LUA)
        self._bind = redis.register_script(BIND_LUA)

    # -- players ------------------------------------------------------------------------

    async def player(self, pid: str) -> dict[str, Any] | None:
        raw = await self.redis.get(player_key(pid))
        return loads(raw) if raw else None  # type: ignore[no-any-return]

    async def put_player(self, p: dict[str, Any]) -> None:
        """An account's record is kept; a guest's keeps its expiry."""
        if p.get("account"):
            await self.redis.set(player_key(p["player_id"]), dumps(p))
        else:
            await self.redis.set(player_key(p["player_id"]), dumps(p), keepttl=True)

    async def make_account(self, p: dict[str, Any]) -> None:
        """Store the upgraded record; it and the player's name stop expiring."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(player_key(p["player_id"]), dumps(p))
            pipe.persist(handle_key(p["name"]))
            await pipe.execute()

    async def pid_of_name(self, normal: str) -> str | None:
        raw = await self.redis.get(handle_key(normal))
        return text(raw) if raw else None

    async def delete_player(self, pid: str, name: str, passkeys: list[str]) -> None:
        """The player's record, credentials, passkeys, session index and "My games" list go,
        its name is free again and its id is listed as erased."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for c in passkeys:
                pipe.delete(passkey_key(c))
            pipe.delete(cred_key(pid), player_key(pid), sessions_key(pid),
                        keys.lobby_my_games(pid))
            pipe.delete(handle_key(name))
            pipe.sadd(ERASED, pid)
            await pipe.execute()

    async def erase_scores(self, pid: str, games: list[str]) -> None:
        """The player's rating rows, leaderboard places and game history (the scoring
        service's keys, one command each; the other seats' ratings and every game's record
        stay)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for game in games:
                pipe.hdel(keys.ratings(game), pid)
                pipe.zrem(keys.leaderboard(game), pid)
            pipe.delete(keys.player_history(pid))
            await pipe.execute()

    # -- sessions -----------------------------------------------------------------------

    async def open_session(self, pid: str, sid: str, secret_hash: str, now_ms: int,
                           agent: str, ttl_s: int, index_ttl_s: int) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(session_key(sid), mapping={"pid": pid, "cur": secret_hash, "old": "",
                                                 "created_ms": now_ms, "used_ms": now_ms,
                                                 "agent": agent})
            pipe.expire(session_key(sid), ttl_s)
            pipe.zadd(sessions_key(pid), {sid: now_ms})
            pipe.expire(sessions_key(pid), index_ttl_s)
            await pipe.execute()

    async def sessions_beyond(self, pid: str, keep: int) -> list[str]:
        """The player's session ids but the newest ``keep``, oldest first."""
        return [text(s) for s in await self.redis.zrange(sessions_key(pid), 0, -1 - keep)]

    async def session_ids(self, pid: str) -> list[str]:
        return [text(s) for s in await self.redis.zrange(sessions_key(pid), 0, -1)]

    async def rotate(self, sid: str, presented: str, new: str, now_ms: int, ttl_s: int,
                     kept: int) -> tuple[str, str]:
        """REFRESH_LUA: (ok | reused | gone | invalid, the session's player id or '')."""
        status, pid = await self._refresh(keys=[session_key(sid)],
                                          args=[presented, new, now_ms, ttl_s, kept])
        return text(status), text(pid)

    async def touch_session(self, sid: str, ttl_s: int, agent: str | None,
                            guest: tuple[str, str] | None = None) -> None:
        """A refreshed session lives ``ttl_s`` more (``agent`` when it names a new one); a
        ``guest`` (player id, name) in use keeps its record and name as long."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.expire(session_key(sid), ttl_s)
            if agent is not None:
                pipe.hset(session_key(sid), "agent", agent)
            if guest is not None:
                pipe.expire(player_key(guest[0]), ttl_s)
                pipe.expire(handle_key(guest[1]), ttl_s)
            await pipe.execute()

    async def session_owner(self, sid: str) -> str | None:
        raw = await self.redis.hget(session_key(sid), "pid")
        return text(raw) if raw else None

    async def session_live(self, sid: str) -> bool:
        """Not revoked and not expired."""
        return not (await self.redis.exists(revoked_key(sid))
                    or not await self.redis.exists(session_key(sid)))

    async def session_rows(self, sids: list[str]) -> list[dict[str, str]]:
        """Each session's fields, in ``sids``' order ({} for one that expired)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for sid in sids:
                pipe.hgetall(session_key(sid))
            rows = cast(list[dict[bytes, bytes]], await pipe.execute())
        return [{text(k): text(v) for k, v in row.items()} for row in rows]

    async def forget_sessions(self, pid: str, sids: list[str]) -> None:
        await self.redis.zrem(sessions_key(pid), *sids)

    async def revoke(self, sid: str, pid: str | None, revoked_ttl_s: int) -> bool:
        """Delete the session, mark it revoked for ``revoked_ttl_s`` (the gateway refuses its
        access tokens) and announce it on ``lobby:revoked`` (the gateways close its sockets).
        True if it existed."""
        bound = await self.bound_key(sid)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.delete(session_key(sid))
            if pid:
                pipe.zrem(sessions_key(pid), sid)
                if bound:  # its key signs nothing more
                    pipe.hdel(keys.lobby_session_keys(pid), bound)
            pipe.set(revoked_key(sid), "1", ex=revoked_ttl_s)
            res = await pipe.execute()
        await self.redis.publish(REVOKED_CHANNEL, sid)
        return bool(res[0])

    async def register_session_key(self, pid: str, key: str, expires_ms: int,
                                   now_ms: int) -> None:
        await session_keys.register(self.redis, pid, key, expires_ms, now_ms)

    async def unregister_session_key(self, pid: str, key: str) -> None:
        await session_keys.unregister(self.redis, pid, key)

    async def bound_key(self, sid: str) -> str | None:
        """The session key bound to the session (None: none yet, or no such session)."""
        raw = await self.redis.hget(session_key(sid), "skey")
        return text(raw) if raw else None

    async def bind_session_key(self, sid: str, expected: str, key: str) -> str | None:
        """BIND_LUA: bind ``key`` to the session if ``expected`` ('' for none) is bound now;
        the key bound afterwards either way (None: no such session)."""
        raw = await self._bind(keys=[session_key(sid)], args=[expected, key])
        return text(raw) if raw else None

    # -- passwords and failures ---------------------------------------------------------

    async def password_hash(self, pid: str) -> str | None:
        raw = await self.redis.hget(cred_key(pid), "pw")
        return text(raw) if raw is not None else None

    async def set_password_hash(self, pid: str, hashed: str) -> None:
        await self.redis.hset(cred_key(pid), "pw", hashed)

    async def failures(self, subject: str) -> int | None:
        """The failed sign-ins counted under ``subject`` in its window (None: none)."""
        raw = await self.redis.get(fail_key(subject))
        return None if raw is None else int(raw)

    async def failures_ttl(self, subject: str) -> int:
        """The seconds left in ``subject``'s failure window."""
        return int(await self.redis.ttl(fail_key(subject)))

    async def count_failure(self, subject: str, window_s: int) -> None:
        """One more failure; the window starts at the first."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.incr(fail_key(subject))
            pipe.expire(fail_key(subject), window_s, nx=True)
            await pipe.execute()

    async def clear_failures(self, subject: str) -> None:
        await self.redis.delete(fail_key(subject))

    # -- passkeys -----------------------------------------------------------------------

    async def put_challenge(self, cid: str, data: dict[str, str], ttl_s: int) -> None:
        await self.redis.set(challenge_key(cid), dumps(data), ex=ttl_s)

    async def take_challenge(self, cid: str) -> dict[str, Any] | None:
        """The challenge, once (GETDEL)."""
        raw = await self.redis.getdel(challenge_key(cid))
        return loads(raw) if raw else None  # type: ignore[no-any-return]

    async def credentials(self, pid: str) -> tuple[bool, dict[str, dict[str, Any]]]:
        """(whether the player has a password, its passkeys by credential id)."""
        rows = cast(dict[bytes, bytes], await self.redis.hgetall(cred_key(pid)))
        return b"pw" in rows, {text(k)[3:]: loads(v) for k, v in rows.items()
                               if text(k).startswith("pk:")}

    async def passkeys(self, pid: str) -> dict[str, dict[str, Any]]:
        return (await self.credentials(pid))[1]

    async def claim_passkey(self, cred_id: str, pid: str) -> bool:
        """Bind a credential id to its player, unless it is bound already."""
        return bool(await self.redis.set(passkey_key(cred_id), pid, nx=True))

    async def passkey_owner(self, cred_id: str) -> str | None:
        raw = await self.redis.get(passkey_key(cred_id))
        return text(raw) if raw else None

    async def passkey(self, pid: str, cred_id: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(cred_key(pid), f"pk:{cred_id}")
        return loads(raw) if raw is not None else None  # type: ignore[no-any-return]

    async def put_passkey(self, pid: str, cred_id: str, pk: dict[str, Any]) -> None:
        await self.redis.hset(cred_key(pid), f"pk:{cred_id}", dumps(pk))
