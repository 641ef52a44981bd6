"""The in-memory fakes (tests/support/fakes) answer as the Redis stores do: each check
runs against both, the store on a real server. A fake that drifts from its store fails here,
so the fast service tests (tests/service) keep testing what production does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from services.adjudicator import core as adj_core
from services.adjudicator.store import Store as AdjudicatorStore
from services.bots.store import BotsStore, decode
from services.dealer.store import DealerStore
from services.escrow.ports import CloseInputs, Step
from services.escrow.store import EscrowStore
from services.lobby import tables as lobby_tables
from services.lobby.accounts.store import AccountsStore, handle_key, player_key
from services.lobby.store import LobbyStore
from services.lobby.tables import LobbyError
from services.scoring.store import (
    ScoringStore,
    game_history_key,
    history_key,
    leaderboard_key,
    ratings_key,
)
from shared.identity import handles
from shared.protocol import internal as im
from shared.protocol import keys as lobby_keys
from shared.protocol import lobby as lm
from shared.protocol import streams
from shared.protocol.streams import Keys
from shared.runtime.jsonutil import dumps, loads, text
from shared.runtime.redis import ensure_group
from tests.support.fakes import (
    FakeAccountsStore,
    FakeAdjudicatorStore,
    FakeBotsStore,
    FakeDealerStore,
    FakeEscrowStore,
    FakeLobbyStore,
    FakeScoringStore,
)
from tests.support.sealing import ESCROW_KEY

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
    s.refusals_kept = 2  # a seat keeps only its latest refusals (ids in time and name order)
    assert await s.remember_rejection("g-1", 1, "d1")
    assert await s.remember_rejection("g-1", 1, "d2")
    assert not await s.command_known("g-1", 1, "c9") and await s.command_known("g-1", 1, "d2")
    await s.arm_timer("g-1", "expire", 1_000)
    await s.arm_timer("g-1", "expire", 5_000, keep=True)  # an armed timer keeps its time
    fired: list[str] = []

    async def handle(member: str) -> bool:
        fired.append(member)
        return True

    assert await s.timers.poll_once(handle, 2_000) == 1 and fired == ["g-1|expire"]
    assert await s.timers.poll_once(handle, 20_000) == 0  # done: dropped


@pytest.fixture(params=["fake", "redis"])
def lobby_store(request: pytest.FixtureRequest, r: Any) -> Any:
    return FakeLobbyStore() if request.param == "fake" else LobbyStore(r)


def _table(tid: str, created: int, **kw: Any) -> lm.Table:
    return lm.Table(table_id=tid, game="duel", seats=2, host="p-h", invite="inv-" + tid,
                    players=[im.PlayerRef(player_id="p-h", name="H")], turn_timeout_ms=1,
                    round_timeout_ms=1, created_ms=created, **kw)


async def test_lobby_store_contract(lobby_store: Any, r: Any) -> None:
    s = lobby_store
    assert await s.claim_handle("ada", "p-1", 60) and not await s.claim_handle("ada", "p-2", 60)
    with pytest.raises(LobbyError):
        await s.load("t-none")
    await s.create(_table("t-1", 100))
    await s.create(_table("t-2", 200))
    await s.create(_table("t-3", 300, public=False))
    assert (await s.load("t-1")).created_ms == 100 and await s.table_of_invite("inv-1") is None
    assert await s.table_of_invite("inv-t-2") == "t-2"
    assert [m for m, _ in await s.newest(lobby_keys.LOBBY_OPEN_TABLES, None, 10)] == ["t-2",
                                                                                      "t-1"]
    assert await s.newest(lobby_keys.LOBBY_OPEN_TABLES, (150, ""), 10) == [("t-1", 100)]
    assert await s.idle(250) == ["t-1", "t-2"]

    def join(t: lm.Table) -> lm.Table:
        return t.model_copy(update={"players": [*t.players, im.PlayerRef(player_id="p-2",
                                                                          name="B")],
                                    "updated_ms": 400})

    same = await s.load("t-1")
    assert await s.update("t-1", lambda t: t, 60) == same  # no change: nothing written
    assert len((await s.update("t-1", join, 60)).players) == 2
    assert [m for m, _ in await s.newest(lobby_keys.LOBBY_OPEN_TABLES, None, 10)] == ["t-2"]
    assert await s.idle(250) == ["t-2"]  # t-1 changed at 400
    started = await s.update("t-1", lambda t: t.model_copy(update={"status": "started"}), 60)
    assert started.status == "started" and "t-1" not in await s.idle(10**6)
    assert set((await s.load_many(["t-1", "t-9"])).keys()) == {"t-1", "t-9"}
    assert (await s.load_many(["t-9"]))["t-9"] is None
    await s.forget_idle("t-2")
    assert await s.idle(10**6) == ["t-3"] and await s.newest(lobby_keys.LOBBY_OPEN_TABLES,
                                                             None, 10) == []
    limits = (2, 1, 2)
    assert await s.reserve("p-h", "table", "t-1", 1, limits) == ""
    assert await s.reserve("p-h", "table", "t-2", 1, limits) == ""
    assert await s.reserve("p-h", "table", "t-3", 1, limits) == "open_tables"
    assert await s.reserve("p-h", "bot", "t-1", 2, limits) == ""
    assert await s.reserve("p-h", "bot", "t-1", 3, limits) == ""
    assert await s.reserve("p-h", "bot", "t-2", 3, limits) == "bot_seats"
    assert await s.reserve("p-h", "unbot", "t-1", 4, limits) == ""
    assert await s.reserve("p-h", "start", "t-1", 5, limits, "g-1", 1) == ""
    assert await s.reserve("p-h", "start", "t-1", 5, limits, "g-1", 1) == ""  # held already
    assert await s.reserve("p-h", "start", "t-2", 6, limits, "g-2", 0) == "running_games"
    assert await s.reservations("p-h") == ({"t-2": "0:1"}, {"g-1": "1:5"})
    assert await s.reserve("p-h", "unstart", "t-1", 7, limits, "g-1") == ""
    assert await s.reservations("p-h") == ({"t-2": "0:1", "t-1": "1:5"}, {})
    await s.apply("p-h", lobby_tables.Reconcile(drop_tables=["t-2"], set_tables={"t-4": "0:9"}))
    assert await s.reservations("p-h") == ({"t-1": "1:5", "t-4": "0:9"}, {})
    assert await s.reserve("p-h", "drop_table", "t-1", 8, limits) == ""
    assert await s.games_over(["g-1"]) == {"g-1": None}
    await s.put_meta("g-1", {"n": 1})
    await s.put_meta("g-1", {"n": 2})  # written once
    assert await s.games_over(["g-1"]) == {"g-1": False}
    await s.add_live("g-1", 10)
    await s.add_live("g-1", 20)  # a retry keeps the first
    assert await s.newest(lobby_keys.LOBBY_LIVE_GAMES, None, 5) == [("g-1", 10)]
    await s.drop_live_before(10)
    assert await s.newest(lobby_keys.LOBBY_LIVE_GAMES, None, 5) == []
    for i in range(3):
        await s.audit({"action": f"a{i}"}, 100)
    assert [e["action"] for e in await s.audit_entries(2)] == ["a2", "a1"]
    if isinstance(s, LobbyStore):
        assert loads(await r.get(Keys("g-1").meta)) == {"n": 1}
        await r.pexpire(Keys("g-1").meta, 60_000)
    # a seat handed to a bot: compare-and-set on the metadata, its lifetime kept
    assert await s.get_meta("g-1") == {"n": 1}
    assert await s.get_meta("g-none") is None
    assert await s.change_meta("g-1", lambda m: {**m, "n": m["n"] + 1}) == {"n": 2}
    assert await s.change_meta("g-1", lambda m: None) is None  # nothing to change
    assert await s.change_meta("g-none", lambda m: {"n": 9}) is None
    assert await s.get_meta("g-1") == {"n": 2}
    if isinstance(s, LobbyStore):
        assert 0 < await r.pttl(Keys("g-1").meta) <= 60_000


@pytest.fixture(params=["fake", "redis"])
def accounts_store(request: pytest.FixtureRequest, r: Any) -> Any:
    return FakeAccountsStore(("duel",)) if request.param == "fake" else AccountsStore(r)


async def _sign_up(s: Any, r: Any, pid: str, name: str) -> dict[str, Any]:
    """A guest as the lobby's store makes one: its record and its held name."""
    p = {"player_id": pid, "name": name, "bot": None, "created_ms": 1}
    if isinstance(s, FakeAccountsStore):
        s.add_player(p, name)
    else:
        await LobbyStore(r).put_player(p, 3600)
        assert await LobbyStore(r).claim_handle(handles.key(name), pid, 3600)
    return p


async def test_accounts_store_players_and_names(accounts_store: Any, r: Any) -> None:
    s = accounts_store
    p = await _sign_up(s, r, "p-1", "Ada")
    assert await s.player("p-1") == p and await s.player("p-2") is None
    assert await s.pid_of_name("ada") == "p-1" and await s.pid_of_name("Bob") is None
    await s.make_account({**p, "account": True, "account_ms": 5})
    assert (await s.player("p-1"))["account"] is True
    await s.put_player({**p, "account": True, "suspended": True})
    assert (await s.player("p-1"))["suspended"] is True
    if not isinstance(s, FakeAccountsStore):  # an account's record and name stop expiring
        assert await r.ttl(player_key("p-1")) == -1 and await r.ttl(handle_key("Ada")) == -1
    await s.set_password_hash("p-1", "h1")
    assert await s.claim_passkey("cred-1", "p-1")
    assert not await s.claim_passkey("cred-1", "p-9")
    await s.put_passkey("p-1", "cred-1", {"sign_count": 0})
    await s.delete_player("p-1", "Ada", ["cred-1"])
    assert await s.player("p-1") is None and await s.pid_of_name("Ada") is None
    assert await s.passkey_owner("cred-1") is None and await s.password_hash("p-1") is None
    if isinstance(s, FakeAccountsStore):
        assert "p-1" in s.erased
    else:
        assert await r.sismember(lobby_keys.LOBBY_ERASED, "p-1")


async def test_accounts_store_sessions(accounts_store: Any, r: Any) -> None:
    s = accounts_store
    for n, sid in enumerate(["s-a", "s-b", "s-c"]):
        await s.open_session("p-1", sid, f"h-{sid}", 100 + n, "agent", 60, 120)
    assert await s.session_ids("p-1") == ["s-a", "s-b", "s-c"]
    assert await s.sessions_beyond("p-1", 2) == ["s-a"]
    assert await s.sessions_beyond("p-1", 5) == []
    assert await s.session_owner("s-b") == "p-1" and await s.session_owner("s-x") is None
    assert await s.session_live("s-b") and not await s.session_live("s-x")
    # rotation: the current secret once, then it is spent (reuse), unknown ones invalid
    assert await s.rotate("s-b", "h-s-b", "h2", 200, 60, 50) == ("ok", "p-1")
    assert await s.rotate("s-b", "h-s-b", "h3", 201, 60, 50) == ("reused", "p-1")
    assert await s.rotate("s-b", "nope", "h3", 201, 60, 50) == ("invalid", "")
    assert await s.rotate("s-x", "h", "h3", 201, 60, 50) == ("gone", "")
    assert await s.rotate("s-b", "h2", "h4", 202, 60, 50) == ("ok", "p-1")
    await s.touch_session("s-b", 60, "new agent")
    rows = await s.session_rows(["s-b", "s-x"])
    assert rows[1] == {} and rows[0]["agent"] == "new agent"
    assert (rows[0]["pid"], rows[0]["created_ms"], rows[0]["used_ms"]) == ("p-1", "101", "202")
    assert await s.revoke("s-b", "p-1", 30)
    assert not await s.revoke("s-b", "p-1", 30)  # gone already
    assert not await s.session_live("s-b") and await s.session_ids("p-1") == ["s-a", "s-c"]
    await s.forget_sessions("p-1", ["s-a"])
    assert await s.session_ids("p-1") == ["s-c"]


async def test_accounts_store_binds_one_key_per_session(accounts_store: Any, r: Any) -> None:
    """A session's key: bound once (compare-and-set), handed on only from the bound one, and
    withdrawn from the player's registry when the session is revoked."""
    from shared.runtime import session_keys

    s = accounts_store

    async def held(key: str) -> bool:
        if isinstance(s, FakeAccountsStore):
            return key in s.session_keys.get("p-1", {})
        return await session_keys.registered(r, "p-1", key, 1_000)

    k1, k2, k3 = "a1" * 32, "b2" * 32, "c3" * 32
    assert await s.bind_session_key("s-gone", "", k1) is None  # no such session
    await s.open_session("p-1", "s-k", "h", 100, "agent", 60, 120)
    assert await s.bound_key("s-k") is None
    assert await s.bind_session_key("s-k", "", k1) == k1
    assert await s.bind_session_key("s-k", "", k2) == k1  # already bound: unchanged
    assert await s.bind_session_key("s-k", k2, k3) == k1  # not from the bound key
    assert await s.bind_session_key("s-k", k1, k2) == k2 and await s.bound_key("s-k") == k2
    await s.register_session_key("p-1", k2, 10**15, 1_000)
    await s.register_session_key("p-1", k3, 10**15, 1_000)
    await s.unregister_session_key("p-1", k3)
    assert await held(k2) and not await held(k3)
    assert await s.revoke("s-k", "p-1", 30)
    assert not await held(k2) and await s.bound_key("s-k") is None


async def test_accounts_store_failures_challenges_credentials(accounts_store: Any,
                                                              r: Any) -> None:
    s = accounts_store
    assert await s.failures("ada") is None
    await s.count_failure("ada", 300)
    await s.count_failure("ada", 999)  # the window starts at the first failure
    assert await s.failures("ada") == 2 and 0 < await s.failures_ttl("ada") <= 300
    await s.clear_failures("ada")
    assert await s.failures("ada") is None
    await s.put_challenge("c-1", {"kind": "sign_in", "pid": "", "challenge": "xyz"}, 60)
    assert await s.take_challenge("c-1") == {"kind": "sign_in", "pid": "", "challenge": "xyz"}
    assert await s.take_challenge("c-1") is None  # once
    assert await s.credentials("p-1") == (False, {})
    await s.set_password_hash("p-1", "hash")
    await s.put_passkey("p-1", "cred-1", {"sign_count": 1, "label": "key"})
    assert await s.password_hash("p-1") == "hash"
    assert await s.credentials("p-1") == (True, {"cred-1": {"sign_count": 1, "label": "key"}})
    assert await s.passkeys("p-1") == {"cred-1": {"sign_count": 1, "label": "key"}}
    assert await s.passkey("p-1", "cred-1") == {"sign_count": 1, "label": "key"}
    assert await s.passkey("p-1", "cred-2") is None
    assert await s.claim_passkey("cred-1", "p-1") and await s.passkey_owner("cred-1") == "p-1"


async def test_accounts_store_erases_a_players_scores(accounts_store: Any, r: Any) -> None:
    s = accounts_store
    if isinstance(s, FakeAccountsStore):
        s.scores["duel"] |= {"p-1", "p-2"}
        s.histories |= {"p-1", "p-2"}
    else:
        await r.hset(ratings_key("duel"), mapping={"p-1": "{}", "p-2": "{}"})
        await r.zadd(leaderboard_key("duel"), {"p-1": 1.0, "p-2": 2.0})
        await r.zadd(history_key("p-1"), {"g-1": 1})
    await s.erase_scores("p-1", ["duel"])
    if isinstance(s, FakeAccountsStore):
        assert s.scores["duel"] == {"p-2"} and s.histories == {"p-2"}
    else:
        assert await r.hkeys(ratings_key("duel")) == [b"p-2"]
        assert await r.zrange(leaderboard_key("duel"), 0, -1) == [b"p-2"]
        assert not await r.exists(history_key("p-1"))


@pytest.fixture(params=["fake", "redis"])
def bots_store(request: pytest.FixtureRequest, r: Any) -> Any:
    return FakeBotsStore("runner-1") if request.param == "fake" else BotsStore(r, "runner-1")


async def test_bots_store_contract(bots_store: Any, r: Any) -> None:
    s = bots_store
    await s.keep("g-1:0", '{"seat":0}')
    await s.keep("g-2:1", '{"seat":1}')
    await s.forget("g-2:1")
    cursor, page = await s.active_page(0)
    assert cursor == 0 and [text(x) for x in page] == ['{"seat":0}']
    assert await s.lease("g-1:0") and not await s.lease("g-1:0")  # held (by anyone)
    await s.renew("g-1:0")
    assert not await s.lease("g-1:0")
    await s.release("g-1:0")
    assert await s.lease("g-1:0")
    await s.park("g-1:0", '{"until_ms":1}')  # a parked seat's note (bots:parked)
    await s.park("g-3:0", '{"until_ms":2}')
    await s.unpark("g-3:0")
    assert await s.parked() == {"g-1:0": '{"until_ms":1}'}
    await s.keep("g-4:0", '{"seat":0}')
    await s.park("g-4:0", '{"until_ms":3}')
    await s.forget("g-4:0")  # a seat forgotten loses its note too
    assert await s.parked() == {"g-1:0": '{"until_ms":1}'}
    await ensure_group(r, streams.BOTS_IN, streams.GROUP_BOTS)

    async def add(body: dict[str, Any]) -> bytes:  # the lobby's XADD
        if isinstance(s, FakeBotsStore):
            return s.add(body)
        return bytes(await r.xadd(streams.BOTS_IN, {"d": dumps(body)}))

    ids = [await add({"n": i}) for i in range(3)]
    first = await s.read(2, 0.1)
    assert [decode(f) for _, f in first] == [{"n": 0}, {"n": 1}]  # at most what was asked
    assert [decode(f) for _, f in await s.read(5, 0.1)] == [{"n": 2}]
    assert await s.read(5, 0.1) == []  # each entry delivered once
    await s.done(ids)
    if not isinstance(s, FakeBotsStore):
        assert await r.xlen(streams.BOTS_IN) == 0  # XACKed and XDELed: no bytes left


@pytest.fixture(params=["fake", "redis"])
def escrow_store(request: pytest.FixtureRequest, r: Any) -> Any:
    return FakeEscrowStore() if request.param == "fake" else EscrowStore(r)


async def _escrow_record(s: Any, r: Any, gid: str) -> list[str]:
    if isinstance(s, FakeEscrowStore):
        return [e["type"] for e in s.records.get(gid, [])]
    return [loads(f[b"d"])["type"] for _, f in await r.xrange(Keys(gid).record)]


async def _fired(s: Any, now_ms: int) -> list[str]:
    fired: list[str] = []

    async def handle(member: str) -> bool:
        fired.append(member)
        return True

    await s.timers.poll_once(handle, now_ms)
    return fired


def _entry(kind: str, **kw: Any) -> str:
    return dumps({"type": kind, **kw})


ESC_SLOTS = ["s0", "s1", "s2"]


def _esc_spec(gid: str, round_id: str = "r1") -> im.OpenRound:
    return im.OpenRound(game_id=gid, game="duel", round_id=round_id, ordered=True, deadline_ms=9,
                        slots=[im.SlotSpec(seat=i, key=k, default=0)
                               for i, k in enumerate(ESC_SLOTS)])


async def test_escrow_store_contract(escrow_store: Any, r: Any) -> None:
    s = escrow_store
    assert await s.seal_key(ESCROW_KEY) == ESCROW_KEY
    assert await s.seal_key("ff" * 32) == ESCROW_KEY  # the first key stays
    spec = _esc_spec("e-1")
    assert await s.round_spec("e-1", "r1") is None
    assert await s.begin_close("e-1", "r1") == ""  # no such round
    assert await s.open_round(spec, {"e-1|r1": 9, "e-1|r1|s0": 5}, _entry("round_opened"),
                              dumps({"s0": "aa"}), 1_000)
    assert not await s.open_round(spec, {"e-1|r1": 9}, _entry("round_opened"), "{}",
                                  2_000)  # once
    assert await s.round_spec("e-1", "r1") == spec
    assert await _fired(s, 6) == ["e-1|r1|s0"]  # armed with the open
    # a seat handed to a bot while the round is open: its slots are the bot's
    await s.hand_over_slot("e-1", "r1", 1, "b-bot")
    moved = await s.round_spec("e-1", "r1")
    assert moved.handed == [1] and [sl.player_id for sl in moved.slots if sl.seat == 1] == [
        "b-bot"] * sum(1 for sl in spec.slots if sl.seat == 1)
    assert [sl for sl in moved.slots if sl.seat != 1] == [sl for sl in spec.slots
                                                          if sl.seat != 1]

    def commit(slot: str, prev: str) -> Any:
        return s.record_commit("e-1", "r1", slot, "c-" + slot, dumps({"choice": slot}), prev,
                               _entry("committed", slot=slot), ESC_SLOTS)

    assert (await commit("s1", "s0")).status == "order"  # s0 not done yet
    assert await commit("s0", "") == Step("ok", 1)
    assert (await commit("s0", "")).status == "dup"
    assert await s.commitment("e-1", "r1", "s0") == "c-s0"
    assert await s.commitment("e-1", "r1", "s1") is None

    def skip(slot: str, prev: str) -> Any:
        return s.time_out_slot("e-1", "r1", slot, prev, _entry("slot_timed_out", slot=slot),
                               ESC_SLOTS)

    assert (await skip("s0", "")).status == "committed"
    assert (await skip("s2", "s1")).status == "order"
    assert await skip("s1", "s0") == Step("ok", 2)
    assert (await skip("s1", "s0")).status == "dup"
    assert (await commit("s1", "s0")).status == "timed_out"
    assert await s.commit_count("e-1", "r1") == 1
    # done: committed (s0) or timed out (s1); s2 neither yet
    assert [await s.slot_done("e-1", "r1", k) for k in ("s0", "s1", "s2")] == [
        True, True, False]
    last = await commit("s2", "s1")  # the last slot: closing, with what the close reads
    expected = CloseInputs({"s0": {"choice": "s0"}, "s2": {"choice": "s2"}},
                           {"s0": "c-s0", "s2": "c-s2"}, {"s0": "aa"})
    assert last == Step("ok", 3, expected)
    assert (await commit("s2", "s1")).status == "closed"
    assert await s.begin_close("e-1", "r1") == "closing"
    assert await s.close_inputs("e-1", "r1", ESC_SLOTS) == expected
    reveal = im.RoundRevealed(game_id="e-1", round_id="r1", choices={"s0": 1})
    assert await s.reveal_of("e-1", "r1") is None
    assert await s.close_round("e-1", "r1", _entry("round_closed"), _entry("round_revealed"),
                               reveal.model_dump_json()) == (True, 1_000)
    assert await s.close_round("e-1", "r1", _entry("x"), _entry("y"), "{}") == (False, 1_000)
    assert await s.begin_close("e-1", "r1") == "closed"
    assert await s.reveal_of("e-1", "r1") == reveal
    assert await _fired(s, 10**6) == []  # the close dropped the round's deadline
    assert await _escrow_record(s, r, "e-1") == [
        "round_opened", "committed", "slot_timed_out", "committed", "round_closed",
        "round_revealed"]
    await s.arm_timer("e-1|r2|s1", 50)
    await s.arm_timer("e-1|r2|s1", 10, keep=True)  # armed already: keeps its time
    assert await _fired(s, 20) == [] and await _fired(s, 60) == ["e-1|r2|s1"]


async def test_escrow_store_writes_nothing_after_the_game_ended(escrow_store: Any,
                                                                r: Any) -> None:
    s = escrow_store
    assert await s.open_round(_esc_spec("e-2"), {"e-2|r1": 9}, _entry("round_opened"), "{}", 1)
    if isinstance(s, FakeEscrowStore):  # the adjudicator's game_ended in the game's record
        s.records["e-2"].append({"type": "game_ended"})
    else:
        await r.xadd(Keys("e-2").record, {"d": _entry("game_ended")})
    res = await s.record_commit("e-2", "r1", "s0", "c", "{}", "", _entry("committed"),
                                ESC_SLOTS)
    assert res.status == "closed"
    assert (await s.time_out_slot("e-2", "r1", "s0", "", _entry("t"), ESC_SLOTS)).status \
        == "closed"
    assert await s.begin_close("e-2", "r1") == "closing"
    assert (await s.close_round("e-2", "r1", _entry("round_closed"), _entry("round_revealed"),
                                "{}"))[0]
    assert not await s.open_round(_esc_spec("e-2", "r2"), {"e-2|r2": 9}, _entry("round_opened"),
                                  "{}", 2)  # asked for before the end, arrived after it
    assert await _escrow_record(s, r, "e-2") == ["round_opened", "game_ended"]


async def test_escrow_store_only_extends_its_keys_lifetime(r: Any) -> None:
    s = EscrowStore(r)
    assert await s.open_round(_esc_spec("e-3"), {"e-3|r1": 9}, _entry("round_opened"), "{}", 1,
                              ttl_ms=60_000)
    assert await s.open_round(_esc_spec("e-3", "r2"), {"e-3|r2": 9}, _entry("round_opened"),
                              "{}", 1, ttl_ms=1_000)  # never shortened
    assert 1_000 < await r.pttl(Keys("e-3").esc_round) <= 60_000
    assert await r.pttl(Keys("e-3").esc_commits("r1")) == -2  # missing: skipped


async def test_escrow_store_open_and_close_extend_its_keys_lifetime(r: Any) -> None:
    s = EscrowStore(r)
    k = Keys("e-4")
    assert await s.open_round(_esc_spec("e-4"), {"e-4|r1": 9}, _entry("round_opened"), "{}", 1,
                              ttl_ms=60_000)
    assert 1_000 < await r.pttl(k.esc_round) <= 60_000
    assert 1_000 < await r.pttl(k.esc_status) <= 60_000
    assert await r.pttl(k.esc_commits("r1")) == -2  # missing: skipped
    assert not await s.open_round(_esc_spec("e-4"), {"e-4|r1": 9}, _entry("round_opened"), "{}",
                                  1, ttl_ms=900_000)  # a duplicate open extends nothing
    assert await r.pttl(k.esc_round) <= 60_000
    for slot in ESC_SLOTS:
        prev = "" if slot == "s0" else ESC_SLOTS[ESC_SLOTS.index(slot) - 1]
        await s.record_commit("e-4", "r1", slot, "c-" + slot, "{}", prev, _entry("committed"),
                              ESC_SLOTS)
    assert await r.pttl(k.esc_commits("r1")) == -1  # committed, no lifetime yet
    done, _ = await s.close_round("e-4", "r1", _entry("round_closed"),
                                  _entry("round_revealed"), "{}", ttl_ms=120_000)
    assert done
    assert 60_000 < await r.pttl(k.esc_commits("r1")) <= 120_000
    assert 60_000 < await r.pttl(k.esc_open) <= 120_000
    assert 60_000 < await r.pttl(k.esc_round) <= 120_000
