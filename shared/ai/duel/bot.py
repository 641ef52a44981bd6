"""Duel's heuristic bot: big stakes when it calls, high but spread picks."""

from __future__ import annotations

import random
from typing import Any

from shared.rules.api import SealedSlot


class HeuristicBot:
    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, view: dict[str, Any], legal: list[Any], seat: int) -> Any:
        return max(legal, key=lambda a: a.get("stake", 0))

    def choose(self, view: dict[str, Any], slot: SealedSlot, seat: int,
               public_parts: dict[str, Any]) -> Any:
        allowed = list(slot.allowed or [slot.default])
        return self.rng.choice(allowed[len(allowed) // 2:])
