"""A client generated from the committed openapi.json alone (openapi-python-client, into a
temporary directory) signs in, creates a table, adds a bot, starts the game and reads its
result: every body it sends and every 200 it parses goes through the generated models, so a
route whose answer drifts from shared/protocol/http.py fails here (the generated parser
raises on a missing or mistyped field). The seat itself is played over the WebSocket by the
SDK's bot (the WebSocket is described by asyncapi-ws.json, not by OpenAPI)."""

from __future__ import annotations

import asyncio
import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from clients.sdk import Client as SdkClient
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor

pytestmark = pytest.mark.clients
OPENAPI = Path(__file__).resolve().parents[2] / "shared" / "protocol" / "schema" / "openapi.json"
PACKAGE = "empire_hall_generated"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    tool = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent))
    assert tool is not None, "openapi-python-client is in the dev group (make install)"
    out = tmp_path_factory.mktemp("openapi-client")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                 f"{os.environ.get('PATH', '')}"}
    res = subprocess.run([tool, "generate", "--path", str(OPENAPI), "--meta", "none",
                          "--output-path", str(out / PACKAGE)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Warning" not in res.stdout + res.stderr, res.stdout + res.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def api(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.api.default.{name}")


def model(name: str) -> Any:
    return getattr(importlib.import_module(f"{PACKAGE}.models"), name)


async def test_a_generated_client_plays_a_game(generated: ModuleType,
                                               clients_system: Supervisor) -> None:
    url = clients_system.url
    async with generated.Client(base_url=url, raise_on_unexpected_status=True) as http:
        session = await api("create_player").asyncio(
            client=http, body=model("CreatePlayerCreatePlayer")(name="generated"))
        assert isinstance(session, model("Session")), session
        bearer = f"Bearer {session.token}"

        games = await api("games").asyncio(client=http)
        assert isinstance(games, model("Games"))
        assert "duel" in {g.name for g in games.games}
        assert all(isinstance(g.rules_version, str) for g in games.games)  # not coerced

        body = model("CreateTableCreateTable").from_dict(
            {"game": "duel", "seats": 2, "options": {"rounds": 2}})
        created = await api("create_table").asyncio(client=http, body=body,
                                                    authorization=bearer)
        assert isinstance(created, model("TableAnswer")), created
        table_id = created.table.table_id

        added = await api("add_bot").asyncio(table_id, client=http, authorization=bearer)
        assert isinstance(added, model("TableAnswer")), added
        assert len(added.table.players) == 2

        started = await api("start_table").asyncio(table_id, client=http,
                                                   authorization=bearer)
        assert isinstance(started, model("TableAnswer")), started
        game_id = started.game_id or started.table.game_id
        assert game_id

        # the other answers a client reads while a game runs, each parsed by its model
        listing = await api("list_tables").asyncio(client=http, authorization=bearer)
        assert isinstance(listing, model("Tables")), listing
        assert game_id in listing.live_games
        table = await api("get_table").asyncio(table_id, client=http, authorization=bearer)
        assert isinstance(table, model("TableAnswer")) and table.table.status == "started"
        me = await api("me").asyncio(client=http, authorization=bearer)
        assert isinstance(me, model("Me")) and me.player_id == session.player_id
        sessions = await api("list_sessions").asyncio(client=http, authorization=bearer)
        assert isinstance(sessions, model("Sessions")) and sessions.sessions
        match = await api("match").asyncio(game_id, client=http)
        assert isinstance(match, model("Match")) and len(match.players) == 2

        async with SdkClient(url, token=session.token) as seat:
            played = await asyncio.wait_for(play_seat(seat, game_id), 300)
        assert played.ended

        result: Any = None
        for _ in range(100):  # bounded: scoring follows the end
            result = await api("result").asyncio(game_id, client=http)
            if isinstance(result, model("Result")):
                break
            assert isinstance(result, model("Refusal")) and result.code == "game/not_found"
            await asyncio.sleep(0.2)
        assert isinstance(result, model("Result")), result
        assert result.game_id == game_id

        record = await api("record").asyncio(game_id, client=http)
        assert isinstance(record, model("NarratedRecord")), record
        assert record.ended and record.record

        board = await api("leaderboard").asyncio("duel", client=http)
        assert isinstance(board, model("Leaderboard")), board
        audit = await api("audit").asyncio(game_id, client=http)
        assert isinstance(audit, model("Audit")) and audit.ended, audit
        history = await api("history").asyncio(session.player_id, client=http)
        assert isinstance(history, model("History"))
        assert game_id in history.games

        refused = await api("get_table").asyncio("no-such-table", client=http,
                                                 authorization=bearer)
        assert isinstance(refused, model("Refusal")) and refused.ok is False
