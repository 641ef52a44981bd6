"""Every refusal of the lobby's table core (services/lobby/tables.py) reads as a sentence that
says what to do next: the web page shows the message as it is, never the code."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from services.lobby import tables
from services.lobby.tables import LobbyError
from shared.protocol.internal import PlayerRef
from shared.protocol.lobby import Table

pytestmark = pytest.mark.unit

ME = PlayerRef(player_id="p-me", name="me")


def table(**kw: object) -> Table:
    fields: dict[str, object] = {"seats": 2,
                                 "players": [PlayerRef(player_id="p-h", name="h")], **kw}
    return Table(table_id="t1", game="duel", host="p-h", invite="i-t1",
                 turn_timeout_ms=1_000, round_timeout_ms=1_000, created_ms=1, **fields)  # type: ignore[arg-type]


def full() -> Table:
    return table(players=[PlayerRef(player_id="p-h", name="h"),
                          PlayerRef(player_id="p-2", name="b")])


REFUSALS: dict[str, Callable[[], object]] = {
    "unknown game": lambda: tables.check_new_table("chess", 2, {}),
    "seats": lambda: tables.check_new_table("duel", 9, {}),
    "options": lambda: tables.check_new_table("duel", 2, {"rounds": "five"}),
    "options range": lambda: tables.check_new_table("duel", 2, {"rounds": 0}),
    "closed": lambda: tables.join(table(status="closed"), ME),
    "started": lambda: tables.join(table(status="started"), ME),
    "kicked": lambda: tables.join(table(kicked=["p-me"]), ME),
    "private": lambda: tables.join(table(public=False), ME, by_invite=False),
    "full": lambda: tables.join(full(), ME),
    "kick not host": lambda: tables.kick(full(), "p-2", "p-h"),
    "kick self": lambda: tables.kick(full(), "p-h", "p-h"),
    "kick nobody": lambda: tables.kick(full(), "p-h", "p-x"),
    "start not host": lambda: tables.start(full(), "p-2"),
    "start alone": lambda: tables.start(table(), "p-h"),
    "quota tables": lambda: (_ for _ in ()).throw(tables.quota_error("open_tables", 5)),
    "quota games": lambda: (_ for _ in ()).throw(tables.quota_error("running_games", 3)),
    "quota bots": lambda: (_ for _ in ()).throw(tables.quota_error("bot_seats", 12)),
}
NEXT_STEP = re.compile(r": [a-z].*\.$|^Only .*\.$")


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_refusal_is_a_sentence_saying_what_to_do(case: str) -> None:
    with pytest.raises(LobbyError) as err:
        REFUSALS[case]()
    text = str(err.value)
    assert err.value.code.startswith("lobby/")
    assert text[0].isupper() and text.endswith("."), text
    assert NEXT_STEP.search(text), f"{case}: no next step in {text!r}"
    assert "lobby/" not in text and "quota " not in text and "_" not in text.split("(")[0], text


def test_the_running_games_refusal_reads_as_the_player_needs_it() -> None:
    text = str(tables.quota_error("running_games", 3))
    assert text == ("You already have 3 running games, the most one player may have: finish "
                    "one of them first, then start this one.")
