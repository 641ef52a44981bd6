"""The accounts' rules, pure: what a password may be, which name a sign-in counts its failures
under and when they lock it, how long a session lives, what a refresh's outcome means, how a
guest becomes an account, what the wire answers hold. No I/O, no clock, no randomness: the
shell (services/lobby/accounts/service.py) passes the time and the secrets in."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from services.lobby.tables import LobbyError
from shared.identity import handles

OLD_KEPT = 50  # spent refresh hashes remembered per session (reuse detection)
MIN_PASSWORD = 8
MAX_PASSWORD = 256
BAD_CREDENTIALS = "wrong name or password"
MAX_CREDENTIAL_ID = 1400  # longer passkey ids are not looked up
PROFILE_FIELDS = ("player_id", "name", "created_ms", "account", "account_ms", "suspended")


def sha(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


# -- names and admins ---------------------------------------------------------------------

def valid_name(name: str) -> bool:
    try:
        handles.normalize(name)
    except handles.BadName:
        return False
    return True


def normal_name(name: str) -> str | None:
    """The name as it is held (shared/identity/handles.py), None when no name could be."""
    try:
        return handles.normalize(name)
    except handles.BadName:
        return None


def failure_subject(name: str) -> str:
    """The name a sign-in's failures are counted under: the name's key (case and
    confusables folded) when it is a valid name, else the text as typed."""
    return handles.key(name) if valid_name(name) else name


@dataclass(frozen=True)
class FailureCounts:
    """Where a sign-in's failures are counted (each in its own window): per name and address,
    per address (any name), per name (any address)."""

    pair: str
    address: str
    name: str


def failure_counts(name: str, address: str) -> FailureCounts:
    subject = failure_subject(name)
    return FailureCounts(pair=f"pair\x00{subject}\x00{address}", address=f"addr\x00{address}",
                         name=f"name\x00{subject}")


def is_admin(p: Mapping[str, Any] | None, admin_names: Iterable[str]) -> bool:
    """Listed by player id, or an account (not a bot) whose name is listed."""
    if p is None:
        return False
    listed = list(admin_names)
    if p["player_id"] in listed:
        return True
    if not p.get("account") or p.get("bot"):
        return False
    mine = handles.key(p["name"])
    return any(handles.key(a) == mine for a in listed)


def agent(ua: str) -> str:
    """A user agent as a session keeps it: printable characters, at most 80."""
    return "".join(c for c in ua if c.isprintable())[:80]


# -- passwords and lockout ----------------------------------------------------------------

def check_new_password(password: str, name: str) -> None:
    """Refuse a password that is too short, too long or the player's name."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise LobbyError("auth/weak_password",
                         f"a password has at least {MIN_PASSWORD} characters")
    if password.casefold() == name.casefold():
        raise LobbyError("auth/weak_password", "a password may not be the name")


def locked_out(failures: int | None, limit: int) -> bool:
    """Whether ``failures`` in the current window reach ``limit``."""
    return failures is not None and failures >= limit


@dataclass(frozen=True)
class Throttle:
    """The failure limits: per name and address, per address, and per name from any
    address, which slows only the addresses that have failed for that name."""

    per_pair: int
    per_address: int
    per_name: int


def throttled(pair: int | None, address: int | None, name: int | None,
              limits: Throttle) -> str | None:
    """Which count makes a sign-in wait ("pair", "address" or "name"; None: it may go on).
    The failures are the attempt's own address's: a name attacked from elsewhere is never
    refused to an address that has not failed for it (no lockout by strangers)."""
    if locked_out(pair, limits.per_pair):
        return "pair"
    if locked_out(address, limits.per_address):
        return "address"
    if pair and locked_out(name, limits.per_name):
        return "name"
    return None


def lockout_error(ttl_s: int) -> LobbyError:
    return LobbyError("auth/rate_limited", f"too many failed sign-ins from this address; "
                      f"retry in {max(1, ttl_s)} s")


def bad_credentials() -> LobbyError:
    return LobbyError("auth/bad_credentials", BAD_CREDENTIALS)


def check_not_suspended(p: Mapping[str, Any]) -> None:
    if p.get("suspended"):
        raise LobbyError("auth/suspended", "this player is suspended")


def check_known(p: dict[str, Any] | None) -> dict[str, Any]:
    """A player the account operations may act for: known and not a bot."""
    if p is None or p.get("bot"):
        raise LobbyError("auth/revoked_session", "no such player (deleted or expired)")
    return p


# -- sessions -----------------------------------------------------------------------------

def session_ttl_s(p: Mapping[str, Any], refresh_ttl_s: int, token_ttl_s: int) -> int:
    """An account's session lives EMPIRE_REFRESH_TTL_S unused; a guest's no longer than the
    guest itself."""
    if p.get("account"):
        return refresh_ttl_s
    return min(refresh_ttl_s, token_ttl_s)


def split_refresh_token(token: str) -> tuple[str, str]:
    """``<session id>.<secret>`` as (session id, secret)."""
    sid, _, secret = token.partition(".")
    if not sid or not secret or len(sid) > 64:
        raise LobbyError("auth/refresh_invalid", "no such refresh token")
    return sid, secret


@dataclass(frozen=True)
class Rotation:
    """What a refresh found: ``ok`` (the presented secret was the current one, now spent),
    ``reused`` (it was spent before: two holders of one token), ``gone`` (no such session) or
    ``invalid`` (a secret the session never had); ``player_id`` for ok and reused."""

    status: str
    player_id: str = ""

    @property
    def revoke(self) -> bool:
        """A reused token ends its session."""
        return self.status == "reused"

    def check(self) -> str:
        """The session's player id when the refresh may go on, else the refusal."""
        if self.status == "reused":
            raise LobbyError("auth/refresh_reused", "this refresh token was already used: "
                             "the session is revoked; sign in again")
        if self.status != "ok":
            raise LobbyError("auth/refresh_invalid", "no such refresh token")
        return self.player_id


def session_answer(p: Mapping[str, Any], sid: str, secret: str, token: str,
                   access_expires_ms: int) -> dict[str, Any]:
    """The wire answer of a sign-in or refresh: the pair of tokens and who they are for."""
    return {"player_id": p["player_id"], "name": p["name"], "token": token,
            "access_expires_ms": access_expires_ms, "refresh_token": f"{sid}.{secret}",
            "session_id": sid, "account": bool(p.get("account"))}


def session_list(sids: list[str], rows: list[dict[str, str]], current: str
                 ) -> tuple[list[dict[str, Any]], list[str]]:
    """The player's sessions as listed (rows in ``sids``' order, empty for one that expired)
    and the ids of the expired ones, to drop from the player's index."""
    out: list[dict[str, Any]] = []
    gone: list[str] = []
    for sid, r in zip(sids, rows, strict=True):
        if not r:
            gone.append(sid)
            continue
        out.append({"session_id": sid, "created_ms": int(r["created_ms"]),
                    "used_ms": int(r["used_ms"]), "agent": r.get("agent", ""),
                    "current": sid == current})
    return out, gone


def check_bot_seat_token(p: Mapping[str, Any]) -> None:
    """A token without a session is a bot's seat token: it registers keys for a bot only
    (shared/runtime/tokens.py refuses one for anybody else; this is the record's word)."""
    if not p.get("bot"):
        raise LobbyError("auth/invalid_token", "a player's token must belong to a session")


def rekey_allowed(bound: str, key: str, proof_ok: bool) -> bool:
    """Whether ``key`` may become the session's key: a session with no key yet binds the
    first one registered; the bound key registers again (a refresh of its expiry); any other
    key needs the bound key's signature over it (``proof_ok``)."""
    return not bound or bound == key or proof_ok


def key_refused(bound: str) -> LobbyError:
    return LobbyError("auth/bad_signature", "this session already has a key "
                      f"({bound[:8]}...): a new one needs the current key's proof "
                      "(or sign in again for a new session)")


def session_key_expiry_ms(now_ms: int, ttl_s: int, session: str | None,
                          token_exp_ms: int) -> int:
    """A registered session key lives as long as its session can; a bot's seat token (no
    session) until the token expires."""
    return now_ms + ttl_s * 1000 if session else token_exp_ms


# -- players ------------------------------------------------------------------------------

def upgraded(p: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """A guest as an account (same player id: rating, history and games stay)."""
    if p.get("account"):
        return p
    return {**p, "account": True, "account_ms": now_ms}


def suspended(p: dict[str, Any], reason: str, on: bool) -> dict[str, Any]:
    return {**p, "suspended": on, "suspended_reason": reason if on else ""}


def check_deletion(p: Mapping[str, Any], confirm: str) -> None:
    if confirm != p["name"]:
        raise LobbyError("lobby/bad_request", "confirm with the player's name")


def passkey_list(passkeys: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"credential_id": c, "label": k.get("label", ""), "created_ms": k.get("created_ms"),
             "used_ms": k.get("used_ms")} for c, k in passkeys.items()]


def me_answer(p: Mapping[str, Any], password: bool, passkeys: Mapping[str, Mapping[str, Any]],
              admin: bool, session: str) -> dict[str, Any]:
    return {"player_id": p["player_id"], "name": p["name"],
            "account": bool(p.get("account")), "password": password,
            "passkeys": passkey_list(passkeys), "admin": admin, "session_id": session,
            "created_ms": p.get("created_ms")}


def profile(p: Mapping[str, Any]) -> dict[str, Any]:
    """What an export shows of the player's record."""
    return {k: v for k, v in p.items() if k in PROFILE_FIELDS}


# -- passkeys -----------------------------------------------------------------------------

def challenge_data(kind: str, pid: str, challenge: bytes) -> dict[str, str]:
    return {"kind": kind, "pid": pid, "challenge": b64url(challenge)}


def challenge_of(data: Mapping[str, Any] | None, kind: str, pid: str) -> bytes:
    """The challenge a stored one holds, when it is of ``kind`` for ``pid``."""
    if not data or data.get("kind") != kind or data.get("pid") != pid:
        raise LobbyError("auth/bad_challenge", "this passkey challenge expired or was "
                         "used; start again")
    return unb64url(data["challenge"])


def passkey_lookup_id(credential: Mapping[str, Any]) -> str | None:
    """The credential id a sign-in's answer names, when it is one worth looking up."""
    cred_id = credential.get("id")
    if isinstance(cred_id, str) and 0 < len(cred_id) <= MAX_CREDENTIAL_ID:
        return cred_id
    return None


def new_passkey(public_key: bytes, sign_count: int, now_ms: int, label: str | None
                ) -> dict[str, Any]:
    return {"public_key": b64url(public_key), "sign_count": sign_count, "created_ms": now_ms,
            "used_ms": 0, "label": label or "passkey"}


def passkey_used(pk: dict[str, Any], sign_count: int, now_ms: int) -> dict[str, Any]:
    return {**pk, "sign_count": sign_count, "used_ms": now_ms}


def passkey_failed(exc: Exception) -> LobbyError:
    return LobbyError("auth/passkey_failed", "the passkey's answer did not verify: "
                      + str(exc)[:120])


def user_handle(credential: Mapping[str, Any]) -> bytes | None:
    """The user handle an authenticator's answer names (None when it names none; b"" when
    it is not base64url)."""
    resp = credential.get("response")
    handle = resp.get("userHandle") if isinstance(resp, dict) else None
    if not isinstance(handle, str) or not handle:
        return None
    try:
        return unb64url(handle)
    except (ValueError, TypeError):
        return b""


def check_user_handle(credential: Mapping[str, Any], pid: str) -> None:
    handle = user_handle(credential)
    if handle is not None and handle != pid.encode():
        raise LobbyError("auth/passkey_failed", "the passkey names another user")
