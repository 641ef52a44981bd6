"""Resigning a running game, and a seat whose clock ran out at an ``on_expiry: "bot"`` table:
the lobby makes a bot player for the seat, writes it into the game's metadata (so the gateway
seats the bot and no longer the player) and sends the adjudicator ``HandOver``
(services/adjudicator/handover.py), which stores it, tells every seat and seats the bot.

The decisions are pure functions of the game's metadata; ``Resignations`` is the shell. A
resignation is idempotent: a second one (or a retry after a lost answer) sends the same
``HandOver`` again and answers the same, and the adjudicator applies it once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from services.lobby.tables import LobbyError
from shared.protocol import internal as im
from shared.protocol import streams
from shared.runtime.ports import Publisher
from shared.runtime.settings import Settings

BOT_KIND = "heuristic"  # the bot that finishes a handed-over seat


# --- pure -------------------------------------------------------------------------------


def seat_of(meta: dict[str, Any], player_id: str) -> int | None:
    return next((i for i, p in enumerate(meta.get("players", []))
                 if p.get("player_id") == player_id), None)


def handed_entry(meta: dict[str, Any], player_id: str) -> dict[str, Any] | None:
    """The hand-over of the seat ``player_id`` sat in (None: never handed over)."""
    return next((h for h in meta.get("handed_over", [])
                 if h.get("player", {}).get("player_id") == player_id), None)


def with_hand_over(meta: dict[str, Any], seat: int, from_player: str, to: im.PlayerRef,
                   reason: str) -> dict[str, Any] | None:
    """The metadata with ``seat`` played by ``to`` from now on; None when the seat is no
    longer ``from_player``'s (handed over already: once only)."""
    players = list(meta.get("players", []))
    if not 0 <= seat < len(players) or players[seat].get("player_id") != from_player:
        return None
    entry = {"seat": seat, "player": players[seat], "to": to.model_dump(), "reason": reason}
    players[seat] = to.model_dump()
    return {**meta, "players": players, "handed_over": [*meta.get("handed_over", []), entry]}


def bot_name(meta: dict[str, Any]) -> str:
    """The bot's name in words, numbered within the game as the lobby numbers a table's bots
    (services/lobby/tables.py bot_name): "Heuristic bot", then "Heuristic bot 2"."""
    n = 1 + sum(1 for p in meta.get("players", []) if p.get("bot") == BOT_KIND)
    return f"{BOT_KIND.capitalize()} bot" + (f" {n}" if n > 1 else "")


def answer(game_id: str, entry: dict[str, Any]) -> dict[str, Any]:
    return {"game_id": game_id, "seat": entry["seat"], "resigned": True,
            "bot": entry["to"], "reason": entry["reason"]}


# --- the shell --------------------------------------------------------------------------


class MetaStore(Protocol):
    async def get_meta(self, game_id: str) -> dict[str, Any] | None: ...

    async def change_meta(self, game_id: str,
                          change: Callable[[dict[str, Any]], dict[str, Any] | None]
                          ) -> dict[str, Any] | None: ...

    async def games_over(self, game_ids: list[str]) -> dict[str, bool | None]: ...


MakeBot = Callable[[str], Awaitable[dict[str, Any]]]  # name -> {player_id, name, token}
Token = Callable[[str, str], str]  # (player id, name) -> a seat token


class Resignations:
    def __init__(self, settings: Settings, store: MetaStore, broker: Publisher,
                 make_bot: MakeBot, token: Token) -> None:
        self.settings = settings
        self.store = store
        self.broker = broker
        self.make_bot = make_bot
        self.token = token

    async def resign(self, game_id: str, player_id: str) -> dict[str, Any]:
        """The player's seat goes to a bot; typed refusals: no such game, not seated, over."""
        meta = await self.store.get_meta(game_id)
        if meta is None:
            raise LobbyError("lobby/not_found", "no such game")
        prior = handed_entry(meta, player_id)
        if prior is not None:  # resigned already: the same answer (and HandOver) again
            await self._send(game_id, prior)
            return answer(game_id, prior)
        if seat_of(meta, player_id) is None:
            raise LobbyError("lobby/not_seated", "you have no seat in this game")
        if (await self.store.games_over([game_id])).get(game_id):
            raise LobbyError("game/over", "the game is over")
        entry = await self._hand_over(game_id, player_id, "resigned")
        if entry is None:
            raise LobbyError("lobby/not_seated", "you have no seat in this game")
        return answer(game_id, entry)

    async def on_expired(self, game_id: str, seat: int, from_player: str) -> dict[str, Any]:
        """The adjudicator's ``hand_over_seat``: the seat's clock ran out at a table with
        ``on_expiry: "bot"``. Changes nothing when the seat is no longer that player's, or a
        bot already plays it."""
        meta = await self.store.get_meta(game_id)
        if meta is None:
            return {"handed_over": False}
        players = meta.get("players", [])
        if not 0 <= seat < len(players) or players[seat].get("player_id") != from_player \
                or players[seat].get("bot"):
            return {"handed_over": False}
        entry = await self._hand_over(game_id, from_player, "expired")
        return {"handed_over": entry is not None}

    async def _hand_over(self, game_id: str, player_id: str,
                         reason: str) -> dict[str, Any] | None:
        """Make the bot, write it into the metadata (compare-and-set on the seat), send the
        adjudicator the hand-over. None when the seat changed meanwhile (a concurrent
        hand-over won: its entry is returned instead when it is this player's)."""
        bot = await self.make_bot(bot_name(await self.store.get_meta(game_id) or {}))
        to = im.PlayerRef(player_id=bot["player_id"], name=bot["name"], bot=BOT_KIND)

        def change(meta: dict[str, Any]) -> dict[str, Any] | None:
            s = seat_of(meta, player_id)
            return None if s is None else with_hand_over(meta, s, player_id, to, reason)

        after = await self.store.change_meta(game_id, change)
        entry = handed_entry(after or await self.store.get_meta(game_id) or {}, player_id)
        if entry is not None:
            await self._send(game_id, entry)
        return entry

    async def _send(self, game_id: str, entry: dict[str, Any]) -> None:
        to = im.PlayerRef.model_validate(entry["to"])
        msg = im.HandOver(game_id=game_id, seat=entry["seat"],
                          from_player=entry["player"]["player_id"], to=to,
                          reason=entry["reason"], token=self.token(to.player_id, to.name))
        control = streams.sharded(streams.ADJ_CONTROL, game_id, self.settings.partitions)
        await self.broker.publish(msg.model_dump(mode="json"), stream=control,
                                  maxlen=streams.maxlen(control))
