"""Accounts, sessions, admin and privacy against a real server: the lobby's
handler as the gateway calls it, and the gateway's revocation check."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.gateway.auth.sessions import Revocations
from services.gateway.fanout.hub import Hub
from services.lobby.accounts.store import REVOKED_CHANNEL, challenge_key
from services.lobby.app import lobby_on
from services.lobby.service import AUDIT, Lobby
from services.scoring.store import (
    game_history_key,
    history_key,
    leaderboard_key,
    ratings_key,
)
from shared.protocol.streams import Keys
from shared.protocol.versions import PROTOCOL_VERSION
from shared.runtime import tokens
from shared.runtime.jsonutil import dumps, loads
from shared.runtime.settings import Settings
from tests.support.passkey import SoftPasskey
from tests.support.waits import eventually

pytestmark = pytest.mark.integration
KEY = tokens.new_private_key()
PUBLIC = tokens.parse_public_keys(tokens.public_key(KEY))
ORIGIN = "http://localhost:8000"


class Sink:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def publish(self, body: dict[str, Any], stream: str, **_: Any) -> None:
        self.sent.append((stream, body))



def settings(**kw: Any) -> Settings:
    base: dict[str, Any] = {"token_private_key": KEY, "dev": True, "port": 8000,
                            "signin_fail_max": 3, "admins": "p-root,Warden"}
    return Settings(**{**base, **kw})


@pytest.fixture
def sink() -> Sink:
    return Sink()


@pytest.fixture
def lobby(r: Any, sink: Sink) -> Lobby:
    return lobby_on(settings(), r, sink)


async def guest(lobby: Lobby, name: str) -> dict[str, Any]:
    out = await lobby.handle({"op": "create_player", "name": name, "agent": "pytest"})
    assert out["ok"], out
    return out


async def call(lobby: Lobby, who: dict[str, Any], op: str, **kw: Any) -> dict[str, Any]:
    ident = tokens.verify(PUBLIC, who["token"], tokens_now())
    return await lobby.handle({"op": op, "player_id": ident.player_id, "name": ident.name,
                               "session": ident.session, **kw})


def tokens_now() -> int:
    import time
    return int(time.time() * 1000)


async def test_guest_gets_a_session_and_refresh_rotates(lobby: Lobby, r: Any) -> None:
    g = await guest(lobby, "ada")
    ident = tokens.verify(PUBLIC, g["token"], tokens_now())
    assert ident.player_id == g["player_id"] and ident.session == g["session_id"]
    assert ident.exp_ms - tokens_now() <= 600_000  # minutes, not days
    r1 = await lobby.handle({"op": "refresh", "refresh_token": g["refresh_token"]})
    assert r1["ok"] and r1["player_id"] == g["player_id"]
    assert r1["refresh_token"] != g["refresh_token"] and r1["session_id"] == g["session_id"]
    r2 = await lobby.handle({"op": "refresh", "refresh_token": r1["refresh_token"]})
    assert r2["ok"]
    # the spent token comes back: theft. The whole session ends, the newest token too.
    replay = await lobby.handle({"op": "refresh", "refresh_token": g["refresh_token"]})
    assert (replay["ok"], replay["code"]) == (False, "auth/refresh_reused")
    after = await lobby.handle({"op": "refresh", "refresh_token": r2["refresh_token"]})
    assert (after["ok"], after["code"]) == (False, "auth/refresh_invalid")
    rev = Revocations(settings(), r, Hub(r))
    with pytest.raises(tokens.TokenError) as exc:
        await rev.check(tokens.verify(PUBLIC, r2["token"], tokens_now()))
    assert exc.value.code == "auth/revoked_session"
    forged = await lobby.handle({"op": "refresh",
                                 "refresh_token": g["session_id"] + ".not-the-secret"})
    assert forged["code"] == "auth/refresh_invalid"


async def test_sessions_list_revoke_and_sign_out(lobby: Lobby, r: Any) -> None:
    g = await guest(lobby, "bea")
    pw = await call(lobby, g, "set_password", password="correct horse")
    assert pw["ok"] and pw["account"]
    other = await lobby.handle({"op": "password_sign_in", "name": "bea",
                                "password": "correct horse", "agent": "phone"})
    assert other["ok"] and other["player_id"] == g["player_id"]
    listed = await call(lobby, g, "list_sessions")
    assert {s["session_id"] for s in listed["sessions"]} == {g["session_id"],
                                                            other["session_id"]}
    assert [s["current"] for s in listed["sessions"]].count(True) == 1
    # someone else's session id is "no such session" and stays
    stranger = await guest(lobby, "cat")
    refused = await call(lobby, stranger, "revoke_session", session_id=other["session_id"])
    assert (refused["ok"], refused["code"]) == (False, "lobby/not_found")
    pubsub = r.pubsub()
    await pubsub.subscribe(REVOKED_CHANNEL)
    done = await call(lobby, g, "revoke_session", session_id=other["session_id"])
    assert done["ok"]
    msg = None
    for _ in range(300):
        msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
        if msg:
            break
    assert msg is not None and msg["data"].decode() == other["session_id"]
    await pubsub.aclose()
    gone = await lobby.handle({"op": "refresh", "refresh_token": other["refresh_token"]})
    assert gone["code"] == "auth/refresh_invalid"
    assert (await call(lobby, g, "sign_out"))["ok"]
    out = await lobby.handle({"op": "refresh", "refresh_token": g["refresh_token"]})
    assert out["code"] == "auth/refresh_invalid"


async def test_password_refusals_look_the_same_and_are_rate_limited(lobby: Lobby) -> None:
    g = await guest(lobby, "dora")
    weak = await call(lobby, g, "set_password", password="short")
    assert weak["code"] == "auth/weak_password"
    assert (await call(lobby, g, "set_password", password="long enough pw"))["ok"]
    change = await call(lobby, g, "set_password", password="another one!", current="wrong")
    assert change["code"] == "auth/bad_credentials"
    guest_only = await guest(lobby, "eve")  # a guest: no password at all
    answers = [
        await lobby.handle({"op": "password_sign_in", "name": n, "password": pw})
        for n, pw in (("dora", "wrong password"), ("nobody-here", "long enough pw"),
                      (guest_only["name"], "long enough pw"))]
    assert {(a["ok"], a["code"], a["message"]) for a in answers} == {
        (False, "auth/bad_credentials", "wrong name or password")}
    # "dora" had one failure; two more reach the limit (3): even the right password waits
    for _ in range(2):
        await lobby.handle({"op": "password_sign_in", "name": "DORA", "password": "nope!!!!"})
    limited = await lobby.handle({"op": "password_sign_in", "name": "dora",
                                  "password": "long enough pw"})
    assert limited["code"] == "auth/rate_limited"


async def test_upgrade_keeps_the_player_and_the_name(lobby: Lobby, r: Any) -> None:
    g = await guest(lobby, "finn")
    assert await r.ttl(f"lobby:player:{g['player_id']}") > 0  # a guest expires
    t = (await call(lobby, g, "create_table", game="duel", seats=2))["table"]
    assert (await call(lobby, g, "set_password", password="finn's password"))["ok"]
    assert await r.ttl(f"lobby:player:{g['player_id']}") == -1  # an account does not
    again = await lobby.handle({"op": "password_sign_in", "name": "Finn",
                                "password": "finn's password"})
    assert again["player_id"] == g["player_id"]
    seen = await call(lobby, again, "get_table", table_id=t["table_id"])
    assert seen["table"]["host"] == g["player_id"]
    me = await call(lobby, again, "me")
    assert me["account"] and me["password"] and not me["admin"]
    taken = await lobby.handle({"op": "create_player", "name": "FINN", "exact": True})
    assert taken["code"] == "lobby/name_taken"


async def test_passkey_register_and_sign_in(lobby: Lobby, r: Any) -> None:
    g = await guest(lobby, "gil")
    key = SoftPasskey(origin=ORIGIN)
    begin = await call(lobby, g, "passkey_register_begin")
    assert begin["ok"] and begin["options"]["rp"]["id"] == "localhost"
    done = await call(lobby, g, "passkey_register_finish", challenge_id=begin["challenge_id"],
                      credential=key.register(begin["options"]))
    assert done["ok"] and done["account"], done
    # the challenge was single use
    replay = await call(lobby, g, "passkey_register_finish",
                        challenge_id=begin["challenge_id"],
                        credential=key.register(begin["options"]))
    assert replay["code"] == "auth/bad_challenge"
    # another device: sign in with the passkey (discoverable: no name)
    start = await lobby.handle({"op": "passkey_sign_in_begin"})
    answer = key.sign_in(start["options"])
    signed = await lobby.handle({"op": "passkey_sign_in_finish",
                                 "challenge_id": start["challenge_id"], "credential": answer})
    assert signed["ok"] and signed["player_id"] == g["player_id"], signed
    again = await lobby.handle({"op": "passkey_sign_in_finish",
                                "challenge_id": start["challenge_id"], "credential": answer})
    assert again["code"] == "auth/bad_challenge"  # a replayed challenge
    # an expired challenge: gone from Valkey
    late = await lobby.handle({"op": "passkey_sign_in_begin", "name": "gil"})
    assert len(late["options"]["allowCredentials"]) == 1
    await r.delete(challenge_key(late["challenge_id"]))
    expired = await lobby.handle({"op": "passkey_sign_in_finish",
                                  "challenge_id": late["challenge_id"],
                                  "credential": key.sign_in(late["options"])})
    assert expired["code"] == "auth/bad_challenge"
    assert 0 < await r.ttl(challenge_key(
        (await lobby.handle({"op": "passkey_sign_in_begin"}))["challenge_id"])) <= 120
    # the wrong origin, a wrong key, an unknown passkey
    s2 = await lobby.handle({"op": "passkey_sign_in_begin"})
    wrong_origin = await lobby.handle({
        "op": "passkey_sign_in_finish", "challenge_id": s2["challenge_id"],
        "credential": key.sign_in(s2["options"], origin="https://evil.example")})
    assert wrong_origin["code"] == "auth/passkey_failed"
    s3 = await lobby.handle({"op": "passkey_sign_in_begin"})
    thief = SoftPasskey(origin=ORIGIN)
    thief.cred_id = key.cred_id  # claims the credential id without the private key
    forged = await lobby.handle({"op": "passkey_sign_in_finish",
                                 "challenge_id": s3["challenge_id"],
                                 "credential": thief.sign_in(s3["options"])})
    assert forged["code"] == "auth/passkey_failed"
    s4 = await lobby.handle({"op": "passkey_sign_in_begin"})
    unknown = await lobby.handle({"op": "passkey_sign_in_finish",
                                  "challenge_id": s4["challenge_id"],
                                  "credential": SoftPasskey(origin=ORIGIN).sign_in(
                                      s4["options"])})
    assert unknown["code"] == "auth/bad_credentials"


async def test_admin_suspends_closes_ends_and_audits(lobby: Lobby, r: Any, sink: Sink) -> None:
    warden = await guest(lobby, "warden")
    # a guest named like an admin is not one: the role needs the account
    assert (await call(lobby, warden, "admin_audit"))["code"] == "auth/forbidden"
    assert (await call(lobby, warden, "set_password", password="warden password"))["ok"]
    bad = await guest(lobby, "mallory")
    assert (await call(lobby, bad, "set_password", password="mallory password"))["ok"]
    refused = await call(lobby, bad, "admin_suspend", target=warden["player_id"], reason="x")
    assert refused["code"] == "auth/forbidden"
    t = (await call(lobby, bad, "create_table", game="duel", seats=2))["table"]
    sus = await call(lobby, warden, "admin_suspend", target=bad["player_id"], reason="cheating")
    assert sus["ok"] and sus["sessions_revoked"] == 1
    assert (await lobby.handle({"op": "refresh", "refresh_token": bad["refresh_token"]})
            )["code"] == "auth/refresh_invalid"
    again = await lobby.handle({"op": "password_sign_in", "name": "mallory",
                                "password": "mallory password"})
    assert again["code"] == "auth/suspended"
    closed = await call(lobby, warden, "admin_close_table", table_id=t["table_id"],
                        reason="spam")
    assert closed["ok"] and closed["table"]["status"] == "closed"
    await r.set(Keys("g-run").meta, dumps({"players": []}))
    ended = await call(lobby, warden, "admin_end_game", game_id="g-run", reason="abuse")
    assert ended["ok"]
    assert [b for _, b in sink.sent if b.get("type") == "end_game"] == [
        {"v": PROTOCOL_VERSION, "type": "end_game", "game_id": "g-run", "reason": "abuse"}]
    missing = await call(lobby, warden, "admin_end_game", game_id="g-none", reason="abuse")
    assert missing["code"] == "lobby/not_found"
    audit = await call(lobby, warden, "admin_audit")
    assert [(e["action"], e["target"]) for e in audit["entries"]] == [
        ("end_game", "g-none"), ("end_game", "g-run"), ("close_table", t["table_id"]),
        ("suspend", bad["player_id"])]
    assert await r.xlen(AUDIT) == 4


async def test_export_and_delete(lobby: Lobby, r: Any) -> None:
    g = await guest(lobby, "hana")
    assert (await call(lobby, g, "set_password", password="hana password"))["ok"]
    data = await call(lobby, g, "export_data")
    assert data["profile"]["player_id"] == g["player_id"] and data["password"] is True
    assert len(data["sessions"]) == 1
    assert "$argon2" not in dumps(data)  # no password hash in the export
    wrong = await call(lobby, g, "delete_account", confirm="someone")
    assert wrong["code"] == "lobby/bad_request"
    gone = await call(lobby, g, "delete_account", confirm="hana")
    assert gone["ok"]
    assert await r.sismember("lobby:erased", g["player_id"])
    assert await r.get(f"lobby:player:{g['player_id']}") is None
    assert (await lobby.handle({"op": "refresh", "refresh_token": g["refresh_token"]})
            )["code"] == "auth/refresh_invalid"
    assert (await lobby.handle({"op": "password_sign_in", "name": "hana",
                                "password": "hana password"}))["code"] == "auth/bad_credentials"
    free = await lobby.handle({"op": "create_player", "name": "hana", "exact": True})
    assert free["ok"] and free["player_id"] != g["player_id"]  # the name is free again


async def test_delete_removes_ratings_leaderboard_places_and_history(lobby: Lobby,
                                                                     r: Any) -> None:
    """The scoring service's rows of the deleted player go (every game kind); another
    player's rows, and the games' own histories, stay."""
    g = await guest(lobby, "ines")
    other = await guest(lobby, "joao")
    pid, keep = g["player_id"], other["player_id"]
    for game in ("duel", "empire"):
        for who, name in ((pid, "ines"), (keep, "joao")):
            await r.hset(ratings_key(game), who, dumps({"mu": 25.0, "sigma": 8.0,
                                                          "ordinal": 1.0, "name": name}))
            await r.zadd(leaderboard_key(game), {who: 1.0})
    for who in (pid, keep):
        await r.zadd(history_key(who), {"g-1": 1})
    await r.zadd(game_history_key("duel"), {"g-1": 1})
    assert (await call(lobby, g, "delete_account", confirm="ines"))["ok"]
    for game in ("duel", "empire"):
        assert await r.hget(ratings_key(game), pid) is None
        assert await r.zscore(leaderboard_key(game), pid) is None
        assert loads(await r.hget(ratings_key(game), keep))["name"] == "joao"
        assert await r.zscore(leaderboard_key(game), keep) == 1.0
    assert not await r.exists(history_key(pid))
    assert await r.zrange(history_key(keep), 0, -1) == [b"g-1"]
    assert await r.zrange(game_history_key("duel"), 0, -1) == [b"g-1"]


async def test_revoked_sessions_sockets_close_by_pubsub_and_sweep(r: Any, lobby: Lobby) -> None:
    """The gateway side: a revoked session's open connections close (4401), from the
    pub/sub message and, when that was missed, from the sweep."""
    from services.gateway.fanout.outbound import Outbound

    closed: list[tuple[int, str]] = []

    async def send(_: str) -> None:
        pass

    async def close(code: int, reason: str) -> None:
        closed.append((code, reason))

    hub = Hub(r)
    rev = Revocations(settings(revocation_sweep_s=0.2), r, hub)
    a, b = await guest(lobby, "ivan"), await guest(lobby, "jo")
    conns = []
    for who in (a, b):
        out = Outbound(send, close, 64, 1 << 20, 5.0)
        out.start()
        from services.gateway.fanout.hub import Connection
        conn = Connection(player_id=who["player_id"], name=who["name"], out=out,
                          session=who["session_id"])
        hub.add(conn)
        conns.append(conn)
    listener = asyncio.create_task(rev.listen())
    async def subscribed() -> bool:
        return dict(await r.pubsub_numsub(REVOKED_CHANNEL)).get(REVOKED_CHANNEL.encode(), 0) > 0

    await eventually(subscribed, "the gateway subscribed to the revocations")
    assert (await call(lobby, a, "sign_out"))["ok"]
    await eventually(lambda: bool(closed), "the revoked session's socket closed")
    listener.cancel()
    assert closed == [(4401, "auth/revoked_session")] and conns[0].closed
    assert not conns[1].closed
    await r.set(f"lobby:rev:{b['session_id']}", "1")  # missed by pub/sub: the sweep finds it
    assert await rev.sweep() == 1 and conns[1].closed
    for c in conns:
        await c.out.aclose()


async def test_signing_key_rotation_logs_nobody_out(r: Any, sink: Sink) -> None:
    """The lobby signs with the new key while verifiers list both public keys: a token from
    before the rotation still verifies, the next refresh brings one under the new key."""
    old_key, new_key = tokens.new_private_key(), tokens.new_private_key()
    old = lobby_on(settings(token_private_key=old_key), r, sink)
    g = await guest(old, "kim")
    new = lobby_on(settings(token_private_key=new_key,
                            token_public_keys=tokens.public_key(old_key)), r, sink)
    turned = await new.handle({"op": "refresh", "refresh_token": g["refresh_token"]})
    assert turned["ok"] and turned["player_id"] == g["player_id"]
    only_new = tokens.parse_public_keys(tokens.public_key(new_key))
    ident = tokens.verify(only_new, turned["token"], tokens_now())
    assert ident.player_id == g["player_id"]
    # the token from before the rotation still verifies with the previous public key
    both = tokens.parse_public_keys([tokens.public_key(new_key), tokens.public_key(old_key)])
    assert tokens.verify(both, g["token"], tokens_now()).session
    with pytest.raises(tokens.TokenError):
        tokens.verify(only_new, g["token"], tokens_now())
    assert loads(await r.get(f"lobby:player:{g['player_id']}"))["name"] == "kim"


async def test_the_lobby_registers_a_session_key_only_for_a_valid_token(lobby: Lobby,
                                                                       r: Any) -> None:
    """Signed commands: the lobby checks the token itself (its signature, expiry, a live
    session, the player not suspended) before it binds a session key to the token's session
    and player; a forged token, one signed with another key, a signed-out session's bind
    nothing, and signing out withdraws the session's key."""
    from shared.runtime import session_keys

    g = await guest(lobby, "keyholder")
    pid = g["player_id"]

    async def register(token: str, key: str, **kw: Any) -> dict[str, Any]:
        return await lobby.handle({"op": "register_session_key", "token": token, "key": key,
                                   **kw})

    ok = await register(g["token"], "ab" * 32)
    assert ok["ok"] and ok["player_id"] == pid and ok["expires_ms"] > tokens_now()
    assert await session_keys.registered(r, pid, "ab" * 32, tokens_now())
    other_key = tokens.issue(tokens.new_private_key(), pid, "keyholder",
                             tokens_now() + 60_000, g["session_id"])
    expired = tokens.issue(KEY, pid, "keyholder", tokens_now() - 1, g["session_id"])
    for token, code in (("forged", "auth/invalid_token"), (other_key, "auth/invalid_token"),
                        (expired, "auth/expired_token")):
        out = await register(token, "cd" * 32)
        assert (out["ok"], out["code"]) == (False, code), out
    bad = await register(g["token"], "not-hex")
    assert bad["code"] == "lobby/bad_request"
    assert not await session_keys.registered(r, pid, "cd" * 32, tokens_now())
    # a signed-out session registers nothing more (its access token still verifies), and
    # its key signs nothing more
    assert (await call(lobby, g, "sign_out"))["ok"]
    out = await register(g["token"], "ef" * 32)
    assert out["code"] == "auth/revoked_session"
    assert not await session_keys.registered(r, pid, "ab" * 32, tokens_now())


async def test_a_session_key_is_bound_to_its_session(lobby: Lobby, r: Any) -> None:
    """The session's first key binds to it; the same key again only renews it; another key
    (a holder of the access token who is not the client, e.g. a gateway that saw it in
    transit) is refused unless the current key signed it over, which withdraws the old one.
    Refreshing the session keeps its key."""
    from shared.runtime import session_keys
    from shared.runtime.session_keys import SessionKey

    g = await guest(lobby, "binder")
    pid, sid = g["player_id"], g["session_id"]
    first, second, mallory = SessionKey(), SessionKey(), SessionKey()

    async def register(key: SessionKey, **kw: Any) -> dict[str, Any]:
        return await lobby.handle({"op": "register_session_key", "token": g["token"],
                                   "key": key.public, **kw})

    assert (await register(first))["ok"]
    assert (await register(first))["ok"]  # again: the same binding
    refused = await register(mallory)
    assert (refused["ok"], refused["code"]) == (False, "auth/bad_signature")
    for proof in (mallory.sign_rekey(sid, mallory.public),  # signed by the wrong key
                  first.sign_rekey(sid, second.public),  # the current key, another new key
                  first.sign_rekey("other-session", mallory.public)):
        out = await register(mallory, proof=proof)
        assert out["code"] == "auth/bad_signature", out
    assert not await session_keys.registered(r, pid, mallory.public, tokens_now())
    assert await r.hget(f"lobby:sess:{sid}", "skey") == first.public.encode()
    handed = await register(second, proof=first.sign_rekey(sid, second.public))
    assert handed["ok"], handed
    assert await session_keys.registered(r, pid, second.public, tokens_now())
    assert not await session_keys.registered(r, pid, first.public, tokens_now())
    assert (await register(first))["code"] == "auth/bad_signature"  # no way back unsigned
    # a refresh keeps the session and its key
    turned = await lobby.handle({"op": "refresh", "refresh_token": g["refresh_token"]})
    assert turned["ok"] and await session_keys.registered(r, pid, second.public, tokens_now())
    again = await lobby.handle({"op": "register_session_key", "token": turned["token"],
                                "key": mallory.public})
    assert again["code"] == "auth/bad_signature"


async def test_only_a_bots_seat_token_goes_without_a_session(lobby: Lobby, r: Any) -> None:
    """A token without a session is a bot's seat token: it registers keys for its bot (up to
    KEYS_PER_PLAYER, the ones expiring first go); one for a human player is refused even
    signed with the lobby's own key."""
    import json

    from shared.protocol import keys
    from shared.runtime import session_keys

    g = await guest(lobby, "sessionless")
    claims = {"pid": g["player_id"], "name": "sessionless", "exp": tokens_now() + 60_000,
              "kid": tokens.key_id(tokens.public_key(KEY))}
    payload = json.dumps(claims, separators=(",", ":"), sort_keys=True).encode()
    human = f"{tokens._b64(payload)}.{tokens._b64(tokens._private(KEY).sign(payload))}"
    out = await lobby.handle({"op": "register_session_key", "token": human, "key": "ab" * 32})
    assert (out["ok"], out["code"]) == (False, "auth/invalid_token")
    assert not await session_keys.registered(r, g["player_id"], "ab" * 32, tokens_now())
    bot = await lobby.create_player("Botty", bot="heuristic")
    assert not tokens.verify(PUBLIC, bot["token"], tokens_now()).session
    for i in range(session_keys.KEYS_PER_PLAYER + 5):
        out = await lobby.handle({"op": "register_session_key", "token": bot["token"],
                                  "key": f"{i:064x}"})
        assert out["ok"], out
    held = await r.hgetall(keys.lobby_session_keys(bot["player_id"]))
    assert len(held) == session_keys.KEYS_PER_PLAYER
    assert await r.ttl(keys.lobby_session_keys(bot["player_id"])) > 0
