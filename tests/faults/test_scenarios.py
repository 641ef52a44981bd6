"""Network faults survived and measured: the scenarios of tests/faults/scenarios.py
with bots playing through them, every check of that module. ``make test-full`` runs the small set
(one game kind, short phases) in one system; ``make faults`` runs every scenario, each in a
system of its own, with every game kind at full size and prints the figures
(test-output/faults/<scenario>.json). EMPIRE_FAULTS_ONLY=<name>,<name> picks scenarios."""

from __future__ import annotations

import os

import pytest

from tests.faults.scenarios import SCENARIOS, Scenario, parse_summary, run_scenario, system_for
from tests.faults.system import FULL

pytestmark = [pytest.mark.faults, pytest.mark.full, pytest.mark.timeout(1800 if FULL else 400)]

ONLY = [n for n in os.environ.get("EMPIRE_FAULTS_ONLY", "").split(",") if n]  # by name
if ONLY:
    BATCHES = [[s] for s in SCENARIOS if s.name in ONLY]
else:
    BATCHES = [[s] for s in SCENARIOS] if FULL else [[s for s in SCENARIOS if s.small]]


@pytest.mark.parametrize("batch", BATCHES, ids=["+".join(s.name for s in b) for b in BATCHES])
async def test_network_faults_lose_nothing_and_tell_the_truth(batch: list[Scenario]) -> None:
    lines = []
    with system_for(batch, seed=len(batch[0].name)) as system:
        for scenario in batch:
            lines.append(parse_summary(await run_scenario(scenario, system)))
    print("\n" + "\n".join(lines), flush=True)
