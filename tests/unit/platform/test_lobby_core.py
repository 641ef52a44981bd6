"""The lobby's functional core (services/lobby/tables.py): idle closing, quota bookkeeping and
the listing's pages."""

from __future__ import annotations

import pytest

from services.lobby import tables
from services.lobby.tables import LobbyError
from shared.identity import handles
from shared.protocol.internal import PlayerRef
from shared.protocol.lobby import Table

pytestmark = pytest.mark.unit


def table(tid: str, host: str = "p-h", created: int = 1_000, **kw: object) -> Table:
    fields: dict[str, object] = {"seats": 2, **kw}
    return Table(table_id=tid, game="duel", players=[PlayerRef(player_id=host, name="h")],
                 host=host, invite=f"i-{tid}", turn_timeout_ms=1_000, round_timeout_ms=1_000,
                 created_ms=created, **fields)  # type: ignore[arg-type]


def test_an_open_table_closes_only_once_idle() -> None:
    t = table("t-1", created=1_000)
    assert tables.close_if_idle(t, 1_500, 1_000) is t
    closed = tables.close_if_idle(t, 2_000, 1_000)
    assert closed.status == "closed" and closed.updated_ms == 2_000
    touched = tables.touched(t, 1_900)
    assert tables.close_if_idle(touched, 2_000, 1_000) is touched  # changed lately
    with pytest.raises(LobbyError) as exc:
        tables.join(closed, PlayerRef(player_id="p-x", name="x"))
    assert exc.value.code == "lobby/closed"
    started = t.model_copy(update={"status": "started"})
    assert tables.close_if_idle(started, 10**9, 1_000) is started


def test_reservations_follow_the_tables_and_games() -> None:
    now = 10_000_000
    held_t = {"t-open": tables.reservation(0, now), "t-started": tables.reservation(1, now),
              "t-missing-old": tables.reservation(0, now - 120_000),
              "t-missing-new": tables.reservation(0, now - 1_000)}
    bot = PlayerRef(player_id="b-1", name="b", bot="heuristic")
    docs = {"t-open": table("t-open").model_copy(update={"players": [
                PlayerRef(player_id="p-h", name="h"), bot]}),
            "t-started": table("t-started").model_copy(update={"status": "started"}),
            "t-missing-old": None, "t-missing-new": None}
    held_g = {"g-over": "2:1", "g-running": "1:1", "g-unknown-old": f"0:{now - 120_000}",
              "g-unknown-new": f"0:{now - 10}"}
    over = {"g-over": True, "g-running": False, "g-unknown-old": None, "g-unknown-new": None}
    fix = tables.reconcile(held_t, held_g, docs, over, now)
    assert sorted(fix.drop_tables) == ["t-missing-old", "t-started"]
    assert fix.set_tables == {"t-open": tables.reservation(1, now)}  # its one bot
    assert sorted(fix.drop_games) == ["g-over", "g-unknown-old"]


def test_a_quota_refusal_is_typed_and_names_its_quota() -> None:
    exc = tables.quota_error("bot_seats", 12)
    assert exc.code == "lobby/quota" and "already have 12 bot seats" in str(exc)


def test_pages_are_newest_first_with_a_cursor_and_a_share_per_host() -> None:
    docs = {f"t-{i}": table(f"t-{i}", host="p-crowd" if i % 2 else f"p-{i}", created=i)
            for i in range(10)}
    entries = sorted(((tid, t.created_ms) for tid, t in docs.items()),
                     key=lambda e: (e[1], e[0]), reverse=True)
    first = tables.page(entries, docs, limit=4, per_host=1, exhausted=True)
    ids = [t["table_id"] for t in first.tables]
    assert ids == ["t-9", "t-8", "t-6", "t-4"]  # t-7 and t-5: the crowd had its share
    assert first.next_cursor == tables.cursor_of(4, "t-4")
    rest = tables.after_cursor(entries, tables.parse_cursor(first.next_cursor))
    second = tables.page(rest, docs, limit=4, per_host=1, exhausted=True)
    assert [t["table_id"] for t in second.tables] == ["t-3", "t-2", "t-0"]
    assert second.next_cursor is None
    gone = tables.page([("t-x", 99), *entries], {**docs, "t-x": None}, 2, 1, True)
    assert gone.stale == ["t-x"]


def test_equal_scores_are_paged_by_member() -> None:
    entries = [("t-c", 5), ("t-b", 5), ("t-a", 5)]
    assert tables.after_cursor(entries, (5, "t-b")) == [("t-a", 5)]


# --- table permissions ------------------------------------------------------

ANN = PlayerRef(player_id="p-a", name="ann")
BOB = PlayerRef(player_id="p-b", name="bob")
BOT = PlayerRef(player_id="b-1", name="bot-heuristic-1", bot="heuristic")


def test_a_private_table_is_joined_with_its_invite_only() -> None:
    t = table("t-p", public=False)
    with pytest.raises(LobbyError) as exc:
        tables.join(t, ANN, by_invite=False)
    assert exc.value.code == "lobby/invite_required"
    assert tables.seated(tables.join(t, ANN, by_invite=True), "p-a")
    assert tables.seated(tables.join(table("t-o"), ANN, by_invite=False), "p-a")  # public


def test_the_invite_is_shown_to_the_host_and_seated_players_only() -> None:
    t = tables.join(table("t-1", public=False, seats=3), ANN)
    assert tables.for_viewer(t, "p-h")["invite"] == "i-t-1"
    assert tables.for_viewer(t, "p-a")["invite"] == "i-t-1"
    assert tables.for_viewer(t, "p-x")["invite"] == ""
    assert tables.for_viewer(t, None)["invite"] == ""
    pg = tables.page([("t-2", 5)], {"t-2": table("t-2")}, 10, 3, exhausted=True)
    assert [d["invite"] for d in pg.tables] == [""]  # never in the listing
    assert not tables.listed(table("t-3", public=False))


def test_the_host_removes_a_player_before_the_start() -> None:
    t = tables.join(tables.join(table("t-1", seats=3), ANN), BOT)
    with pytest.raises(LobbyError) as exc:
        tables.kick(t, "p-a", "p-h")
    assert exc.value.code == "lobby/not_host"
    with pytest.raises(LobbyError) as exc:
        tables.kick(t, "p-h", "p-zzz")
    assert exc.value.code == "lobby/not_seated"
    with pytest.raises(LobbyError) as exc:
        tables.kick(t, "p-h", "p-h")
    assert exc.value.code == "lobby/bad_request"
    out = tables.kick(tables.kick(t, "p-h", "p-a"), "p-h", "b-1")
    assert [p.player_id for p in out.players] == ["p-h"] and out.kicked == ["p-a"]
    with pytest.raises(LobbyError) as exc:
        tables.join(out, ANN)
    assert exc.value.code == "lobby/kicked"
    assert tables.for_viewer(out, "p-x")["kicked"] == []
    with pytest.raises(LobbyError) as exc:
        tables.kick(out.model_copy(update={"status": "started"}), "p-h", "p-h2")
    assert exc.value.code == "lobby/already_started"


def test_a_leaving_host_hands_over_to_the_next_human_or_closes() -> None:
    t = tables.join(tables.join(table("t-1", seats=3), BOT), BOB)
    handed = tables.leave(t, "p-h", 5_000)
    assert handed.host == "p-b" and handed.status == "open"
    assert [p.player_id for p in handed.players] == ["b-1", "p-b"]
    closed = tables.leave(handed, "p-b", 6_000)  # only a bot left
    assert closed.status == "closed" and closed.updated_ms == 6_000
    assert tables.leave(t, "p-b", 5_000).host == "p-h"  # a guest leaving changes no host


def test_only_the_host_of_a_started_table_with_its_game_resumes_the_start() -> None:
    t = tables.join(table("t-1"), BOB)
    started = tables.start(t, "p-h").model_copy(update={"game_id": "g-1"})
    assert tables.started_by(started, "p-h")
    assert not tables.started_by(started, "p-b")
    assert not tables.started_by(t, "p-h")
    assert not tables.started_by(started.model_copy(update={"game_id": None}), "p-h")


def test_bots_are_named_in_words_and_numbered_within_their_table() -> None:
    t = table("t-b", seats=5)
    names = []
    for kind in ("heuristic", "heuristic", "hard", "heuristic"):
        name = tables.bot_name(t, kind)
        names.append(name)
        t = tables.join(t, PlayerRef(player_id=f"b-{len(names)}", name=name, bot=kind))
    assert names == ["Heuristic bot", "Heuristic bot 2", "Hard bot", "Heuristic bot 3"]
    assert all(handles.is_bot_like(n) for n in names)  # no human may take one of them
