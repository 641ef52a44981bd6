"""The pure parts of handing a seat to a bot and of the invite link: how ratings rank a
handed-over seat, the lobby's metadata change, the gateway's reading of the record, the link."""

from __future__ import annotations

from typing import Any

import pytest

from services.gateway.fanout import handover as gw
from services.lobby import invites, resign
from services.scoring import core as scoring
from shared.protocol import internal as im
from shared.runtime.jsonutil import dumps

pytestmark = pytest.mark.unit

PLAYERS = [im.PlayerRef(player_id=f"p{i}", name=f"n{i}") for i in range(4)]
BOT = im.PlayerRef(player_id="b-1", name="bot", bot="heuristic")


def ended(places: list[int], handed: list[int]) -> im.GameEnded:
    outcome: dict[str, Any] = {"status": "finished", "results": [
        {"seat": i, "place": p} for i, p in enumerate(places)]}
    return im.GameEnded(game_id="g", game="duel", players=PLAYERS[:len(places)],
                        outcome=outcome, handed_over=[
                            im.HandedSeat(seat=s, player=PLAYERS[s], to=BOT, reason="resigned")
                            for s in handed])


@pytest.mark.parametrize(("places", "handed", "ranked"), [
    ([1, 2, 3], [], [1, 2, 3]),
    ([1, 2, 3], [0], [3, 1, 2]),  # the bot won the seat: its player still ranks last
    ([2, 1, 2, 3], [3], [2, 1, 2, 4]),  # the others' order and tie stay
    ([1, 2, 2, 4], [0, 3], [3, 1, 1, 3]),  # two resigned share last place
    ([1, 2], [0, 1], [1, 1]),  # everyone resigned: all share the one place
])
def test_a_handed_over_seat_is_ranked_last_and_the_others_keep_their_places(
        places: list[int], handed: list[int], ranked: list[int]) -> None:
    assert scoring.ranked(ended(places, handed), places) == ranked


def test_the_resigned_player_is_rated_with_a_loss_and_never_the_bot() -> None:
    rows, record = scoring.score(ended([1, 2], [0]), [None, None], 0)
    assert set(rows) == {"p0", "p1"}
    assert rows["p1"]["wins"] == 1 and rows["p0"]["wins"] == 0
    assert rows["p1"]["mu"] > rows["p0"]["mu"]
    assert record["handed_over"][0]["seat"] == 0


def test_the_lobby_hands_a_seat_over_once() -> None:
    meta = {"game_id": "g", "players": [p.model_dump() for p in PLAYERS[:2]]}
    after = resign.with_hand_over(meta, 1, "p1", BOT, "resigned")
    assert after is not None and after["players"][1]["player_id"] == "b-1"
    assert resign.seat_of(after, "p1") is None and resign.seat_of(after, "b-1") == 1
    entry = resign.handed_entry(after, "p1")
    assert entry is not None and entry["player"]["player_id"] == "p1"
    assert resign.with_hand_over(after, 1, "p1", BOT, "resigned") is None  # once only
    assert resign.with_hand_over(meta, 5, "p1", BOT, "resigned") is None
    assert meta["players"][1]["player_id"] == "p1"  # the input is not changed
    # the bot is named in words, numbered within the game
    assert resign.bot_name(meta) == "Heuristic bot"
    assert resign.bot_name(after) == "Heuristic bot 2"


def test_the_gateway_reads_hand_overs_from_the_record_and_lets_the_player_watch() -> None:
    entries = [(b"1-0", {b"d": dumps({"type": "event", "event": "x", "data": {}}).encode()}),
               (b"2-0", {b"d": dumps({"type": "seat_handed_over", "seat": 2, "reason": "resigned",
                                      "from": {"player_id": "p2"}, "to": {}}).encode()})]
    assert gw.handed_in(entries) == [(2, "p2")]
    meta = {"spectators": "players", "players": [BOT.model_dump()],
            "handed_over": [{"seat": 0, "player": PLAYERS[0].model_dump()}]}
    assert gw.may_watch(meta, "p0") and not gw.may_watch(meta, "p-stranger")
    assert gw.seat_in(meta, "b-1") == 0
    assert gw.maybe_newly_seated(meta, "b-2") and not gw.maybe_newly_seated(meta, "p-9")


def test_the_invite_link_names_the_page_and_the_code() -> None:
    assert invites.link("https://e.example/", "a-b_c") == "https://e.example/#/join/a-b_c"
    doc = invites.with_link({"invite": "abc"}, "http://h")
    assert doc["invite_url"] == "http://h/#/join/abc"
    assert "invite_url" not in invites.with_link({"invite": ""}, "http://h")


class _Hub:
    """What ``rewatch`` uses of the hub: its watchers, watch() and the game's metadata."""

    def __init__(self, meta: dict[str, Any]) -> None:
        self.by_game: dict[str, set[Any]] = {}
        self._rewatching: set[Any] = set()
        self.watched: list[tuple[str, int | None, int, str]] = []
        self._meta_doc = meta

    async def watch(self, conn: Any, game_id: str, seat: int | None, after_seq: int,
                    after_record: str, version: int = 1) -> None:
        self.watched.append((conn.player_id, seat, after_seq, after_record))

    async def meta(self, game_id: str) -> dict[str, Any] | None:
        return self._meta_doc


def test_after_a_hand_over_the_player_who_left_watches_as_a_spectator() -> None:
    import asyncio

    from services.gateway.fanout.hub import Connection, Watch

    class Out:
        closed = False

    def conn(pid: str, seat: int | None) -> Any:
        c = Connection(player_id=pid, name=pid, out=Out())  # type: ignore[arg-type]
        c.watches["g"] = Watch(game_id="g", seat=seat, record_id="7-0", game="duel",
                               names=["n0", "n1"])
        return c

    meta = {"players": [PLAYERS[0].model_dump(), BOT.model_dump()]}
    hub = _Hub(meta)
    left, other, spectator = conn("p1", 1), conn("p0", 0), conn("p9", None)
    hub.by_game["g"] = {left, other, spectator}

    async def run() -> None:
        tasks = gw.rewatch(hub, "g", [(1, "p1")])  # type: ignore[arg-type]
        hub._rewatching |= tasks
        await asyncio.gather(*tasks)

    asyncio.run(run())
    assert hub.watched == [("p1", None, 0, "7-0")]  # as a spectator, from where it was
    assert "g" not in left.watches  # (watch() puts the new one in place)
    # every other watch names the bot for the seat from now on
    assert other.watches["g"].names == ["n0", "bot"]
    assert spectator.watches["g"].names == ["n0", "bot"]
    assert other.watches["g"].look == ("duel", ("n0", "bot"), frozenset())
    assert not hub._rewatching  # each task left the hub's set when done
