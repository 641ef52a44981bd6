"""The lobby over HTTP: the games catalog, tables, finished games' records, replays and
results, and the verification of a game from its public record (``shared.fairness.verify``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from clients.sdk.my_games import MyGamesApi
from clients.sdk.session import GameSession
from shared.fairness.verify import verify


@dataclass
class Verification:
    """The outcome of ``Client.verify_game``: problems (empty = verified) and counts."""

    game_id: str
    problems: list[str]
    counts: dict[str, int]
    record: dict[str, Any]

    receipts: dict[str, Any] | None = None  # the seat's receipts checked, if any

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def receipt_problems(self) -> list[str]:
        """The problems where the record disagrees with the seat's own receipts: the escrow
        changed one of its choices (docs/fairness.md, "receipt")."""
        return [p for p in self.problems if p.startswith("receipt: ")]


class LobbyApi(MyGamesApi):
    """Tables and matches over HTTP. Its state is set by ``Client.__init__``."""

    games: dict[str, GameSession]  # the games this client watches, by id
    kept_receipts: dict[str, dict[str, Any]]  # receipts of games no longer watched

    async def games_catalog(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/api/games"))["games"])

    async def game_components(self, game: str) -> dict[str, Any]:
        """A game's public component data (maps, cards and their text, the Engine's wheels):
        ``GET /api/games/{game}/components``, from the engines' data modules."""
        return dict(await self._call("GET", f"/api/games/{game}/components"))

    async def create_table(
        self, game: str, seats: int, options: dict[str, Any] | None = None, **extra: Any
    ) -> dict[str, Any]:
        body = {"game": game, "seats": seats, "options": options or {}, **extra}
        return dict((await self._call("POST", "/api/tables", body))["table"])

    async def list_tables(self, limit: int | None = None, cursor: str | None = None,
                          live_limit: int | None = None,
                          live_cursor: str | None = None) -> dict[str, Any]:
        """One page of open tables and one of live games, newest first; the next pages with
        ``cursor=answer["next_cursor"]`` / ``live_cursor=answer["live_next_cursor"]``."""
        params = {k: v for k, v in (("limit", limit), ("cursor", cursor),
                                    ("live_limit", live_limit), ("live_cursor", live_cursor))
                  if v is not None}
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return dict(await self._call("GET", "/api/tables" + (f"?{query}" if query else "")))

    async def join(self, table_id: str) -> dict[str, Any]:
        return dict((await self._call("POST", f"/api/tables/{table_id}/join"))["table"])

    async def join_invite(self, code: str) -> dict[str, Any]:
        return dict((await self._call("POST", f"/api/invites/{code}/join"))["table"])

    async def add_bot(self, table_id: str, kind: str = "heuristic") -> dict[str, Any]:
        return dict(
            (await self._call("POST", f"/api/tables/{table_id}/bots", {"kind": kind}))["table"]
        )

    async def start(self, table_id: str) -> str:
        return str((await self._call("POST", f"/api/tables/{table_id}/start"))["game_id"])

    async def resign(self, game_id: str) -> dict[str, Any]:
        """Leave a running game: a bot plays the seat for the rest of it (``seat``, ``bot``);
        a second call answers the same."""
        return dict(await self._call("POST", f"/api/games/{game_id}/resign"))

    async def get_table(self, table_id: str) -> dict[str, Any]:
        return dict((await self._call("GET", f"/api/tables/{table_id}"))["table"])

    async def leave(self, table_id: str) -> dict[str, Any]:
        return dict((await self._call("POST", f"/api/tables/{table_id}/leave"))["table"])

    async def kick(self, table_id: str, player_id: str) -> dict[str, Any]:
        """The host removes a seated player before the start; they may not join again."""
        return dict((await self._call("POST", f"/api/tables/{table_id}/kick",
                                      {"target": player_id}))["table"])

    async def match(self, game_id: str) -> dict[str, Any]:
        """A game's metadata: game name, options, players (seat order), stage."""
        return dict(await self._call("GET", f"/api/matches/{game_id}"))

    async def record(self, game_id: str) -> dict[str, Any]:
        return dict(await self._call("GET", f"/api/matches/{game_id}/record"))

    async def audit(self, game_id: str) -> dict[str, Any]:
        """A finished game's audit bundle (verify takes it as it is); ApiError
        ``replay/not_ended`` before the game has ended."""
        return dict(await self._call("GET", f"/api/matches/{game_id}/audit"))

    async def board_at(self, game_id: str, step: int, seat: int | None = None) -> dict[str, Any]:
        """A finished game's board after ``step`` moves (0 = the setup), as ``seat`` saw it
        (None: the spectator); ApiError ``replay/not_ended`` before the game has ended."""
        params = f"?step={step}" + ("" if seat is None else f"&seat={seat}")
        return dict(await self._call("GET", f"/api/matches/{game_id}/replay{params}"))

    async def result(self, game_id: str) -> dict[str, Any]:
        return dict(await self._call("GET", f"/api/matches/{game_id}/result"))

    async def leaderboard(self, game: str) -> list[dict[str, Any]]:
        return list((await self._call("GET", f"/api/leaderboard/{game}"))["entries"])

    async def verify_game(self, game_id: str, wait: float = 10.0,
                          receipts: dict[str, Any] | None = None) -> Verification:
        """Fetch the public record and re-check it with ``shared.fairness.verify``: the dealer's
        seed commitment and every draw, every sealed choice against the commitment published
        before its round closed, the commitments roots and defaults, and that the adjudicator
        applied exactly what was revealed. The dealer reveals its seed just after the end, so
        this waits up to ``wait`` seconds for the reveal (a game still in play reports that
        the seed is not revealed yet). With this client's session of the game (it played a
        seat) or ``receipts`` given (a receipts file's content), the seat's receipts are checked
        too: its choices reached the record unchanged (``Verification.receipt_problems``)."""
        if receipts is None:
            session = self.games.get(game_id)
            kept = session.receipts_doc() if session else self.kept_receipts.get(game_id)
            receipts = kept if kept and kept["receipts"] else None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while True:
            doc = await self.record(game_id)
            revealed = any(e.get("type") == "seed_revealed" for e in doc["record"])
            if (revealed and doc.get("log") is not None) or loop.time() >= deadline:
                break
            await asyncio.sleep(0.1)
        problems, counts = verify(doc, receipts)
        return Verification(game_id=game_id, problems=problems, counts=counts, record=doc,
                            receipts=receipts)
