"""The shipped docker-compose.yml run for real (make deploy-test): the marker ``containers``,
collected only when the run asks for it (-m containers), so make test and the deploy tier never
start an engine. The engine is Empire Hall's own (deploy/images/engine.sh: its own socket, never
the default one); the stack is one compose project in a temporary copy of the deploy files."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.deploy.real.compose import ComposeStack, Engine


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselected unless the run asks for them: a Docker engine is started only on purpose."""
    if "containers" in (config.option.markexpr or ""):
        return
    left = [item for item in items if item.get_closest_marker("containers")]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = [item for item in items if not item.get_closest_marker("containers")]


@pytest.fixture(scope="session")
def engine() -> Iterator[Engine]:
    eng = Engine()
    eng.start()
    try:
        yield eng
    finally:
        eng.stop()


@pytest.fixture(scope="session")
def stack(engine: Engine, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ComposeStack]:
    s = ComposeStack(engine, tmp_path_factory.mktemp("compose"))
    s.prepare()
    try:
        s.up_seconds = s.up()
        yield s
    finally:
        s.down(volumes=True)
