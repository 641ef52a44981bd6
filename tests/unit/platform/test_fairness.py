"""Dealer draws and escrow commitments (FAIRNESS.md), pure."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest

from shared.fairness import draws
from shared.fairness.commitments import commitment, commitments_root, new_nonce
from shared.fairness.lp import canonical_json, lp

pytestmark = pytest.mark.unit
KEY = bytes(range(32))


def test_lp_prefixes_length_so_boundaries_cannot_shift() -> None:
    assert lp("ab") + lp("c") != lp("a") + lp("bc")
    assert lp(b"") == b"\x00\x00\x00\x00"
    assert lp("é") == b"\x00\x00\x00\x02\xc3\xa9"


def test_canonical_json_is_order_independent() -> None:
    assert canonical_json({"b": 1, "a": [1, 2]}) == canonical_json({"a": [1, 2], "b": 1})
    assert canonical_json({"a": 1}) == '{"a":1}'


def test_label_stream_is_hmac_of_label_and_block() -> None:
    s = draws.LabelStream(KEY, "x")
    first = hmac.new(KEY, lp("x") + (0).to_bytes(4, "big"), hashlib.sha256).digest()
    second = hmac.new(KEY, lp("x") + (1).to_bytes(4, "big"), hashlib.sha256).digest()
    assert s.take(40) == first + second[:8]


def test_same_label_same_outcome_other_label_other_outcome() -> None:
    a = draws.shuffle(KEY, "deck:auction:shuffle:0", 52)
    assert a == draws.shuffle(KEY, "deck:auction:shuffle:0", 52)
    assert a != draws.shuffle(KEY, "deck:auction:shuffle:1", 52)
    assert sorted(a) == list(range(52))


def test_below_rejects_the_biased_tail() -> None:
    # n = 3 * 2^62: the limit is 2^64 - (2^64 mod n) = n, so any word >= n must be rejected
    n = 3 * (1 << 62)
    values = draws.below(KEY, "big", n, 200)
    assert all(0 <= v < n for v in values)


def test_dice_range_and_rough_uniformity() -> None:
    rolls = draws.dice(KEY, "dice:test", 6, 60_000)
    counts = Counter(rolls)
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    chi2 = sum((c - 10_000) ** 2 / 10_000 for c in counts.values())
    assert chi2 < 30  # df = 5; p ~ 1e-5 at 30: a correct generator essentially never fails


def test_fisher_yates_positions_are_uniform() -> None:
    n, trials = 5, 12_000
    grid = [[0] * n for _ in range(n)]
    for t in range(trials):
        for pos, item in enumerate(draws.shuffle(KEY, f"s:{t}", n)):
            grid[item][pos] += 1
    expected = trials / n
    chi2 = sum((c - expected) ** 2 / expected for row in grid for c in row)
    assert chi2 < 60  # df = 16


def test_game_key_binds_every_input() -> None:
    base = draws.game_key(KEY, "g1", "1", [b"a" * 32])
    assert base != draws.game_key(KEY, "g2", "1", [b"a" * 32])
    assert base != draws.game_key(KEY, "g1", "2", [b"a" * 32])
    assert base != draws.game_key(KEY, "g1", "1", [b"b" * 32])
    assert base != draws.game_key(KEY, "g1", "1", [])


def test_commitment_binds_game_round_slot_seat_choice_nonce() -> None:
    nonce = new_nonce()
    c = commitment("g", "r", "s0", 0, {"x": 1}, nonce)
    assert c == commitment("g", "r", "s0", 0, {"x": 1}, nonce)
    for other in (commitment("h", "r", "s0", 0, {"x": 1}, nonce),
                  commitment("g", "q", "s0", 0, {"x": 1}, nonce),
                  commitment("g", "r", "s1", 0, {"x": 1}, nonce),
                  commitment("g", "r", "s0", 1, {"x": 1}, nonce),
                  commitment("g", "r", "s0", 0, {"x": 2}, nonce),
                  commitment("g", "r", "s0", 0, {"x": 1}, new_nonce())):
        assert other != c
    with pytest.raises(ValueError):
        commitment("g", "r", "s0", 0, 1, "00" * 16)


def test_commitments_root_is_order_independent() -> None:
    pairs = [("s1", "bb"), ("s0", "aa")]
    assert commitments_root(pairs) == commitments_root(list(reversed(pairs)))
    assert commitments_root(pairs) != commitments_root([("s0", "aa")])
