"""The in-memory fakes (tests/support/fakes.py) answer as the Redis stores do: each check
runs against both, the store on a real server. A fake that drifts from its store fails here,
so the fast service tests (tests/service) keep testing what production does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from services.adjudicator import core as adj_core
from services.adjudicator.store import Store as AdjudicatorStore
from services.dealer.store import DealerStore
from services.scoring.store import ScoringStore, game_history_key, history_key
from shared.protocol import internal as im
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import loads
from tests.support.fakes import FakeAdjudicatorStore, FakeDealerStore, FakeScoringStore

pytestmark = pytest.mark.integration



@pytest.fixture(params=["fake", "redis"])
def dealer_store(request: pytest.FixtureRequest, r: Any) -> Any:
    return FakeDealerStore() if request.param == "fake" else DealerStore(r)


@pytest.fixture(params=["fake", "redis"])
def scoring_store(request: pytest.FixtureRequest, r: Any) -> Any:
    return FakeScoringStore() if request.param == "fake" else ScoringStore(r)


async def test_dealer_store_contract(dealer_store: Any) -> None:
    s = dealer_store
    assert await s.fields("g-1") == {}
    assert await s.commit_seed("g-1", "ab" * 32, "r1", "c0ffee", '{"type":"seed_committed"}')
    assert not await s.commit_seed("g-1", "cd" * 32, "r2", "other", '{"type":"x"}')
    assert await s.commitment("g-1") == "c0ffee"
    fields = await s.fields("g-1")
    assert (fields["seed"], fields["rules_version"]) == ("ab" * 32, "r1")
    assert await s.fix_client_seeds("g-1", '["aa"]')
    assert await s.fix_client_seeds("g-1", '["aa"]')
    assert not await s.fix_client_seeds("g-1", '["bb"]')
    assert await s.store_draw("g-1", "b", '{"v":1}') is None
    assert await s.store_draw("g-1", "a", '{"v":2}') is None
    assert await s.store_draw("g-1", "b", '{"v":3}') == '{"v":1}'
    assert await s.order("g-1") == ["b", "a"]
    assert (await s.fields("g-1"))["draw:a"] == '{"v":2}'
    assert await s.reveal("g-1", '{"type":"seed_revealed"}', 60_000)
    assert not await s.reveal("g-1", '{"type":"seed_revealed"}', 60_000)


async def test_dealer_store_writes_the_record_once(r: Any) -> None:
    s = DealerStore(r)
    await s.commit_seed("g-1", "ab" * 32, "r1", "c", '{"type":"seed_committed"}')
    await s.commit_seed("g-1", "ab" * 32, "r1", "c", '{"type":"seed_committed"}')
    await s.reveal("g-1", '{"type":"seed_revealed"}', 60_000)
    await s.reveal("g-1", '{"type":"seed_revealed"}', 60_000)
    kinds = [loads(f[b"d"])["type"] for _, f in await r.xrange(Keys("g-1").record)]
    assert kinds == ["seed_committed", "seed_revealed"]
    assert 0 < await r.pttl(Keys("g-1").dealer) <= 60_000


def decide_with(seen: list[list[Any]], n: int) -> Callable[[list[Any]], Any]:
    def decide(prior: list[Any]) -> Any:
        seen.append(prior)
        rows = {f"p{i}": {"mu": 25.0 + n, "games": ((prior[i] or {}).get("games", 0)) + 1}
                for i in range(len(prior))}
        return rows, {"game_id": f"g-{n}", "game": "duel", "ended_ms": 1_000 + n,
                      "players": [{"player_id": f"p{i}"} for i in range(len(prior))],
                      "ratings": [rows[f"p{i}"] for i in range(len(prior))]}
    return decide


async def test_scoring_store_contract(scoring_store: Any, r: Any) -> None:
    s = scoring_store
    seen: list[list[Any]] = []
    rec, rated = await s.rate_once("duel", "g-1", ["p0", "p1"], decide_with(seen, 1))
    assert rated and rec["game_id"] == "g-1" and seen == [[None, None]]
    again, rated = await s.rate_once("duel", "g-1", ["p0", "p1"], decide_with(seen, 9))
    assert not rated and again == rec and len(seen) == 1  # once: the stored record
    _, rated = await s.rate_once("duel", "g-2", ["p1", "p0"], decide_with(seen, 2))
    assert rated and seen[-1] == [rec["ratings"][1], rec["ratings"][0]]
    for n in range(3):
        await s.publish({"game_id": f"h-{n}", "game": "duel", "ended_ms": 10 + n,
                         "players": [{"player_id": "p0"}], "ratings": []}, {"p0": 1.5}, 2)
    if isinstance(s, FakeScoringStore):
        hist, per_game = s.histories[history_key("p0")], s.histories[game_history_key("duel")]
        assert sorted(hist) == sorted(per_game) == ["h-1", "h-2"]
        assert s.leaderboards["duel"] == {"p0": 1.5} and "h-2" in s.results
    else:
        assert [m.decode() for m in await r.zrange(history_key("p0"), 0, -1)] == ["h-1", "h-2"]
        assert await r.zcard(game_history_key("duel")) == 2
        assert await r.zscore("lb:duel", "p0") == 1.5
        assert await r.exists(Keys("h-2").result)


@pytest.fixture(params=["fake", "redis"])
def adjudicator_store(request: pytest.FixtureRequest, r: Any) -> Any:
    return FakeAdjudicatorStore() if request.param == "fake" else AdjudicatorStore(r)


async def test_adjudicator_store_contract(adjudicator_store: Any) -> None:
    s = adjudicator_store
    players = [im.PlayerRef(player_id=f"p{i}", name=f"n{i}") for i in range(2)]
    eff = adj_core.create(im.CreateGame(game_id="g-1", game="duel", players=players,
                                        client_entropy=False), expires_ms=10**13)
    doc = eff.doc
    assert doc is not None and await s.load("g-1") is None
    views = adj_core.render_views(doc, [])
    assert (await s.commit(-1, doc, eff.log, eff.records, views)).ok
    again = await s.commit(-1, doc, eff.log, eff.records, views)  # created already
    assert (again.ok, again.duplicate, again.current_seq) == (False, False, doc.seq)
    nxt = doc.model_copy(update={"seq": doc.seq + 1})
    stale = await s.commit(doc.seq + 5, nxt, [], [], views, cmd_id="c1", seat=0)
    assert (stale.ok, stale.current_seq) == (False, doc.seq)
    assert not await s.command_known("g-1", 0, "c1")  # a failed CAS applies no id
    assert (await s.commit(doc.seq, nxt, [{"cmd_id": "c1"}], [], views, "c1", 0)).ok
    assert await s.command_known("g-1", 0, "c1") and not await s.command_known("g-1", 1, "c1")
    later = nxt.model_copy(update={"seq": nxt.seq + 1})
    dup = await s.commit(nxt.seq, later, [], [], views, cmd_id="c1", seat=0)
    assert (dup.ok, dup.duplicate) == (False, True)
    loaded = await s.load("g-1")
    assert loaded is not None and loaded.seq == nxt.seq
    assert await s.remember_rejection("g-1", 1, "c9")
    assert not await s.remember_rejection("g-1", 1, "c9")
    assert await s.command_known("g-1", 1, "c9") and not await s.command_known("g-1", 0, "c9")
    await s.arm_timer("g-1", "expire", 1_000)
    await s.arm_timer("g-1", "expire", 5_000, keep=True)  # an armed timer keeps its time
    fired: list[str] = []

    async def handle(member: str) -> bool:
        fired.append(member)
        return True

    assert await s.timers.poll_once(handle, 2_000) == 1 and fired == ["g-1|expire"]
    assert await s.timers.poll_once(handle, 20_000) == 0  # done: dropped
