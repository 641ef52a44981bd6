"""The dealer's draws take a label's first words at once and fall back to the word-by-word
definition (``draws.LabelStream``, FAIRNESS.md §Dealer) only when a word could be refused: both
paths give the definition's values, whatever the key, label, range and count."""

from __future__ import annotations

import pytest

from shared.fairness import draws

pytestmark = pytest.mark.unit

KEYS = [bytes([k]) * 32 for k in range(12)] + [b"", b"k", bytes(range(64)), bytes(range(140))]


def _shuffle(key: bytes, label: str, n: int) -> list[int]:
    stream = draws.LabelStream(key, label)
    items = list(range(n))
    for i in range(n - 1, 0, -1):
        j = stream.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def _below(key: bytes, label: str, n: int, count: int) -> list[int]:
    stream = draws.LabelStream(key, label)
    return [stream.below(n) for _ in range(count)]


def _check_every_kind() -> None:
    for k, key in enumerate(KEYS):
        for n in (0, 1, 2, 3, 11, 43, 52, 66, 130):
            label = f"deck:shuffle:{k}:{n}:é"
            assert draws.shuffle(key, label, n) == _shuffle(key, label, n)
        for i in range(24):
            label = f"dice:turn:{i}:attack:{k}"
            sides, count = (6, 2, 20, 100, 3, 1 << 32)[i % 6], 1 + i % 7
            assert draws.dice(key, label, sides, count) == \
                [x + 1 for x in _below(key, label, sides, count)]
            assert draws.below(key, label, sides, count) == _below(key, label, sides, count)
            assert draws.draw(key, label, "below", sides, count) == _below(key, label, sides,
                                                                           count)
            assert draws.draw(key, label, "dice", sides, count) == \
                [x + 1 for x in _below(key, label, sides, count)]
        for count in (0, -1):  # no values asked: none drawn, whatever the range
            assert draws.below(key, "none", 6, count) == draws.dice(key, "none", 0, count) == []


def test_the_draws_are_the_label_streams_words() -> None:
    _check_every_kind()


def test_a_word_that_could_be_refused_takes_the_word_by_word_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the bound lowered to half the range almost every draw takes the fallback, and
    with real refusals in it (a range just above 2**63 refuses half the words) the values
    are still the definition's."""
    monkeypatch.setattr(draws, "_SAFE", 1 << 63)
    _check_every_kind()
    key = KEYS[1]
    n = (1 << 63) + 1
    assert draws.below(key, "wide", n, 5) == _below(key, "wide", n, 5)


def test_alternating_keys_each_get_their_own_stream() -> None:
    """The last key's keyed HMAC is kept between draws; another key replaces it."""
    a, b = KEYS[2], KEYS[3]
    first = [draws.dice(a, "x", 6, 2), draws.dice(b, "x", 6, 2), draws.dice(a, "x", 6, 2)]
    assert first[0] == first[2] == [x + 1 for x in _below(a, "x", 6, 2)]
    assert first[1] == [x + 1 for x in _below(b, "x", 6, 2)]
