"""Receipts and the audit bundle through the whole system: a seat's receipts kept by the SDK and
saved in the format ``verify --receipts`` reads, and the audit bundle
(GET /api/matches/{id}/audit) that ``verify`` takes as it is, live and from the archive after
the live keys are gone; a choice the escrow rewrote in every public trace passes every public
check and fails only with the seat's receipts."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from clients.sdk import ApiError, Client
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from shared.fairness.signing import keys_by_seat
from shared.protocol.streams import Keys
from shared.runtime.archive import archive_key
from tests.support import tamper

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]


def _verify(*args: str) -> tuple[int, str]:
    out = subprocess.run([sys.executable, "-m", "shared.fairness.verify", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    return out.returncode, out.stdout


def _reveals(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in doc["record"] if e["type"] in ("round_revealed", "seed_revealed")]


async def _bundle(c: Client, gid: str) -> dict[str, Any]:
    for _ in range(100):  # the dealer reveals just after the end
        b = await c.audit(gid)
        if any(e["type"] == "seed_revealed" for e in b["record"]):
            return b
        await asyncio.sleep(0.1)
    raise AssertionError("no dealer reveal in the bundle")


async def test_receipts_and_the_audit_bundle_prove_my_choices(system: Supervisor,
                                                              redis_url: str,
                                                              tmp_path: Path) -> None:
    async with Client(system.url) as c:
        await c.sign_in("auditor")
        t = await c.create_table("duel", seats=2, options={"rounds": 3})
        await c.add_bot(t["table_id"])
        gid = await c.start(t["table_id"])
        session = await asyncio.wait_for(play_seat(c, gid), 300)
        assert session.ended and session.seat == 0
        bundle = await _bundle(c, gid)
        v = await c.verify_game(gid)  # the session's receipts go with it
        assert v.ok and v.receipt_problems == [], v.problems
        assert v.receipts is not None and v.counts["receipts"] == len(v.receipts["receipts"]) > 1
        receipts = session.save_receipts(tmp_path / "receipts.json")
        saved = json.loads(receipts.read_text())
        assert saved["game_id"] == gid and saved["seat"] == 0
        assert {r["round_id"] for r in saved["receipts"]} >= {"entropy", "pick:1"}

    # the bundle: the record document plus its copies, the escrow key its rounds published
    # (every seat sealed its openings to it), the session key each seat signed with
    rec = v.record
    created = rec["record"][0]
    assert bundle["audit"] == 1 and bundle["ended"] is True
    assert bundle["record"] == rec["record"] and bundle["log"] == rec["log"]
    assert bundle["players"] == rec["players"] and bundle["options"] == created["options"]
    assert bundle["rules_version"] == created["rules_version"]
    assert bundle["reveals"] == _reveals(rec)
    keys = {e["escrow_key"] for e in rec["record"] if e["type"] == "round_opened"}
    assert keys == {bundle["escrow_key"]} and len(bundle["escrow_key"]) == 64, keys
    assert {r["escrow_key"] for r in saved["receipts"]} == keys
    assert sorted(bundle["signatures"]) == ["0", "1"], bundle["signatures"]
    assert all(len(k) == 1 for k in bundle["signatures"].values())  # one session per seat
    signed = [e for e in rec["record"] if e["type"] == "committed"] + [
        x for x in rec["log"] if x["by"] == "seat"]
    assert v.counts["signatures"] == len(signed) > 0
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    rc, out = _verify(str(path), "--receipts", str(receipts))
    assert rc == 0 and "receipts hold" in out, out
    rc, out = _verify(system.url, gid, "--receipts", str(receipts))
    assert rc == 0 and "receipts hold" in out, out

    # the escrow swaps seat 0's pick and rewrites every public trace to agree (the commitment
    # signed again with a key the server registered for seat 0 itself: the lobby is trusted)
    bad = json.loads(json.dumps(bundle))
    o = next(x for x in tamper.one(bad, "round_revealed", round_id="pick:1")["openings"]
             if x["slot"] == "s0")
    tamper.rewrite_choice(bad, "pick:1", "s0", (o["choice"] + 1) % 10)
    bad["reveals"] = _reveals(bad)
    bad["signatures"] = keys_by_seat(bad["record"], bad["log"])
    path.write_text(json.dumps(bad))
    rc, out = _verify(str(path))
    assert rc == 0, out  # no public check can see it
    rc, out = _verify(str(path), "--receipts", str(receipts))
    assert rc == 1 and "FAIL receipt: pick:1/s0 receipt:" in out, out
    assert all(line.startswith("FAIL receipt: ") for line in out.splitlines()), out

    # a substituted escrow key (a gateway that showed seat 0 its own key, to read its openings
    # and re-seal them): the receipts say which key seat 0 sealed to
    swapped = {**saved, "receipts": [{**x, "escrow_key": "ab" * 32} for x in saved["receipts"]]}
    other = tmp_path / "swapped.json"
    other.write_text(json.dumps(swapped))
    rc, out = _verify(system.url, gid, "--receipts", str(other))
    assert rc == 1 and "FAIL seal: entropy/s0 receipt: my opening was sealed to abab" in out, out

    # a copy in the bundle that disagrees with the record is caught
    bad = json.loads(json.dumps(bundle))
    bad["options"] = {"rounds": 9}
    path.write_text(json.dumps(bad))
    rc, out = _verify(str(path))
    assert rc == 1 and "the bundle's options are not game_created's" in out, out

    # served from the archive once the live keys are gone
    r = aioredis.Redis.from_url(redis_url)
    try:
        for _ in range(300):
            if await r.exists(archive_key(gid)):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the game was never archived")
        k = Keys(gid)
        await r.delete(k.meta, k.state, k.log, k.record, k.spectator, k.result)
    finally:
        await r.aclose()
    async with Client(system.url) as c:
        await c.sign_in("auditor-2")
        archived = await c.audit(gid)
    no_ids = [{k: v for k, v in x.items() if k != "id"} for x in bundle["log"]]
    assert {**archived, "log": None} == {**bundle, "log": None}  # the archive keeps no log ids
    assert archived["log"] == no_ids
    path.write_text(json.dumps(archived))
    rc, out = _verify(str(path), "--receipts", str(receipts))
    assert rc == 0 and "receipts hold" in out, out


async def test_no_audit_bundle_before_the_end(system: Supervisor) -> None:
    async with Client(system.url) as c:
        await c.sign_in("early-auditor")
        with pytest.raises(ApiError) as err:
            await c.audit("g-0000000000000000")
        assert err.value.code == "game/not_found"
        t = await c.create_table("duel", seats=2, options={"rounds": 3})
        await c.add_bot(t["table_id"])
        gid = await c.start(t["table_id"])  # this seat never moves: the game stays open
        for _ in range(100):
            try:
                await c.audit(gid)
            except ApiError as exc:
                if exc.code == "game/not_found":  # right after start
                    await asyncio.sleep(0.05)
                    continue
                assert exc.code == "replay/not_ended"
                break
            raise AssertionError("an audit bundle of a running game was served")
        else:
            raise AssertionError("the game never appeared")
