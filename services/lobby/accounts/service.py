"""The accounts' shell: each operation reads through the store (services/lobby/accounts/
store.py behind services/lobby/ports.py ``AccountsStorePort``), decides with the rules
(services/lobby/accounts/core.py), hashes and verifies passwords (argon2id, in a thread) and
passkey answers (webauthn), and writes back. The lobby relays the gateway's account requests
here (services/lobby/service.py); what it all means is services/lobby/accounts/__init__.py."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

import orjson
import structlog
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from argon2.profiles import RFC_9106_LOW_MEMORY

from services.lobby.accounts import core
from services.lobby.accounts.core import sha
from services.lobby.ports import AccountsStorePort
from services.lobby.tables import LobbyError
from shared.protocol import lobby as lm
from shared.rules import registry
from shared.runtime import session_keys, tokens
from shared.runtime.settings import Settings

log = structlog.get_logger("lobby")

HASHER = PasswordHasher.from_parameters(RFC_9106_LOW_MEMORY)  # argon2id


def now_ms() -> int:
    return int(time.time() * 1000)


async def verify_password(hashed: str, password: str) -> bool:
    try:
        return bool(await asyncio.to_thread(HASHER.verify, hashed, password))
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


class Accounts:
    def __init__(self, settings: Settings, store: AccountsStorePort) -> None:
        self.settings = settings
        self.store = store
        self._dummy: str | None = None  # a hash to verify against when the name is unknown

    # -- players ------------------------------------------------------------------------

    async def player(self, pid: str) -> dict[str, Any] | None:
        return await self.store.player(pid)

    async def _upgrade(self, p: dict[str, Any]) -> dict[str, Any]:
        """A guest becomes an account in place: its record and its name stop expiring."""
        if p.get("account"):
            return p
        p = core.upgraded(p, now_ms())
        await self.store.make_account(p)
        log.info("guest_upgraded", player_id=p["player_id"])
        return p

    async def _pid_of_name(self, name: str) -> str | None:
        normal = core.normal_name(name)
        return await self.store.pid_of_name(normal) if normal is not None else None

    def is_admin(self, p: dict[str, Any] | None) -> bool:
        return core.is_admin(p, self.settings.admin_names)

    async def _me(self, pid: str) -> dict[str, Any]:
        return core.check_known(await self.player(pid) if pid else None)

    # -- sessions -----------------------------------------------------------------------

    def access_token(self, pid: str, name: str, sid: str) -> tuple[str, int]:
        exp = now_ms() + self.settings.access_ttl_s * 1000
        return tokens.issue(self.settings.signing_key, pid, name, exp, session=sid), exp

    def _ttl(self, p: dict[str, Any]) -> int:
        return core.session_ttl_s(p, self.settings.refresh_ttl_s, self.settings.token_ttl_s)

    async def open_session(self, p: dict[str, Any], agent: str) -> dict[str, Any]:
        """A new session for the player: its refresh and first access token."""
        pid = p["player_id"]
        sid = secrets.token_hex(12)
        secret = secrets.token_urlsafe(32)
        await self.store.open_session(pid, sid, sha(secret), now_ms(), core.agent(agent),
                                      self._ttl(p), self.settings.refresh_ttl_s)
        for old in await self.store.sessions_beyond(pid, self.settings.sessions_max):
            await self.revoke(old, pid)  # over the cap: the oldest sessions end
        token, exp = self.access_token(pid, p["name"], sid)
        return core.session_answer(p, sid, secret, token, exp)

    async def refresh(self, req: lm.Refresh) -> dict[str, Any]:
        """Trade a refresh token for a new pair; presenting a spent one again ends the
        session (two holders of one token)."""
        sid, secret = core.split_refresh_token(req.refresh_token)
        new = secrets.token_urlsafe(32)
        found = core.Rotation(*await self.store.rotate(sid, sha(secret), sha(new), now_ms(),
                                                      self.settings.refresh_ttl_s,
                                                      core.OLD_KEPT))
        if found.revoke:
            await self.revoke(sid, found.player_id)
            log.warning("refresh_reused", player_id=found.player_id, session=sid[:6])
        pid = found.check()
        p = await self.player(pid)
        if p is None:
            await self.revoke(sid, pid)
            raise LobbyError("auth/refresh_invalid", "no such refresh token")
        if p.get("suspended"):
            await self.revoke(sid, pid)
            core.check_not_suspended(p)
        ttl = self._ttl(p)
        await self.store.touch_session(sid, ttl, core.agent(req.agent) if req.agent else None,
                                       None if p.get("account") else (pid, p["name"]))
        bound = await self.store.bound_key(sid)
        if bound:  # the session's key lives as long as the session
            t = now_ms()
            await self.store.register_session_key(
                pid, bound, core.session_key_expiry_ms(t, ttl, sid, 0), t)
        token, exp = self.access_token(pid, p["name"], sid)
        return core.session_answer(p, sid, new, token, exp)

    async def revoke(self, sid: str, pid: str | None = None) -> bool:
        """End a session: its refresh token stops, its access tokens are refused, its sockets
        close. True if it existed."""
        if pid is None:
            pid = await self.store.session_owner(sid)
        existed = await self.store.revoke(sid, pid, self.settings.access_ttl_s + 60)
        log.info("session_revoked", player_id=pid, session=sid[:6])
        return existed

    async def register_session_key(self, req: lm.RegisterSessionKey) -> dict[str, Any]:
        """Bind a session's public key to the session and player its token names. The token
        is checked here (its signature, its session live and the player's, the player not
        suspended), never taken from the gateway's stamp, so writing the lobby's stream
        without a valid token binds no key. A session's first key binds to it; a later one
        replaces it only with the current key's signature (``proof``), so whoever sees a
        player's access token in transit still cannot bring a key of their own. A bot's seat
        token (no session) registers keys for its bot only."""
        t = now_ms()
        try:
            who = tokens.verify(self.settings.token_verify_keys, req.token, t)
        except tokens.TokenError as exc:
            raise LobbyError(exc.code, str(exc)) from None
        p = await self.player(who.player_id)
        if p is None:
            raise LobbyError("auth/revoked_session", "no such player (deleted or expired)")
        core.check_not_suspended(p)
        pid = who.player_id
        if not who.session:
            core.check_bot_seat_token(p)
            await self.store.register_session_key(pid, req.key, who.exp_ms, t)
            return {"player_id": pid, "key": req.key, "expires_ms": who.exp_ms}
        sid = who.session
        if await self.store.session_owner(sid) != pid or not await self.store.session_live(sid):
            raise LobbyError("auth/revoked_session", "this session was signed out or revoked")
        bound = await self.store.bound_key(sid) or ""
        proof_ok = bool(bound and req.proof and session_keys.verify(
            bound, req.proof, session_keys.rekey_message(sid, req.key)))
        if not core.rekey_allowed(bound, req.key, proof_ok):
            raise core.key_refused(bound)
        if bound != req.key and await self.store.bind_session_key(sid, bound, req.key) \
                != req.key:  # another registration for the session came first
            raise core.key_refused(await self.store.bound_key(sid) or "")
        expires = core.session_key_expiry_ms(t, self._ttl(p), sid, who.exp_ms)
        await self.store.register_session_key(pid, req.key, expires, t)
        if bound and bound != req.key:
            await self.store.unregister_session_key(pid, bound)
        if not await self.store.session_live(sid):  # revoked meanwhile: its key goes too
            await self.store.unregister_session_key(pid, req.key)
            raise LobbyError("auth/revoked_session", "this session was signed out or revoked")
        log.info("session_key_registered", player_id=pid, key=req.key[:8],
                 rekeyed=bool(bound and bound != req.key))
        return {"player_id": pid, "key": req.key, "expires_ms": expires}

    async def revoke_all(self, pid: str) -> int:
        sids = await self.store.session_ids(pid)
        for sid in sids:
            await self.revoke(sid, pid)
        return len(sids)

    async def sessions(self, pid: str, current: str) -> list[dict[str, Any]]:
        sids = await self.store.session_ids(pid)
        if not sids:
            return []
        out, gone = core.session_list(sids, await self.store.session_rows(sids), current)
        if gone:
            await self.store.forget_sessions(pid, gone)
        return out

    async def revoke_own(self, pid: str, sid: str) -> dict[str, Any]:
        if await self.store.session_owner(sid) != pid:  # someone else's looks like no session
            raise LobbyError("lobby/not_found", "no such session")
        await self.revoke(sid, pid)
        return {"revoked": sid}

    # -- passwords ----------------------------------------------------------------------

    async def set_password(self, req: lm.SetPassword) -> dict[str, Any]:
        p = await self._me(req.player_id)
        core.check_new_password(req.password, p["name"])
        current = await self.store.password_hash(p["player_id"])
        if current is not None and (req.current is None
                                    or not await verify_password(current, req.current)):
            raise LobbyError("auth/bad_credentials", "the current password is needed "
                             "to change it")
        hashed = await asyncio.to_thread(HASHER.hash, req.password)
        await self.store.set_password_hash(p["player_id"], hashed)
        p = await self._upgrade(p)
        log.info("password_set", player_id=p["player_id"], changed=current is not None)
        return {"player_id": p["player_id"], "name": p["name"], "account": True}

    async def password_sign_in(self, req: lm.PasswordSignIn) -> dict[str, Any]:
        """The same refusal, and about the same work, whether the name is unknown, a guest's,
        or the password is wrong. Failures slow the address that makes them: counted per
        name and address, per address and per name in a window (services/lobby/accounts/
        core.py ``throttled``), so strangers cannot lock a name out."""
        at = core.failure_counts(req.name, req.address)
        st = self.store
        s = self.settings
        limits = core.Throttle(s.signin_fail_max, s.signin_fail_per_address,
                               s.signin_fail_per_name)
        which = core.throttled(await st.failures(at.pair), await st.failures(at.address),
                               await st.failures(at.name), limits)
        if which is not None:
            log.info("sign_in_throttled", by=which)
            raise core.lockout_error(await st.failures_ttl(getattr(at, which)))
        pid = await self._pid_of_name(req.name)
        p = await self.player(pid) if pid else None
        stored = await st.password_hash(p["player_id"]) if p and p.get("account") else None
        ok = await verify_password(stored or await self._dummy_hash(), req.password)
        if not (ok and stored and p):  # a known account whose password verified, only
            for subject in (at.pair, at.address, at.name):
                await st.count_failure(subject, s.signin_fail_window_s)
            log.info("sign_in_refused", method="password")
            raise core.bad_credentials()
        await st.clear_failures(at.pair)
        core.check_not_suspended(p)
        if HASHER.check_needs_rehash(stored):
            await self.store.set_password_hash(
                p["player_id"], await asyncio.to_thread(HASHER.hash, req.password))
        log.info("signed_in", player_id=p["player_id"], method="password")
        return await self.open_session(p, req.agent)

    async def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = await asyncio.to_thread(HASHER.hash, secrets.token_urlsafe(16))
        return self._dummy

    # -- passkeys (WebAuthn) ------------------------------------------------------------

    async def _challenge(self, kind: str, pid: str, challenge: bytes) -> str:
        cid = secrets.token_urlsafe(18)
        await self.store.put_challenge(cid, core.challenge_data(kind, pid, challenge),
                                       self.settings.challenge_ttl_s)
        return cid

    async def _take_challenge(self, cid: str, kind: str, pid: str) -> bytes:
        return core.challenge_of(await self.store.take_challenge(cid), kind, pid)

    async def passkey_register_begin(self, req: lm.PasskeyRegisterBegin) -> dict[str, Any]:
        from webauthn import generate_registration_options, options_to_json
        from webauthn.helpers.structs import (
            AuthenticatorSelectionCriteria,
            PublicKeyCredentialDescriptor,
            ResidentKeyRequirement,
            UserVerificationRequirement,
        )

        p = await self._me(req.player_id)
        have = await self.store.passkeys(p["player_id"])
        opts = generate_registration_options(
            rp_id=self.settings.webauthn_rp_id, rp_name=self.settings.webauthn_rp_name,
            user_name=p["name"], user_id=p["player_id"].encode(), user_display_name=p["name"],
            timeout=self.settings.challenge_ttl_s * 1000,
            exclude_credentials=[PublicKeyCredentialDescriptor(id=core.unb64url(c))
                                 for c in have],
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
            raise core.passkey_failed(exc) from None
        cred_id = core.b64url(done.credential_id)
        if not await self.store.claim_passkey(cred_id, p["player_id"]):
            raise LobbyError("auth/passkey_failed", "this passkey is already registered")
        await self.store.put_passkey(p["player_id"], cred_id, core.new_passkey(
            done.credential_public_key, done.sign_count, now_ms(), req.label))
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
                allow = [PublicKeyCredentialDescriptor(id=core.unb64url(c))
                         for c in await self.store.passkeys(pid)]
        opts = generate_authentication_options(
            rp_id=self.settings.webauthn_rp_id, allow_credentials=allow,
            timeout=self.settings.challenge_ttl_s * 1000,
            user_verification=UserVerificationRequirement.PREFERRED)
        cid = await self._challenge("sign_in", "", opts.challenge)
        return {"challenge_id": cid, "options": orjson.loads(options_to_json(opts))}

    async def passkey_sign_in_finish(self, req: lm.PasskeySignInFinish) -> dict[str, Any]:
        from webauthn import verify_authentication_response

        challenge = await self._take_challenge(req.challenge_id, "sign_in", "")
        cred_id = core.passkey_lookup_id(req.credential)
        pid = (await self.store.passkey_owner(cred_id) if cred_id else None) or ""
        pk = await self.store.passkey(pid, cred_id) if pid and cred_id else None
        p = await self.player(pid) if pk is not None else None
        if p is None or pk is None or cred_id is None:
            log.info("sign_in_refused", method="passkey")
            raise LobbyError("auth/bad_credentials", "this passkey is not known here")
        try:
            done = verify_authentication_response(
                credential=dict(req.credential), expected_challenge=challenge,
                expected_rp_id=self.settings.webauthn_rp_id,
                expected_origin=self.settings.passkey_origins,
                credential_public_key=core.unb64url(pk["public_key"]),
                credential_current_sign_count=int(pk["sign_count"]))
        except Exception as exc:
            log.info("passkey_refused", step="sign_in", error=type(exc).__name__)
            raise core.passkey_failed(exc) from None
        core.check_user_handle(req.credential, pid)
        await self.store.put_passkey(pid, cred_id,
                                     core.passkey_used(pk, done.new_sign_count, now_ms()))
        core.check_not_suspended(p)
        log.info("signed_in", player_id=pid, method="passkey")
        return await self.open_session(p, req.agent)

    # -- profile, export, deletion ------------------------------------------------------

    async def me(self, req: lm.Me) -> dict[str, Any]:
        p = await self._me(req.player_id)
        password, passkeys = await self.store.credentials(p["player_id"])
        return core.me_answer(p, password, passkeys, self.is_admin(p), req.session)

    async def export(self, req: lm.ExportData) -> dict[str, Any]:
        """What the lobby holds about the player (the gateway adds ratings and history)."""
        me = await self.me(lm.Me(player_id=req.player_id, session=req.session))
        p = await self._me(req.player_id)
        return {"profile": core.profile(p), "password": me["password"],
                "passkeys": me["passkeys"],
                "sessions": await self.sessions(p["player_id"], req.session)}

    async def delete(self, req: lm.DeleteAccount) -> dict[str, Any]:
        """The player, its credentials and sessions go, its name is free again; its rating
        rows, leaderboard places and history too. The gateway also leaves out of the
        leaderboard and the history whatever a game that ends after this rates
        (services/gateway/fanout/erased.py)."""
        p = await self._me(req.player_id)
        core.check_deletion(p, req.confirm)
        pid = p["player_id"]
        passkeys = list(await self.store.passkeys(pid))
        await self.revoke_all(pid)
        await self.store.delete_player(pid, p["name"], passkeys)
        await self.store.erase_scores(pid, list(registry.names()))
        log.info("player_deleted", player_id=pid)
        return {"deleted": pid}

    # -- admin: suspension --------------------------------------------------------------

    async def suspend(self, target: str, reason: str, on: bool) -> dict[str, Any]:
        p = await self.player(target)
        if p is None:
            raise LobbyError("lobby/not_found", "no such player")
        await self.store.put_player(core.suspended(p, reason, on))
        revoked = await self.revoke_all(target) if on else 0
        return {"player_id": target, "suspended": on, "sessions_revoked": revoked}

    async def is_suspended(self, pid: str) -> bool:
        p = await self.player(pid)
        return bool(p and p.get("suspended"))
