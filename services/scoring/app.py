"""scoring composition root."""

from services.scoring.service import Scoring
from shared.protocol import streams
from shared.protocol.internal import GameEnded
from shared.runtime.service import build, make_app

kit = build("scoring")
scoring = Scoring(kit.redis)
kit.consume(streams.GAME_ENDED, streams.GROUP_SCORING, scoring.dispatch,
            description="game over -> results, ratings, leaderboards, history",
            payload=GameEnded)
app = make_app(kit)
