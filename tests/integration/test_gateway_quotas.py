"""The gateway's Redis-backed rate limits and socket quotas (services/gateway/edge/quotas.py) on
the shipped Valkey configuration, as the ``gateway`` ACL user: with the ACL selector the
gateway needs for its ``rl:*`` keys, the limits hold; with today's gateway rules alone
(no ``rl:*`` permission) every check is counted as an error, never failing the request: a
rate is then decided by the replica's own view (same rate and burst), a socket passes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from services.gateway.edge import metrics as edge_metrics
from services.gateway.edge.limits import GatewayLimits
from services.gateway.edge.quotas import Quotas, Slots, Verdict
from shared.runtime.valkey import EmbeddedValkey
from shared.runtime.valkey_acl import TEMPLATE

pytestmark = pytest.mark.integration

# what the gateway's ACL line needs for its rate-limit keys (one selector: these commands on
# rl:* only; the gateway's other keys get no new command)
RL_SELECTOR = ("(~rl:* +evalsha +script|load +get +set +zadd +zrem +zcard +zscore "
               "+zremrangebyscore +pexpire)")


def _without_selector(tmp: Path) -> Path:
    """The shipped template with the gateway's rl:* selector taken out (the fail-open path)."""
    text = TEMPLATE.read_text()
    assert f" {RL_SELECTOR}" in text, "the shipped gateway line carries the rl:* selector"
    path = tmp / "users.acl.template"
    path.write_text(text.replace(f" {RL_SELECTOR}", ""))
    return path


@pytest.fixture(params=["shipped_rules", "without_selector"])
def gateway_url(request: pytest.FixtureRequest,
                tmp_path: Path) -> Iterator[tuple[str, str, bool]]:
    with_selector = request.param == "shipped_rules"
    server = EmbeddedValkey(shipped=True, template=TEMPLATE if with_selector
                            else _without_selector(tmp_path))
    server.start()
    try:
        yield server.url_for("gateway"), server.url, with_selector
    finally:
        server.stop()


LIMITS = GatewayLimits(rate_exempt_ips="", ws_per_player=2, ws_per_ip=3)


async def test_rates_and_socket_quotas_as_the_gateway_user(
        gateway_url: tuple[str, str, bool]) -> None:
    url, admin_url, enforced = gateway_url
    r = aioredis.Redis.from_url(url)
    q = Quotas(r, LIMITS, "replica-a")
    other = Quotas(r, LIMITS, "replica-b")  # a second replica on the same Valkey
    errors = edge_metrics.RATE_LIMIT_ERRORS._value.get()
    try:
        verdicts = [await (q if i % 2 else other).take("http", "203.0.113.9", 1.0, 3)
                    for i in range(5)]
        slots = [await (q if i % 2 else other).open_socket("p-1", "203.0.113.7", True)
                 for i in range(3)]
        if not enforced:  # no permission on rl:*: every failure counted; each replica
            # decides rates from its own view (local_rates.py), sockets fail open
            assert all(v.ok for v in verdicts) and all(isinstance(s, Slots) for s in slots)
            assert edge_metrics.RATE_LIMIT_ERRORS._value.get() > errors
            alone = [await q.take("http", "203.0.113.10", 1.0, 3) for _ in range(6)]
            assert [v.ok for v in alone] == [True] * 3 + [False] * 3, alone
            assert alone[3].retry_after_s >= 1 and alone[3].limit == "http"
            return
        assert [v.ok for v in verdicts] == [True, True, True, False, False]
        assert verdicts[3].retry_after_s >= 1 and verdicts[3].limit == "http"
        assert isinstance(slots[0], Slots) and isinstance(slots[1], Slots)
        assert isinstance(slots[2], Verdict) and slots[2].limit == "ws_player"
        await other.close_socket(slots[0])  # freed by the replica that held it
        again = await q.open_socket("p-1", "203.0.113.7", True)
        assert isinstance(again, Slots)
        # per IP: three players from one address, the fourth refused
        ip_slots = [await q.open_socket(f"p-{i}", "203.0.113.8", True) for i in range(2, 6)]
        assert [isinstance(s, Slots) for s in ip_slots] == [True, True, True, False]
        assert edge_metrics.RATE_LIMIT_ERRORS._value.get() == errors
        admin = aioredis.Redis.from_url(admin_url)
        assert await admin.ttl("rl:ws:player:p-1") > 0  # every key lapses on its own
        assert await admin.pttl("rl:http:203.0.113.9") > 0
        await admin.aclose()
    finally:
        await r.aclose()
