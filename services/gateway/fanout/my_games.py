""""My games" pushed to a player's sockets: the lobby writes one ``my_game`` entry per changed
game and player to the shared channel ``gw:updates`` (services/lobby/mygames_service.py); each
gateway sends it, as a ``my_game`` frame (shared/protocol/server.py ``MyGameChanged``), to that
player's connections here and to no one else."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import structlog
from pydantic import ValidationError

from shared.protocol import http as hm
from shared.protocol import server as sm

log = structlog.get_logger("gateway.my_games")
MY_GAME = "my_game"  # the lobby's entry type on gw:updates


class Pushable(Protocol):
    """What a connection offers here (services/gateway/fanout/hub.py ``Connection``)."""

    @property
    def closed(self) -> bool: ...

    def push(self, msg: dict[str, Any]) -> bool: ...


def deliver(by_player: Mapping[str, Iterable[Pushable]], bodies: list[dict[str, Any]]) -> int:
    """Push each ``my_game`` entry of a batch to its player's connections; returns how many
    frames were queued."""
    sent = 0
    for body in bodies:
        if body.get("type") != MY_GAME:
            continue
        player = body.get("player_id")
        conns = list(by_player.get(player, ())) if isinstance(player, str) else []
        if not conns:
            continue
        try:
            game = hm.MyGame.model_validate(body.get("game"))
            frame = sm.MyGameChanged(game=game.model_dump(mode="json"),
                                     now_ms=int(body.get("now_ms") or 0))
        except (ValidationError, TypeError, ValueError) as exc:
            log.error("malformed_my_game_entry", error=str(exc)[:300])
            continue
        out = frame.model_dump(mode="json")
        for conn in conns:
            if not conn.closed:
                conn.push(out)
                sent += 1
    return sent
