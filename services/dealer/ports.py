"""What the dealer's shell (services/dealer/service.py) needs from the outside: its store
(services/dealer/store.py over Redis; tests/support/fakes ``FakeDealerStore`` in memory,
checked against it in tests/integration/test_store_contracts.py) and a publisher
(shared/runtime/ports.py ``Publisher``)."""

from __future__ import annotations

from typing import Protocol


class DealerStorePort(Protocol):
    """A game's seed, its commitment, client seeds, draws in order and the reveal."""

    async def commit_seed(self, game_id: str, seed_hex: str, rules_version: str,
                          commitment: str, entry: str) -> bool: ...

    async def commitment(self, game_id: str) -> str: ...

    async def fields(self, game_id: str) -> dict[str, str]: ...

    async def fix_client_seeds(self, game_id: str, seeds: str) -> bool: ...

    async def store_draw(self, game_id: str, label: str, record: str) -> str | None: ...

    async def order(self, game_id: str) -> list[str]: ...

    async def reveal(self, game_id: str, entry: str, ttl_ms: int) -> bool: ...
