"""Every change of meaning to a finished game's public document is caught.

Real records (tests/fixtures/records: a duel with defaulted slots, a duel without an entropy
round, The Empire Engine's ordered rounds, Empire The Card Game's secret draws, a duel ended
by its lifetime with a round open) are mutated
field by field and entry by entry (tests/support/mutations.py: seats, slots, labels, round
ids and public parts swapped for real ones, values nudged or retyped, list elements and
entries dropped, duplicated, swapped and moved with their stream ids rewritten). A mutation
that changes the document's meaning must be reported:

* by the stdlib verifier, for everything but game logic (``RULES_ONLY``: events, outcome,
  options, actions, the public keys and fixed order of a round), exhaustively;
* by ``verify --rules`` (the engine replay) for game logic, on hypothesis's random choice of
  single and double mutations, and exhaustively in the slow run that writes the counts.

A mutation keeps the meaning only when it is a no-op, touches a ``TRUSTED`` field (nothing
public can confirm it: docs/fairness.md), a commitment only its seat's receipt holds (a round
still open when the game ended by its lifetime), or is ``equivalent`` (the commit order of an
unordered round; options or an action the engine reads the same). Counts go to
test-output/verify-mutations*.json.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from shared.fairness.verify import check
from tests.support import tamper
from tests.support.mutations import (
    Mutation,
    canonical,
    equivalent,
    mutations,
    open_round_spec,
    receipts_only,
    rules_only,
    trusted,
)

pytestmark = pytest.mark.property
OUT = Path("test-output")
# per game: at most this many mutations per (field pattern, kind) in the routine run (None:
# all); the slow run takes every one
CAP: dict[str, int | None] = {"duel-defaults": None, "duel-no-entropy": None,
                              "duel-expired": None, "empire-engine": 60, "empire-engine-idle": 12,
                              "empire-cards": 25}


@cache
def _doc_text(game: str) -> str:
    return json.dumps(tamper.load(game))


@cache
def _mutations(game: str) -> list[Mutation]:
    return list(mutations(json.loads(_doc_text(game))))


def _mutated(game: str, ms: list[Mutation]) -> dict[str, Any]:
    d: dict[str, Any] = json.loads(_doc_text(game))
    for m in ms:
        m.apply(d)
    return d


def _judge(game: str, ms: list[Mutation], rules: bool) -> str:
    """noop | stdlib | rules | trusted | equivalent | MISSED (| skipped: rules-only, no rules)"""
    d = _mutated(game, ms)
    if canonical(d) == canonical(json.loads(_doc_text(game))):
        return "noop"
    r = check(d)
    assert not any("cannot be verified" in p.text for p in r.problems), r.problems
    if not r.ok:
        return "stdlib"
    if rules and not check(d, rules=True).ok:
        return "rules"
    original = json.loads(_doc_text(game))
    if all(trusted(m) or receipts_only(original, m) for m in ms):
        return "trusted"
    if all(trusted(m) or equivalent(original, _mutated(game, [m]), m) for m in ms):
        return "equivalent"
    if not rules and all(rules_only(m) or open_round_spec(original, m) or trusted(m)
                         for m in ms):
        return "skipped"
    return "MISSED"


def _spread(items: list[Mutation], cap: int | None) -> list[Mutation]:
    """Every mutation, or ``cap`` of each (field pattern, kind) spread over the document."""
    if cap is None:
        return items
    groups: dict[tuple[str, str], list[Mutation]] = {}
    for m in items:
        groups.setdefault((m.field, m.kind), []).append(m)
    out = []
    for g in groups.values():
        step = max(1, len(g) // cap)
        out += g[::step][:cap]
    return out


def _report(name: str, data: dict[str, Any]) -> None:
    OUT.mkdir(exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(data, indent=1, sort_keys=True))


# the records with the most mutations take tens of seconds each: make test-full's
HEAVY = {"duel-defaults", "empire-cards", "empire-engine", "empire-engine-idle"}


@pytest.mark.parametrize(
    "game", [pytest.param(g, marks=pytest.mark.full) if g in HEAVY else g for g in tamper.GAMES]
)
def test_stdlib_verifier_catches_every_change_outside_game_logic(game: str) -> None:
    original = json.loads(_doc_text(game))
    todo = _spread([m for m in _mutations(game)
                    if not rules_only(m) and not open_round_spec(original, m)], CAP[game])
    verdicts: Counter[str] = Counter()
    missed = []
    for m in todo:
        v = _judge(game, [m], rules=False)
        verdicts[v] += 1
        if v == "MISSED":
            missed.append(f"{m.kind} {m.field} {m.path} {m.note}")
    _report(f"verify-mutations-stdlib-{game}", {"mutations": len(todo), **verdicts})
    assert not missed, f"{len(missed)} undetected: {missed[:10]}"
    assert verdicts["stdlib"] > 0.9 * (len(todo) - verdicts["noop"])


@cache
def _all_mutations() -> list[tuple[str, int]]:
    return [(g, i) for g in tamper.GAMES for i in range(len(_mutations(g)))]


@settings(max_examples=250, deadline=None)
@given(st.data())
def test_random_single_and_double_mutations_are_caught_with_the_rules(data: Any) -> None:
    game, first = data.draw(st.sampled_from(_all_mutations()), label="mutation")
    assume(tamper.rules_apply(game))  # else --rules only says the engine changed
    ms = [_mutations(game)[first]]
    if data.draw(st.booleans(), label="double"):
        second = data.draw(st.integers(0, len(_mutations(game)) - 1), label="second")
        ms.append(_mutations(game)[second])
        try:  # the first may have removed what the second changes
            _mutated(game, ms)
        except (KeyError, IndexError, TypeError, AttributeError):
            assume(False)
    verdict = _judge(game, ms, rules=True)
    assert verdict != "MISSED", [(m.kind, m.field, m.path, m.note) for m in ms]


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_every_mutation_of_every_game_exhaustively() -> None:
    """The full figures: every mutation of every fixture, with the engine."""
    totals: dict[str, Any] = {}
    missed = []
    for game in tamper.GAMES:
        if not tamper.rules_apply(game):
            totals[game] = "not run: the engine changed since the fixture was played"
            continue
        verdicts: Counter[str] = Counter()
        for m in _mutations(game):
            v = _judge(game, [m], rules=True)
            verdicts[v] += 1
            if v == "MISSED":
                missed.append(f"{game}: {m.kind} {m.field} {m.path} {m.note}")
        totals[game] = {"mutations": len(_mutations(game)), **verdicts}
    _report("verify-mutations", totals)
    assert not missed, f"{len(missed)} undetected: {missed[:10]}"
