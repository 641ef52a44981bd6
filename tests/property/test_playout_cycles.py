"""A playout makes no reference cycles, so ``_kit.playout.play`` may pause the cyclic collector
while it keeps the log of a game whose seats it plays itself: reference counting frees
everything a game leaves behind. The pause is the harness's alone: the collector is back on
return (and after an error), and it runs without the log or while bots or callbacks play a
part."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from shared.rules import registry
from shared.rules._kit.playout import play

pytestmark = pytest.mark.property

# options a game's random playout also takes here, besides its defaults
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "empire": [{"version": "beginner"}],
    "empire-cards": [{"max_hands": 2, "max_turns_per_hand": 40}],
}


@pytest.mark.parametrize("name", registry.names())
def test_a_playout_leaves_no_reference_cycles(name: str) -> None:
    game = registry.get(name)
    play(game, game.min_seats, {}, seed=99)  # imports and first-call caches, before counting
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for options in [{}, *OPTIONS.get(name, [])]:
            for seats in range(game.min_seats, game.max_seats + 1):
                for seed in (0, 1):
                    out = play(game, seats, dict(options), seed=seed)
                    assert out.finished
                    assert out.events is not None  # the events made as well
                    del out
                    found = gc.collect()
                    assert found == 0, f"{name} {options} {seats} seats, seed {seed}: " \
                                       f"{found} objects in reference cycles"
    finally:
        if enabled:
            gc.enable()


class _Spy:
    """A game that records whether the collector runs at each ``apply``."""

    def __init__(self, game: Any, fail_at: int | None = None) -> None:
        self._game = game
        self.collector: list[bool] = []
        self.fail_at = fail_at

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._game, attr)

    def apply(self, state: Any, move: Any) -> Any:
        self.collector.append(gc.isenabled())
        if self.fail_at is not None and len(self.collector) == self.fail_at:
            raise RuntimeError("a failing move")
        return self._game.apply(state, move)


def test_the_collector_pauses_only_while_the_harness_keeps_the_log_of_its_own_seats() -> None:
    game = registry.get("empire")
    assert gc.isenabled()
    spy = _Spy(game)
    play(spy, 3, {}, seed=4)  # type: ignore[arg-type]
    assert spy.collector and not any(spy.collector)
    assert gc.isenabled()

    unlogged = _Spy(game)  # nothing kept for a collection to walk: the collector runs
    play(unlogged, 3, {}, seed=4, log=False)  # type: ignore[arg-type]
    assert unlogged.collector and all(unlogged.collector)

    watched = _Spy(game)  # a callback plays a part: the collector runs throughout
    play(watched, 3, {}, seed=4, on_step=lambda state, move: None)  # type: ignore[arg-type]
    assert watched.collector and all(watched.collector)

    failing = _Spy(game, fail_at=5)
    with pytest.raises(RuntimeError):
        play(failing, 3, {}, seed=4)  # type: ignore[arg-type]
    assert gc.isenabled()

    gc.disable()  # a caller that paused it keeps it paused
    try:
        play(game, 3, {}, seed=4)
        assert not gc.isenabled()
    finally:
        gc.enable()
