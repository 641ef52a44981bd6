"""The victims' figures code (tests/siege/figures.py) can fail: a victim paced as the siege's
is (a think time before each move, then the server's answer) passes the bounds at an
unchanged server speed and fails them when the server really slows it, by a few milliseconds
a move or by rare long stalls (the numbers are the test-size run's:
think 50 ms, about 12 ms of server time a move, two frames a move)."""

from __future__ import annotations

import pytest

from tests.siege.figures import MAX_P99, MIN_RATE, verdict, window

pytestmark = [pytest.mark.siege, pytest.mark.unit]

THINK_S = 0.05  # test_victims.Scale.think_s


def played(seconds: float, server_s: float, stall_every: int = 0, stall_s: float = 0.0,
           game: str = "g1", t: float = 0.0) -> tuple[list[tuple[str, float]], list[float]]:
    """A victim's frames and moves over ``seconds``: each move after THINK_S, its two frames
    (the answer's view, the round's next view) ``server_s`` and ``server_s`` + 2 ms later;
    every ``stall_every``-th move waits ``stall_s`` more."""
    frames: list[tuple[str, float]] = []
    moves: list[float] = []
    end = t + seconds
    n = 0
    while t < end:
        t += THINK_S
        moves.append(t)
        n += 1
        t += server_s + (stall_s if stall_every and n % stall_every == 0 else 0.0)
        frames.append((game, t))
        t += 0.002
        frames.append((game, t))
    return frames, moves


def _window(seconds: float, server_s: float, **kw: float) -> dict[str, float]:
    frames, moves = played(seconds, server_s, **kw)  # type: ignore[arg-type]
    return window(frames, moves, [], 0.0, seconds)


def test_an_unharmed_victim_meets_the_bounds() -> None:
    base = _window(20, 0.012)
    assert 20 <= base["frames_per_s"] <= 40 and base["moves_per_s"] > 15, base
    assert verdict(base, _window(20, 0.012)) == []
    assert verdict(base, _window(20, 0.014)) == []  # 2 ms a move: within 90 %


def test_a_victim_slowed_a_few_milliseconds_a_move_fails_the_frame_rate() -> None:
    """8 ms more a move (an eighth of its 64 ms cycle) is under 90 % of the frames."""
    base = _window(20, 0.012)
    slowed = _window(20, 0.020)
    assert slowed["frames_per_s"] < MIN_RATE * base["frames_per_s"]
    assert any("frames/s" in why for why in verdict(base, slowed))


def test_rare_long_stalls_fail_the_p99_gap() -> None:
    """One move in 40 held 150 ms: the frame rate stays within 90 %, the p99 gap breaks 2x."""
    base = _window(20, 0.012)
    stalled = _window(20, 0.012, stall_every=40, stall_s=0.15)
    assert stalled["frames_per_s"] >= MIN_RATE * base["frames_per_s"]
    assert stalled["gap_p99_ms"] > MAX_P99 * max(base["gap_p99_ms"], 50)
    assert [why for why in verdict(base, stalled) if "gap p99" in why]


def test_a_victim_that_met_its_own_rate_limit_is_no_measurement() -> None:
    """A window where the victim's connection refused its moves measured the limiter (the old
    siege's victim, playing flat out at its 50 frames/s cap): the verdict says so."""
    frames, moves = played(20, 0.012)
    base = window(frames, moves, [], 0.0, 20)
    capped = window(frames, moves, [3.0, 7.5], 0.0, 20)
    assert capped["rate_refusals"] == 2
    assert verdict(base, capped) == ["the victim met its own connection's rate limit"]


def test_the_pause_between_two_games_is_no_gap() -> None:
    one, _ = played(5, 0.012, game="g1")
    two, _ = played(5, 0.012, game="g2", t=one[-1][1] + 2.0)  # 2 s to set up the next table
    both = window(one + two, [], [], 0.0, 100)
    alone = window(one, [], [], 0.0, 100)
    assert both["gap_p99_ms"] == alone["gap_p99_ms"]
    assert abs(both["frames_per_s"] - alone["frames_per_s"]) < 1
