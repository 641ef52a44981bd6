"""Golden playthroughs replay to the recorded digests, move by move (tests/golden/playthrough.py;
regenerate deliberately with ``make golden``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.rules import registry
from shared.rules.api import Terminal
from shared.rules.replay import RulesVersionMismatch, transitions
from tests.golden.playthrough import HERE, VARIANTS, load, state_digest, trace, views_digest

pytestmark = pytest.mark.unit
FILES = sorted(HERE.glob("*.json"))


def test_every_variant_is_recorded() -> None:
    assert sorted(v.path for v in VARIANTS) == FILES, "run make golden"
    assert {v.game for v in VARIANTS} == set(registry.names())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_replays_to_the_golden_digests(path: Path) -> None:
    doc = load(path)
    game = registry.get(doc["game"])
    n = doc["n_seats"]
    log = [{"move": s["move"]} for s in doc["steps"]]
    try:
        replayed = list(transitions(doc["game"], doc["options"], n, log,
                                    rules_version=doc["rules_version"]))
    except RulesVersionMismatch as exc:
        pytest.fail(f"{exc}: a new rules version needs new golden files (make golden)")
    steps, views = trace(game, n, replayed)
    for i, (want, got) in enumerate(zip(doc["steps"], steps, strict=True)):
        assert got == want, f"{path.name}: step {i} ({want['move']}) replays differently"
    assert views == doc["views"], f"{path.name}: a seat's view differs"
    final = replayed[-1][2].state
    assert isinstance(game.next(final), Terminal)
    assert doc["final"] == {
        "steps": len(steps), "state": state_digest(game, final, 64),
        "views": views_digest(game, final, n, 64),
        "score": game.score(final).model_dump(mode="json")}


def test_a_log_of_another_rules_version_is_refused() -> None:
    doc = load(FILES[0])
    game = registry.get(doc["game"])
    log = [{"move": s["move"]} for s in doc["steps"]]
    with pytest.raises(RulesVersionMismatch) as info:
        next(transitions(doc["game"], doc["options"], doc["n_seats"], log,
                         rules_version=game.rules_version + "-other"))
    assert (info.value.logged, info.value.engine) == (game.rules_version + "-other",
                                                      game.rules_version)
