"""Accounts and sessions (issue #19): guests, accounts with a password and passkeys, refresh
sessions, privacy. Owned by the lobby; every key is under ``lobby:`` (ACL user ``lobby``).

A player is born a guest (``create_player``: one click, a session at once). Setting a
password or registering a passkey upgrades the same player to an account in place (same
player id: rating, history and running games stay): its record and name stop expiring.

Sessions. Signing in (guest, password or passkey) opens a session: a refresh token
``<session id>.<secret>`` whose secret is stored only as a SHA-256, and an access token
(shared/runtime/tokens.py, HMAC, EMPIRE_ACCESS_TTL_S, naming the session). ``refresh``
trades the refresh token for a new pair and spends the old one; presenting a spent one again
is theft (two holders of one token): the session is revoked (``auth/refresh_reused``).
Revoking a session (sign-out, the session list, reuse, suspension, deletion) deletes it,
leaves ``lobby:rev:<sid>`` for as long as its last access token can live (the gateway
refuses that token from then on) and publishes the session id on ``lobby:revoked`` (the
gateways close its WebSockets; they also re-check open sockets every
EMPIRE_REVOCATION_SWEEP_S). Refresh tokens are random and server-side, so rotating the
signing key (EMPIRE_SECRET_PREVIOUS) logs nobody out: the next refresh signs with the new key.

Keys:
- ``lobby:sess:<sid>`` HASH pid, cur (SHA-256 of the refresh secret), old (spent ones, newest
  first, bounded), created_ms, used_ms, agent; expires after EMPIRE_REFRESH_TTL_S unused.
- ``lobby:sessions:<pid>`` ZSET sid -> created ms (at most EMPIRE_SESSIONS_MAX).
- ``lobby:rev:<sid>`` a revoked session, read by the gateway (expires with the last token).
- ``lobby:cred:<pid>`` HASH ``pw`` -> argon2id hash, ``pk:<credential id>`` -> passkey JSON.
- ``lobby:pkid:<credential id>`` -> player id (passkey sign-in).
- ``lobby:chal:<id>`` a passkey challenge (EMPIRE_CHALLENGE_TTL_S, taken with GETDEL: once).
- ``lobby:fail:<sha256 of the name's key>`` failed sign-ins in the window.
- ``lobby:erased`` SET of deleted players' ids (the gateway shows their seats anonymized).

Deleting a player also removes its rows from the scoring service's ``rating:<game>``,
``lb:<game>`` and ``hist:<pid>`` (the ACL grants the lobby those keys for this).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import secrets
import time
from typing import Any

import orjson
import structlog
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from argon2.profiles import RFC_9106_LOW_MEMORY

from services.lobby.tables import LobbyError
from services.scoring.store import history_key, leaderboard_key, ratings_key
from shared.identity import handles
from shared.protocol import keys
from shared.protocol import lobby as lm
from shared.rules import registry
from shared.runtime import session_keys, tokens
from shared.runtime.jsonutil import dumps, loads, text
from shared.runtime.settings import Settings

log = structlog.get_logger("lobby")

REVOKED_CHANNEL = keys.LOBBY_REVOKED_CHANNEL
ERASED = keys.LOBBY_ERASED
OLD_KEPT = 50  # spent refresh hashes remembered per session (reuse detection)
MIN_PASSWORD = 8
BAD_CREDENTIALS = "wrong name or password"

HASHER = PasswordHasher.from_parameters(RFC_9106_LOW_MEMORY)  # argon2id

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


def now_ms() -> int:
    return int(time.time() * 1000)


def sha(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


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


def fail_key(name: str) -> str:
    return keys.lobby_failures(sha(handles.key(name)))


class Accounts:
    def __init__(self, settings: Settings, redis: Any) -> None:
        self.settings = settings
        self.redis = redis
        self._refresh = redis.register_script(REFRESH_LUA)
        self._dummy: str | None = None  # a hash to verify against when the name is unknown

    # -- players ------------------------------------------------------------------------

    async def player(self, pid: str) -> dict[str, Any] | None:
        raw = await self.redis.get(player_key(pid))
        return loads(raw) if raw else None  # type: ignore[no-any-return]

    async def _put_player(self, p: dict[str, Any]) -> None:
        if p.get("account"):
            await self.redis.set(player_key(p["player_id"]), dumps(p))
        else:
            await self.redis.set(player_key(p["player_id"]), dumps(p), keepttl=True)

    async def _upgrade(self, p: dict[str, Any]) -> dict[str, Any]:
        """A guest becomes an account in place: its record and its name stop expiring."""
        if p.get("account"):
            return p
        p = {**p, "account": True, "account_ms": now_ms()}
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(player_key(p["player_id"]), dumps(p))
            pipe.persist(handle_key(p["name"]))
            await pipe.execute()
        log.info("guest_upgraded", player_id=p["player_id"])
        return p

    async def _pid_of_name(self, name: str) -> str | None:
        try:
            normal = handles.normalize(name)
        except handles.BadName:
            return None
        raw = await self.redis.get(handle_key(normal))
        return text(raw) if raw else None

    def is_admin(self, p: dict[str, Any] | None) -> bool:
        if p is None:
            return False
        listed = self.settings.admin_names
        if p["player_id"] in listed:
            return True
        if not p.get("account") or p.get("bot"):
            return False
        mine = handles.key(p["name"])
        return any(handles.key(a) == mine for a in listed)

    # -- sessions -----------------------------------------------------------------------

    def access_token(self, pid: str, name: str, sid: str) -> tuple[str, int]:
        exp = now_ms() + self.settings.access_ttl_s * 1000
        return tokens.issue(self.settings.secret, pid, name, exp, session=sid), exp

    def _ttl(self, p: dict[str, Any]) -> int:
        if p.get("account"):
            return self.settings.refresh_ttl_s
        return min(self.settings.refresh_ttl_s, self.settings.token_ttl_s)

    async def open_session(self, p: dict[str, Any], agent: str) -> dict[str, Any]:
        """A new session for the player: its refresh and first access token."""
        pid = p["player_id"]
        sid = secrets.token_hex(12)
        secret = secrets.token_urlsafe(32)
        t = now_ms()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(session_key(sid), mapping={"pid": pid, "cur": sha(secret), "old": "",
                                                 "created_ms": t, "used_ms": t,
                                                 "agent": _agent(agent)})
            pipe.expire(session_key(sid), self._ttl(p))
            pipe.zadd(sessions_key(pid), {sid: t})
            pipe.expire(sessions_key(pid), self.settings.refresh_ttl_s)
            await pipe.execute()
        extra = await self.redis.zrange(sessions_key(pid), 0, -1 - self.settings.sessions_max)
        for old in extra:  # over the cap: the oldest sessions end
            await self.revoke(text(old), pid)
        token, exp = self.access_token(pid, p["name"], sid)
        return {"player_id": pid, "name": p["name"], "token": token, "access_expires_ms": exp,
                "refresh_token": f"{sid}.{secret}", "session_id": sid,
                "account": bool(p.get("account"))}

    async def refresh(self, req: lm.Refresh) -> dict[str, Any]:
        sid, _, secret = req.refresh_token.partition(".")
        if not sid or not secret or len(sid) > 64:
            raise LobbyError("auth/refresh_invalid", "no such refresh token")
        status, pid = await self._refresh(
            keys=[session_key(sid)],
            args=[sha(secret), sha(new := secrets.token_urlsafe(32)), now_ms(),
                  self.settings.refresh_ttl_s, OLD_KEPT])
        status, pid = text(status), text(pid)
        if status == "reused":
            await self.revoke(sid, pid)
            log.warning("refresh_reused", player_id=pid, session=sid[:6])
            raise LobbyError("auth/refresh_reused", "this refresh token was already used: the "
                             "session is revoked; sign in again")
        if status != "ok":
            raise LobbyError("auth/refresh_invalid", "no such refresh token")
        p = await self.player(pid)
        if p is None:
            await self.revoke(sid, pid)
            raise LobbyError("auth/refresh_invalid", "no such refresh token")
        if p.get("suspended"):
            await self.revoke(sid, pid)
            raise LobbyError("auth/suspended", "this player is suspended")
        ttl = self._ttl(p)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.expire(session_key(sid), ttl)
            if req.agent:
                pipe.hset(session_key(sid), "agent", _agent(req.agent))
            if not p.get("account"):  # a guest in use keeps its record and name
                pipe.expire(player_key(pid), ttl)
                pipe.expire(handle_key(p["name"]), ttl)
            await pipe.execute()
        token, exp = self.access_token(pid, p["name"], sid)
        return {"player_id": pid, "name": p["name"], "token": token, "access_expires_ms": exp,
                "refresh_token": f"{sid}.{new}", "session_id": sid,
                "account": bool(p.get("account"))}

    async def revoke(self, sid: str, pid: str | None = None) -> bool:
        """End a session: its refresh token stops, its access tokens are refused, its sockets
        close. True if it existed."""
        if pid is None:
            raw = await self.redis.hget(session_key(sid), "pid")
            pid = text(raw) if raw else None
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.delete(session_key(sid))
            if pid:
                pipe.zrem(sessions_key(pid), sid)
            pipe.set(revoked_key(sid), "1", ex=self.settings.access_ttl_s + 60)
            res = await pipe.execute()
        await self.redis.publish(REVOKED_CHANNEL, sid)
        log.info("session_revoked", player_id=pid, session=sid[:6])
        return bool(res[0])

    async def register_session_key(self, req: lm.RegisterSessionKey) -> dict[str, Any]:
        """Bind a session's public key to the player its token names (issue 20 item 4). The
        token is checked HERE (the lobby's own copy of the token key, its session not revoked,
        the player not suspended), never taken from the gateway's stamp, so writing the lobby's
        stream without a valid token binds no key. The key lives as long as the session can
        (a bot's seat token: until the token expires)."""
        t = now_ms()
        try:
            who = tokens.verify(self.settings.verify_secrets, req.token, t)
        except tokens.TokenError as exc:
            raise LobbyError(exc.code, str(exc)) from None
        if who.session and (await self.redis.exists(revoked_key(who.session))
                            or not await self.redis.exists(session_key(who.session))):
            raise LobbyError("auth/revoked_session", "this session was signed out or revoked")
        p = await self.player(who.player_id)
        if p is None:
            raise LobbyError("auth/revoked_session", "no such player (deleted or expired)")
        if p.get("suspended"):
            raise LobbyError("auth/suspended", "this player is suspended")
        expires = t + self._ttl(p) * 1000 if who.session else who.exp_ms
        await session_keys.register(self.redis, who.player_id, req.key, expires, t)
        log.info("session_key_registered", player_id=who.player_id, key=req.key[:8])
        return {"player_id": who.player_id, "key": req.key, "expires_ms": expires}

    async def revoke_all(self, pid: str) -> int:
        sids = [text(s) for s in await self.redis.zrange(sessions_key(pid), 0, -1)]
        for sid in sids:
            await self.revoke(sid, pid)
        return len(sids)

    async def sessions(self, pid: str, current: str) -> list[dict[str, Any]]:
        sids = [text(s) for s in await self.redis.zrange(sessions_key(pid), 0, -1)]
        if not sids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for sid in sids:
                pipe.hgetall(session_key(sid))
            rows = await pipe.execute()
        out, gone = [], []
        for sid, row in zip(sids, rows, strict=True):
            if not row:
                gone.append(sid)
                continue
            r = {text(k): text(v) for k, v in row.items()}
            out.append({"session_id": sid, "created_ms": int(r["created_ms"]),
                        "used_ms": int(r["used_ms"]), "agent": r.get("agent", ""),
                        "current": sid == current})
        if gone:
            await self.redis.zrem(sessions_key(pid), *gone)
        return out

    async def revoke_own(self, pid: str, sid: str) -> dict[str, Any]:
        owner = await self.redis.hget(session_key(sid), "pid")
        if owner is None or text(owner) != pid:  # someone else's looks like no session
            raise LobbyError("lobby/not_found", "no such session")
        await self.revoke(sid, pid)
        return {"revoked": sid}

    # -- passwords ----------------------------------------------------------------------

    async def set_password(self, req: lm.SetPassword) -> dict[str, Any]:
        p = await self._me(req.player_id)
        if not MIN_PASSWORD <= len(req.password) <= 256:
            raise LobbyError("auth/weak_password",
                             f"a password has at least {MIN_PASSWORD} characters")
        if req.password.casefold() == p["name"].casefold():
            raise LobbyError("auth/weak_password", "a password may not be the name")
        current = await self.redis.hget(cred_key(p["player_id"]), "pw")
        if current is not None and (req.current is None
                                    or not await _verify(text(current), req.current)):
            raise LobbyError("auth/bad_credentials", "the current password is needed "
                             "to change it")
        hashed = await asyncio.to_thread(HASHER.hash, req.password)
        await self.redis.hset(cred_key(p["player_id"]), "pw", hashed)
        p = await self._upgrade(p)
        log.info("password_set", player_id=p["player_id"], changed=current is not None)
        return {"player_id": p["player_id"], "name": p["name"], "account": True}

    async def password_sign_in(self, req: lm.PasswordSignIn) -> dict[str, Any]:
        """The same refusal, and about the same work, whether the name is unknown, a guest's,
        or the password is wrong; failures per name are counted in a window."""
        fails = fail_key(req.name) if _valid(req.name) else keys.lobby_failures(sha(req.name))
        count = await self.redis.get(fails)
        if count is not None and int(count) >= self.settings.signin_fail_max:
            ttl = max(1, int(await self.redis.ttl(fails)))
            raise LobbyError("auth/rate_limited", f"too many failed sign-ins for this name; "
                             f"retry in {ttl} s")
        pid = await self._pid_of_name(req.name)
        p = await self.player(pid) if pid else None
        stored = await self.redis.hget(cred_key(p["player_id"]), "pw") \
            if p and p.get("account") else None
        ok = await _verify(text(stored) if stored else await self._dummy_hash(), req.password)
        if not (ok and stored and p):
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.incr(fails)
                pipe.expire(fails, self.settings.signin_fail_window_s, nx=True)
                await pipe.execute()
            log.info("sign_in_refused", method="password")
            raise LobbyError("auth/bad_credentials", BAD_CREDENTIALS)
        await self.redis.delete(fails)
        if p.get("suspended"):
            raise LobbyError("auth/suspended", "this player is suspended")
        if HASHER.check_needs_rehash(text(stored)):
            await self.redis.hset(cred_key(p["player_id"]), "pw",
                                  await asyncio.to_thread(HASHER.hash, req.password))
        log.info("signed_in", player_id=p["player_id"], method="password")
        return await self.open_session(p, req.agent)

    async def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = await asyncio.to_thread(HASHER.hash, secrets.token_urlsafe(16))
        return self._dummy

    # -- passkeys (WebAuthn) ------------------------------------------------------------

    async def _challenge(self, kind: str, pid: str, challenge: bytes) -> str:
        cid = secrets.token_urlsafe(18)
        await self.redis.set(challenge_key(cid), dumps({"kind": kind, "pid": pid,
                                                        "challenge": b64url(challenge)}),
                             ex=self.settings.challenge_ttl_s)
        return cid

    async def _take_challenge(self, cid: str, kind: str, pid: str) -> bytes:
        raw = await self.redis.getdel(challenge_key(cid))
        data = loads(raw) if raw else None
        if not data or data.get("kind") != kind or data.get("pid") != pid:
            raise LobbyError("auth/bad_challenge", "this passkey challenge expired or was "
                             "used; start again")
        return unb64url(data["challenge"])

    async def _passkeys(self, pid: str) -> dict[str, dict[str, Any]]:
        rows = await self.redis.hgetall(cred_key(pid))
        return {text(k)[3:]: loads(v) for k, v in rows.items() if text(k).startswith("pk:")}

    async def passkey_register_begin(self, req: lm.PasskeyRegisterBegin) -> dict[str, Any]:
        from webauthn import generate_registration_options, options_to_json
        from webauthn.helpers.structs import (
            AuthenticatorSelectionCriteria,
            PublicKeyCredentialDescriptor,
            ResidentKeyRequirement,
            UserVerificationRequirement,
        )

        p = await self._me(req.player_id)
        have = await self._passkeys(p["player_id"])
        opts = generate_registration_options(
            rp_id=self.settings.webauthn_rp_id, rp_name=self.settings.webauthn_rp_name,
            user_name=p["name"], user_id=p["player_id"].encode(), user_display_name=p["name"],
            timeout=self.settings.challenge_ttl_s * 1000,
            exclude_credentials=[PublicKeyCredentialDescriptor(id=unb64url(c)) for c in have],
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED))
        cid = await self._challenge("register", p["player_id"], opts.challenge)
        return {"challenge_id": cid, "options": orjson.loads(options_to_json(opts))}

    async def passkey_register_finish(self, req: lm.PasskeyRegisterFinish) -> dict[str, Any]:
        from webauthn import verify_registration_response

        p = await self._me(req.player_id)
        challenge = await self._take_challenge(req.challenge_id, "register", p["player_id"])
        try:
            done = verify_registration_response(
                credential=dict(req.credential), expected_challenge=challenge,
                expected_rp_id=self.settings.webauthn_rp_id,
                expected_origin=self.settings.passkey_origins)
        except Exception as exc:  # the library's InvalidRegistrationResponse and parse errors
            log.info("passkey_refused", step="register", error=type(exc).__name__)
            raise LobbyError("auth/passkey_failed", "the passkey's answer did not verify: "
                             + str(exc)[:120]) from None
        cred_id = b64url(done.credential_id)
        if not await self.redis.set(passkey_key(cred_id), p["player_id"], nx=True):
            raise LobbyError("auth/passkey_failed", "this passkey is already registered")
        await self.redis.hset(cred_key(p["player_id"]), f"pk:{cred_id}", dumps({
            "public_key": b64url(done.credential_public_key), "sign_count": done.sign_count,
            "created_ms": now_ms(), "used_ms": 0, "label": req.label or "passkey"}))
        p = await self._upgrade(p)
        log.info("passkey_registered", player_id=p["player_id"])
        return {"credential_id": cred_id, "player_id": p["player_id"], "account": True}

    async def passkey_sign_in_begin(self, req: lm.PasskeySignInBegin) -> dict[str, Any]:
        from webauthn import generate_authentication_options, options_to_json
        from webauthn.helpers.structs import (
            PublicKeyCredentialDescriptor,
            UserVerificationRequirement,
        )

        allow: list[PublicKeyCredentialDescriptor] = []
        if req.name:  # the account's passkeys (none for an unknown name: the same answer)
            pid = await self._pid_of_name(req.name)
            if pid:
                allow = [PublicKeyCredentialDescriptor(id=unb64url(c))
                         for c in await self._passkeys(pid)]
        opts = generate_authentication_options(
            rp_id=self.settings.webauthn_rp_id, allow_credentials=allow,
            timeout=self.settings.challenge_ttl_s * 1000,
            user_verification=UserVerificationRequirement.PREFERRED)
        cid = await self._challenge("sign_in", "", opts.challenge)
        return {"challenge_id": cid, "options": orjson.loads(options_to_json(opts))}

    async def passkey_sign_in_finish(self, req: lm.PasskeySignInFinish) -> dict[str, Any]:
        from webauthn import verify_authentication_response

        challenge = await self._take_challenge(req.challenge_id, "sign_in", "")
        cred_id = req.credential.get("id")
        raw_pid = await self.redis.get(passkey_key(cred_id)) \
            if isinstance(cred_id, str) and 0 < len(cred_id) <= 1400 else None
        pid = text(raw_pid) if raw_pid else ""
        stored = await self.redis.hget(cred_key(pid), f"pk:{cred_id}") if pid else None
        p = await self.player(pid) if stored else None
        if p is None or stored is None:
            log.info("sign_in_refused", method="passkey")
            raise LobbyError("auth/bad_credentials", "this passkey is not known here")
        pk = loads(stored)
        try:
            done = verify_authentication_response(
                credential=dict(req.credential), expected_challenge=challenge,
                expected_rp_id=self.settings.webauthn_rp_id,
                expected_origin=self.settings.passkey_origins,
                credential_public_key=unb64url(pk["public_key"]),
                credential_current_sign_count=int(pk["sign_count"]))
        except Exception as exc:
            log.info("passkey_refused", step="sign_in", error=type(exc).__name__)
            raise LobbyError("auth/passkey_failed", "the passkey's answer did not verify: "
                             + str(exc)[:120]) from None
        handle = _user_handle(req.credential)
        if handle is not None and handle != pid.encode():
            raise LobbyError("auth/passkey_failed", "the passkey names another user")
        await self.redis.hset(cred_key(pid), f"pk:{cred_id}", dumps(
            {**pk, "sign_count": done.new_sign_count, "used_ms": now_ms()}))
        if p.get("suspended"):
            raise LobbyError("auth/suspended", "this player is suspended")
        log.info("signed_in", player_id=pid, method="passkey")
        return await self.open_session(p, req.agent)

    # -- profile, export, deletion ------------------------------------------------------

    async def _me(self, pid: str) -> dict[str, Any]:
        p = await self.player(pid) if pid else None
        if p is None or p.get("bot"):
            raise LobbyError("auth/revoked_session", "no such player (deleted or expired)")
        return p

    async def me(self, req: lm.Me) -> dict[str, Any]:
        p = await self._me(req.player_id)
        creds = await self.redis.hgetall(cred_key(p["player_id"]))
        keys = await self._passkeys(p["player_id"])
        return {"player_id": p["player_id"], "name": p["name"],
                "account": bool(p.get("account")), "password": b"pw" in creds,
                "passkeys": [{"credential_id": c, "label": k.get("label", ""),
                              "created_ms": k.get("created_ms"), "used_ms": k.get("used_ms")}
                             for c, k in keys.items()],
                "admin": self.is_admin(p), "session_id": req.session,
                "created_ms": p.get("created_ms")}

    async def export(self, req: lm.ExportData) -> dict[str, Any]:
        """What the lobby holds about the player (the gateway adds ratings and history)."""
        me = await self.me(lm.Me(player_id=req.player_id, session=req.session))
        p = await self._me(req.player_id)
        profile = {k: v for k, v in p.items() if k in ("player_id", "name", "created_ms",
                                                       "account", "account_ms",
                                                       "suspended")}
        return {"profile": profile, "password": me["password"], "passkeys": me["passkeys"],
                "sessions": await self.sessions(p["player_id"], req.session)}

    async def delete(self, req: lm.DeleteAccount) -> dict[str, Any]:
        p = await self._me(req.player_id)
        if req.confirm != p["name"]:
            raise LobbyError("lobby/bad_request", "confirm with the player's name")
        pid = p["player_id"]
        keys = await self._passkeys(pid)
        await self.revoke_all(pid)
        async with self.redis.pipeline(transaction=False) as pipe:
            for c in keys:
                pipe.delete(passkey_key(c))
            pipe.delete(cred_key(pid), player_key(pid), sessions_key(pid))
            pipe.delete(handle_key(p["name"]))  # the name is free again
            pipe.sadd(ERASED, pid)
            await pipe.execute()
        await self._erase_scores(pid)
        log.info("player_deleted", player_id=pid)
        return {"deleted": pid}

    async def _erase_scores(self, pid: str) -> None:
        """The player's rating rows, leaderboard places and game history go (the scoring
        service's keys, one command each; the other seats' ratings and every game's record
        stay). The gateway also leaves out of the leaderboard and the history whatever a game
        that ends after this rates (services/gateway/fanout/erased.py)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for game in registry.names():
                pipe.hdel(ratings_key(game), pid)
                pipe.zrem(leaderboard_key(game), pid)
            pipe.delete(history_key(pid))
            await pipe.execute()

    # -- admin: suspension --------------------------------------------------------------

    async def suspend(self, target: str, reason: str, on: bool) -> dict[str, Any]:
        p = await self.player(target)
        if p is None:
            raise LobbyError("lobby/not_found", "no such player")
        p = {**p, "suspended": on, "suspended_reason": reason if on else ""}
        await self._put_player(p)
        revoked = await self.revoke_all(target) if on else 0
        return {"player_id": target, "suspended": on, "sessions_revoked": revoked}

    async def is_suspended(self, pid: str) -> bool:
        p = await self.player(pid)
        return bool(p and p.get("suspended"))


def _agent(ua: str) -> str:
    return "".join(c for c in ua if c.isprintable())[:80]


def _valid(name: str) -> bool:
    try:
        handles.normalize(name)
    except handles.BadName:
        return False
    return True


async def _verify(hashed: str, password: str) -> bool:
    try:
        return bool(await asyncio.to_thread(HASHER.verify, hashed, password))
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def _user_handle(credential: dict[str, Any]) -> bytes | None:
    resp = credential.get("response")
    handle = resp.get("userHandle") if isinstance(resp, dict) else None
    if not isinstance(handle, str) or not handle:
        return None
    try:
        return unb64url(handle)
    except (ValueError, TypeError):
        return b""
