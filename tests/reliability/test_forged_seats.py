"""No forged seats, even with the gateway's Valkey password. The whole
system on its least-privilege ACL (the ``hall``); the attacker signs in to Valkey as the
gateway's user (it holds that password, not the token key nor anyone's password) and writes
what the gateway may write: an act and a commit stamped with a seat that is not its own, on
the very streams the services read. Each is refused ``auth/bad_signature`` and changes
nothing, whether unsigned, signed with its own key or with another player's registered key;
the lobby's key registry cannot be written (nor read) as the gateway, and a registration
request the gateway's user slips into the lobby's stream without a valid token binds nothing.
The seats then play the game honestly through the SDK and ``verify`` checks every seat's
signature (class ``signature``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis
from redis.exceptions import NoPermissionError, ResponseError

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
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




async def test_the_gateways_password_forges_no_seat(hall: Supervisor) -> None:
    shards = int(hall.env(Proc("gateway", 0)).get("EMPIRE_PARTITIONS", "1"))
    gw = redis.Redis.from_url(hall.service_urls["gateway"])
    admin = redis.Redis.from_url(hall.redis_url or "")
    async with Client(hall.url) as a, Client(hall.url) as b:
        await retry(a.sign_in, "seat-owner")
        await retry(b.sign_in, "seat-neighbour")
        t = await retry(a.create_table, "duel", 2, {"rounds": 1})
        await retry(b.join, t["table_id"])
        gid = str(await retry(a.start, t["table_id"]))
        game = await a.watch(gid)
        assert game.seat is not None and a.player_id is not None
        seat, victim = game.seat, a.player_id
        await b.register_session_key()  # a real, registered key of the other player
        await a.register_session_key()
        escrow = await escrow_key_of(game, "entropy", 30)
        slot = f"s{seat}"
        mallory = SessionKey()  # the attacker's own key: nobody registered it

        def forged_commit(cmd: str, key: SessionKey | None) -> dict[str, Any]:
            nonce = new_nonce()
            c = commitment(gid, "entropy", slot, seat, "", nonce)
            sealed = seal_opening(escrow, gid, "entropy", slot, seat, "", nonce)
            body = {"v": 2, "type": "commit_choice", "cmd_id": cmd, "game_id": gid,
                    "seat": seat, "player_id": victim, "round_id": "entropy", "slot": slot,
                    "commitment": c, "sealed": sealed, "public": None}
            if key is not None:
                body.update(key.sign_commit(gid, seat, cmd, "entropy", slot, c, sealed, None))
            return body

        def forged_act(cmd: str, key: SessionKey | None) -> dict[str, Any]:
            action = {"type": "call", "stake": 1}
            body = {"v": 1, "type": "submit_action", "cmd_id": cmd, "game_id": gid,
                    "seat": seat, "player_id": victim, "expected_seq": None, "action": action}
            if key is not None:
                body.update(key.sign_act(gid, seat, cmd, action, None))
            return body

        sent = {}
        for name, key in (("unsigned", None), ("mallory", mallory),
                          ("neighbour", b.session_key)):
            for kind, build, base in (("commit", forged_commit, streams.ESC_COMMITS),
                                      ("act", forged_act, streams.ADJ_ACTIONS)):
                cmd = f"forged-{kind}-{name}"
                gw.xadd(streams.sharded(base, gid, shards),
                        {"__data__": encode(build(cmd, key), cmd)})
                sent[cmd] = kind
        await until_true(lambda: len(refusals(admin, set(sent))) == len(sent))
        assert refusals(admin, set(sent)) == {c: "auth/bad_signature" for c in sent}
        # nothing changed: no commitment for the slot, no move applied
        record = [json.loads(f[b"d"]) for _, f in admin.xrange(Keys(gid).record)]
        assert not [e for e in record if e["type"] == "committed"]
        assert [json.loads(f[b"d"])["by"] for _, f in admin.xrange(Keys(gid).log)] == []

        # the registry is the lobby's: the gateway's user can neither write nor read it
        registry = keys.lobby_session_keys(victim)
        for cmd in (("HSET", registry, mallory.public, "9" * 15), ("HGET", registry, "x"),
                    ("HGETALL", registry), ("DEL", registry)):
            with pytest.raises((NoPermissionError, ResponseError), match=r"(?i)perm"):
                gw.execute_command(*cmd)
        # these denials were on purpose: out of the ACL log, which the least-privilege tier
        # reads for denials of the services' own work (the same system)
        admin.acl_log_reset()
        # ... nor have the lobby register a key without a valid token for the player
        for token in ("forged", "eyJwaWQiOiJwLTEifQ.AAAA", a.token + "x"):
            req = {"op": "register_session_key", "token": token, "key": mallory.public}
            gw.xadd(streams.LOBBY_RPC, {"__data__": encode(req, "forged-rpc")})
        await until_true(lambda: admin.xlen(streams.LOBBY_RPC) == 0)  # served (and deleted)
        held = {k.decode() for k in admin.hkeys(registry)}
        assert held == {a.session_key.public}, held

        # the seats play it out honestly: every act and commit is signed and verifies
        await asyncio.wait_for(asyncio.gather(play_seat(a, gid), play_seat(b, gid)), 300)
        for _ in range(100):
            v = await a.verify_game(gid)
            if v.ok:
                break
            await asyncio.sleep(0.2)
        assert v.ok, v.problems
        doc = v.record
        signed = [e for e in doc["record"] if e["type"] == "committed"] + [
            x for x in doc["log"] if x["by"] == "seat"]
        assert v.counts["signatures"] == len(signed) >= 2
        assert {x["key"] for x in signed} == {a.session_key.public, b.session_key.public}
    gw.close()
    admin.close()
    report("forged-seats", {"forged": len(sent), "refused": "auth/bad_signature",
                            "registry_writes_as_gateway": "NOPERM",
                            "signatures_verified": v.counts["signatures"]})
