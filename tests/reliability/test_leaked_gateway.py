"""A leaked gateway configuration acts for nobody. The whole system on its least-privilege ACL
(the ``hall``); the attacker holds the gateway process's WHOLE environment (its Valkey URL with
the gateway ACL user's password, and every other value it is given) and, as a gateway running
the attacker's code would, the victim's access token seen in transit. With all of it:

* no token it mints from anything in that environment (as an HMAC key, as an Ed25519 seed,
  with or without a session, under the genuine key id) opens the gateway for the victim;
* it registers no key for the victim: not with a minted token (HTTP or straight into the
  lobby's stream as the gateway's user), and not with the victim's own token seen in transit,
  because the victim's session already has its key and a new one needs that key's signature;
* an act and a commit it writes for the victim's seat, signed with its own key, are refused
  ``auth/bad_signature`` and change nothing.

The test is written against the wire and the streams only (no project token helpers), so it
runs unchanged against a system whose gateway holds the token-signing secret: there it fails
at the first step (a minted token opens the gateway)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from typing import Any

import httpx
import pytest
import redis
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clients.sdk import Client
from clients.sdk.session import escrow_key_of
from services.supervisor import Proc, Supervisor
from shared.fairness.commitments import commitment, new_nonce
from shared.fairness.seal import seal_opening
from shared.protocol import keys, streams
from shared.protocol.streams import Keys
from shared.runtime.outbox import encode
from shared.runtime.session_keys import SessionKey
from tests.reliability.conftest import refusals, report, retry, until_true

pytestmark = pytest.mark.reliability


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _claims(token: str) -> dict[str, Any]:
    p64 = token.split(".", 1)[0]
    return dict(json.loads(base64.urlsafe_b64decode(p64 + "=" * (-len(p64) % 4))))


def _minted(env: dict[str, str], claims: dict[str, Any]) -> dict[str, str]:
    """Every token the environment's values can sign over ``claims`` (and over ``claims``
    without its session, and without its key id): HMAC-SHA256 with each value as the key,
    and Ed25519 with each 64-hex value as the seed."""
    out: dict[str, str] = {}
    bare = {k: v for k, v in claims.items() if k != "sid"}
    old = {k: v for k, v in claims.items() if k != "kid"}
    shapes = {"session": claims, "no-session": bare, "no-kid": old,
              "no-kid-no-session": {k: v for k, v in old.items() if k != "sid"}}
    for name, value in env.items():
        if not value:
            continue
        for shape, c in shapes.items():
            payload = json.dumps(c, separators=(",", ":"), sort_keys=True).encode()
            mac = hmac.new(value.encode(), payload, hashlib.sha256).digest()
            out[f"hmac:{name}:{shape}"] = f"{_b64(payload)}.{_b64(mac)}"
            for seed in re.findall(r"\b[0-9a-fA-F]{64}\b", value):
                key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed))
                out[f"ed25519:{name}:{shape}"] = f"{_b64(payload)}.{_b64(key.sign(payload))}"
    return out




async def test_the_gateways_whole_environment_acts_for_nobody(hall: Supervisor) -> None:
    env = hall.env(Proc("gateway", 0))  # everything the gateway process is started with
    shards = int(env.get("EMPIRE_PARTITIONS", "1"))
    gw = redis.Redis.from_url(env["EMPIRE_REDIS_URL"])  # the gateway ACL user's password
    admin = redis.Redis.from_url(hall.redis_url or "")
    async with Client(hall.url) as victim, Client(hall.url) as neighbour, \
            httpx.AsyncClient(base_url=hall.url) as http:
        await retry(victim.sign_in, "leak-victim")
        await retry(neighbour.sign_in, "leak-neighbour")
        t = await retry(victim.create_table, "duel", 2, {"rounds": 1})
        await retry(neighbour.join, t["table_id"])
        gid = str(await retry(victim.start, t["table_id"]))
        game = await victim.watch(gid)
        assert game.seat is not None and victim.player_id is not None
        seat, pid = game.seat, victim.player_id
        await victim.register_session_key()  # the victim's session has its key
        seen = victim.token or ""  # the victim's access token, as the gateway relays it
        registry = keys.lobby_session_keys(pid)
        mallory = SessionKey()  # the attacker's own key

        # 1. mint: nothing in the environment signs a token the gateway accepts
        claims = {**_claims(seen), "exp": _claims(seen)["exp"] + 3_600_000}
        minted = _minted({k: v for k, v in env.items() if k.startswith(
            ("EMPIRE_", "VALKEY_", "REDIS", "PYTHON"))}, claims)
        assert len(minted) >= 8
        opened = []
        for name, token in minted.items():
            r = await http.get("/api/me", headers={"Authorization": f"Bearer {token}"})
            if r.status_code != 401:
                opened.append((name, r.status_code))
        assert opened == [], f"tokens minted from the gateway's environment opened it: {opened}"

        # 2. register: no key for the victim, with a minted token or the one seen in transit
        taken = []
        for name, token in [*minted.items(), ("seen-in-transit", seen)]:
            r = await http.post("/api/session-keys", json={"key": mallory.public},
                                headers={"Authorization": f"Bearer {token}"})
            if r.status_code < 400:
                taken.append(name)
        assert taken == [], f"keys registered for the victim: {taken}"
        for name, token in [*list(minted.items())[:6], ("seen-in-transit", seen)]:
            req = {"op": "register_session_key", "token": token, "key": mallory.public}
            gw.xadd(streams.LOBBY_RPC, {"__data__": encode(req, f"leak-{name}")})
        await until_true(lambda: admin.xlen(streams.LOBBY_RPC) == 0)  # served (and deleted)
        held = {k.decode() for k in admin.hkeys(registry)}
        assert held == {victim.session_key.public}, held

        # 3. act and commit for the victim's seat, signed with the attacker's key
        escrow = await escrow_key_of(game, "entropy", 30)
        slot = f"s{seat}"
        nonce = new_nonce()
        c = commitment(gid, "entropy", slot, seat, "", nonce)
        sealed = seal_opening(escrow, gid, "entropy", slot, seat, "", nonce)
        commit = {"v": 2, "type": "commit_choice", "cmd_id": "leak-commit", "game_id": gid,
                  "seat": seat, "player_id": pid, "round_id": "entropy", "slot": slot,
                  "commitment": c, "sealed": sealed, "public": None,
                  **mallory.sign_commit(gid, seat, "leak-commit", "entropy", slot, c, sealed,
                                        None)}
        action = {"type": "call", "stake": 1}
        act = {"v": 1, "type": "submit_action", "cmd_id": "leak-act", "game_id": gid,
               "seat": seat, "player_id": pid, "expected_seq": None, "action": action,
               **mallory.sign_act(gid, seat, "leak-act", action, None)}
        gw.xadd(streams.sharded(streams.ESC_COMMITS, gid, shards),
                {"__data__": encode(commit, "leak-commit")})
        gw.xadd(streams.sharded(streams.ADJ_ACTIONS, gid, shards),
                {"__data__": encode(act, "leak-act")})
        sent = {"leak-commit", "leak-act"}
        await until_true(lambda: len(refusals(admin, sent)) == len(sent))
        assert refusals(admin, sent) == {c: "auth/bad_signature" for c in sent}
        record = [json.loads(f[b"d"]) for _, f in admin.xrange(Keys(gid).record)]
        assert not [e for e in record if e["type"] == "committed"]
        assert [json.loads(f[b"d"])["by"] for _, f in admin.xrange(Keys(gid).log)] == []
    gw.close()
    admin.close()
    report("leaked-gateway", {"env_values": len(env), "tokens_minted": len(minted),
                              "tokens_accepted": len(opened), "keys_registered": len(taken),
                              "forged_applied": 0, "refused": "auth/bad_signature"})
