"""Randomness quality of the dealer's labelled draws (shared.fairness.draws).

Chi-square goodness of fit on 10^6 dice rolls per die size and on 10^6 shuffles (the item x
position matrix), each beside a deliberately biased control built from the same HMAC byte
stream with the classic ``byte % n`` mistake, which the same test must reject. The keys are
fixed, so the figures are reproducible; a real draw fails below p = 1e-6, a control must.
"""

from __future__ import annotations

import hashlib
import math
import time

import pytest

from shared.fairness import draws
from tests.reliability.conftest import report, size

pytestmark = pytest.mark.reliability

KEY = hashlib.sha256(b"empire-hall/reliability/chi-square").digest()
ALPHA = 1e-6
DIE_SIZES = (4, 6, 8, 10, 12, 20, 100)
SHUFFLE_N = 10


def _gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) (Numerical Recipes 6.2)."""
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:  # series for P, then Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(100_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - gln))
    b = x + 1 - a  # continued fraction for Q (Lentz)
    c = 1.0 / 1e-300
    d = 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h * math.exp(-x + a * math.log(x) - gln)


def chi2_sf(stat: float, df: int) -> float:
    """P(X >= stat) for a chi-square variable with ``df`` degrees of freedom."""
    return _gamma_q(df / 2, stat / 2)


def chi2(counts: list[int], expected: float) -> float:
    return sum((c - expected) ** 2 / expected for c in counts)


def test_chi2_sf_matches_known_values() -> None:
    # tables: the 95% and 99.9% points of the chi-square distribution
    assert abs(chi2_sf(3.841, 1) - 0.05) < 1e-3
    assert abs(chi2_sf(11.070, 5) - 0.05) < 1e-3
    assert abs(chi2_sf(124.342, 100) - 0.05) < 1e-3
    assert abs(chi2_sf(20.515, 5) - 0.001) < 1e-4


def _noncentrality(n: int, samples: int) -> float:
    """How strongly ``byte % n`` is biased at this sample size (chi-square noncentrality)."""
    probs = [len(range(v, 256, n)) / 256 for v in range(n)]
    return samples * sum((p - 1 / n) ** 2 / (1 / n) for p in probs)


def test_dice_are_uniform_and_the_biased_control_is_caught() -> None:
    rolls = size(100_000, 1_000_000)
    per_label = 1000
    figures: dict[str, dict[str, float]] = {}
    caught, must_catch = [], []
    t0 = time.monotonic()
    for sides in DIE_SIZES:
        counts = [0] * sides
        control = [0] * sides
        for i in range(rolls // per_label):
            label = f"dice:{sides}:{i}"
            for v in draws.dice(KEY, label, sides, per_label):
                counts[v - 1] += 1
            stream = draws.LabelStream(KEY, "control:" + label)
            for b in stream.take(per_label):
                control[b % sides] += 1  # the classic modulo bias
        p_real = chi2_sf(chi2(counts, rolls / sides), sides - 1)
        p_ctrl = chi2_sf(chi2(control, rolls / sides), sides - 1)
        lam = _noncentrality(sides, rolls)
        figures[f"d{sides}"] = {
            "p": p_real,
            "control_p": p_ctrl,
            "control_noncentrality": round(lam, 1),
        }
        assert p_real > ALPHA, f"d{sides}: uniform draws rejected (p={p_real:.3g})"
        if p_ctrl < ALPHA:
            caught.append(sides)
        if lam >= 60:  # a bias this strong must be caught at this sample size
            must_catch.append(sides)
    assert must_catch, "the control must be testable at this size"
    assert set(must_catch) <= set(caught), (must_catch, caught, figures)
    report(
        "randomness-dice",
        {
            "rolls_per_die": rolls,
            "die_sizes": list(DIE_SIZES),
            "alpha": ALPHA,
            "controls_caught": caught,
            "results": figures,
            "wall_s": round(time.monotonic() - t0, 1),
        },
    )


def _naive_shuffle(stream: draws.LabelStream, n: int) -> list[int]:
    """The biased control: swap every position with ``byte % n`` (not Fisher–Yates)."""
    items = list(range(n))
    for i, b in enumerate(stream.take(n)):
        j = b % n
        items[i], items[j] = items[j], items[i]
    return items


def test_shuffles_are_uniform_and_the_biased_control_is_caught() -> None:
    shuffles = size(50_000, 1_000_000)
    n = SHUFFLE_N
    matrix = [[0] * n for _ in range(n)]  # item x position
    control = [[0] * n for _ in range(n)]
    t0 = time.monotonic()
    for i in range(shuffles):
        for pos, item in enumerate(draws.shuffle(KEY, f"deck:{i}", n)):
            matrix[item][pos] += 1
        for pos, item in enumerate(_naive_shuffle(draws.LabelStream(KEY, f"ctl:{i}"), n)):
            control[item][pos] += 1
    expected = shuffles / n
    df = (n - 1) ** 2
    p_real = chi2_sf(chi2([c for row in matrix for c in row], expected), df)
    p_ctrl = chi2_sf(chi2([c for row in control for c in row], expected), df)
    # each permutation is a valid one and every row/column sums to the number of shuffles
    assert all(sum(row) == shuffles for row in matrix)
    assert p_real > ALPHA, f"Fisher–Yates rejected (p={p_real:.3g})"
    assert p_ctrl < ALPHA, f"the biased control was not caught (p={p_ctrl:.3g})"
    report(
        "randomness-shuffles",
        {
            "shuffles": shuffles,
            "n": n,
            "df": df,
            "p": p_real,
            "control_p": p_ctrl,
            "alpha": ALPHA,
            "wall_s": round(time.monotonic() - t0, 1),
        },
    )
