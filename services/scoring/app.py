"""scoring composition root: ``create_app(settings)`` wires the service (nothing runs at
import; ``python -m services.scoring`` calls it)."""

from __future__ import annotations

from faststream import FastStream

from services.scoring.service import Scoring
from services.scoring.store import ScoringStore
from shared.protocol import streams
from shared.protocol.internal import GameEnded
from shared.runtime.service import ServiceKit, compose
from shared.runtime.settings import Settings


def wire(kit: ServiceKit) -> Scoring:
    scoring = Scoring(ScoringStore(kit.redis))
    kit.consume(streams.GAME_ENDED, streams.GROUP_SCORING, scoring.dispatch,
                description="game over -> results, ratings, leaderboards, history",
                payload=GameEnded)
    return scoring


def create_app(settings: Settings | None = None) -> FastStream:
    return compose("scoring", wire, settings)
