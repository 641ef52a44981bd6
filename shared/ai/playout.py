"""Bots as the seats of ``shared.rules._kit.playout.play``: a contract ``Bot`` (its seat's
view and legal actions or sealed slot only, as a client gets them) adapted to an ``Actor``
and a ``Chooser``."""

from __future__ import annotations

import random
from typing import Any

from shared.rules._kit.playout import Actor, Chooser
from shared.rules.api import Game, Json, SealedSlot


def bot_actor(bot: Any) -> Actor:
    """Adapt a contract ``Bot`` (view + legal actions only) to an Actor."""

    def act(game: Game, state: Any, seat: int, rng: random.Random) -> Json:
        return bot.act(game.view(state, seat), list(game.legal_actions(state, seat)), seat)  # type: ignore[no-any-return]

    return act


def bot_chooser(bot: Any) -> Chooser:
    """Adapt a contract ``Bot`` (view + its own sealed slot only) to a Chooser."""

    def choose(game: Game, state: Any, slot: SealedSlot, rng: random.Random,
               public_parts: dict[str, Json]) -> Json:
        return bot.choose(game.view(state, slot.seat), slot, slot.seat, public_parts)  # type: ignore[no-any-return]

    return choose
