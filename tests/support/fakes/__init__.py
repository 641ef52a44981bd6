"""In-memory adapters for the services' ports (services/<service>/ports.py and
shared/runtime/ports.py): the same answers as the Redis stores (services/*/store.py) for what
the services ask, held in dicts, one module per service. The store contract tests
(tests/integration/test_store_contracts.py) run the same checks against both, so a fake that
drifts from its store fails there."""

from __future__ import annotations

from tests.support.fakes.adjudicator import FakeAdjudicatorStore
from tests.support.fakes.bots import FakeBotsStore
from tests.support.fakes.common import FakeKeyRegistry, FakePublisher, FakeTimers
from tests.support.fakes.dealer import FakeDealerStore
from tests.support.fakes.escrow import FakeEscrowStore
from tests.support.fakes.lobby import FakeAccountsStore, FakeLobbyStore, FakeMyGamesStore
from tests.support.fakes.scoring import FakeScoringStore

__all__ = [
    "FakeAccountsStore",
    "FakeAdjudicatorStore",
    "FakeBotsStore",
    "FakeDealerStore",
    "FakeEscrowStore",
    "FakeKeyRegistry",
    "FakeLobbyStore",
    "FakeMyGamesStore",
    "FakePublisher",
    "FakeScoringStore",
    "FakeTimers",
]
