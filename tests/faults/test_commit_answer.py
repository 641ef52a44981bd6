"""A commit the escrow does not answer is answered ``message/unavailable`` by the gateway
within a bound, never left waiting in silence. The gateway publishes a commit and
the escrow's receipt comes back through the fan-out; with the gateway's fan-out cut off from
Valkey for 30 s (tests/faults, the gateway-partition-30s scenario) a commit published just
before the cut waited 30 s for an answer and its client timed out on its own. Here the escrow
is stopped instead (the same silence, deterministic): the commit must get its typed answer
within the gateway's bound (services/gateway/fanout/hub.py, COMMIT_ANSWER_S)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from clients.sdk import ApiError, Client
from services.supervisor import Supervisor
from shared.runtime.valkey import free_port
from tests.reliability.conftest import retry

pytestmark = [pytest.mark.e2e, pytest.mark.faults, pytest.mark.full]
BOUND_S = 25.0  # the gateway's bound (10 s) with slack; below the SDK's own 30-s wait


async def test_an_unanswered_commit_is_answered_unavailable_within_the_bound() -> None:
    sup = Supervisor(port=free_port(), log_dir=Path("test-output/faults/logs/commit-answer"))
    sup.start(wait=240)
    a, b = Client(sup.url), Client(sup.url)
    try:
        await retry(a.sign_in, "ca-a")
        await retry(b.sign_in, "ca-b")
        t = await retry(a.create_table, "duel", 2,
                        {"rounds": 3, "with_turns": False, "with_dice": False})
        await retry(b.join, t["table_id"])
        gid = await retry(a.start, t["table_id"])
        game = await a.watch(gid)
        await game.wait_until(lambda: game.view is not None
                              and game.view["node"]["kind"] == "simultaneous", 60)
        round_id = game.view["node"]["round_id"] if game.view else ""
        # the round is open at the escrow (its key is in the record) before it goes
        await game.wait_until(lambda: round_id in game.escrow_keys, 60)
        sup.kill("escrow", 0, restart=False)  # nobody answers commits now
        await asyncio.sleep(0.5)
        node = game.view["node"] if game.view else {}
        choice = "" if node["round_id"] == "entropy" else 3
        with pytest.raises(ApiError) as refused:
            await asyncio.wait_for(game.commit(node["round_id"], f"s{game.seat}", choice),
                                   BOUND_S)
        assert refused.value.code == "message/unavailable"
    finally:
        await a.close()
        await b.close()
        sup.stop()
