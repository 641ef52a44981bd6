"""One running system for the client tests, on its own logical database (it never shares
streams with the e2e tier's systems)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from services.supervisor import Supervisor
from shared.runtime.valkey import free_port
from tests.e2e.conftest import with_db
from tests.support.dir_scope import until_directory_ends

CLIENTS_DB = 5
OUT = Path("test-output")


@pytest.fixture(scope="session")
def clients_system(redis_url: str) -> Iterator[Supervisor]:
    sup = Supervisor(
        redis_url=with_db(redis_url, CLIENTS_DB), port=free_port(), log_dir=OUT / "logs" / "clients"
    )
    stop = until_directory_ends(__file__, sup.stop)
    try:
        sup.start(wait=180.0)  # eight processes on a loaded 2-core CI machine can take minutes
        yield sup
    finally:
        stop()
