"""TLS to Valkey: services reach Valkey over rediss:// and verify its certificate
against EMPIRE_REDIS_CA_FILE; a server signed by another CA, or plaintext to the TLS port, is
refused; the whole system plays and verifies a game with every service on TLS."""

from __future__ import annotations

import ssl
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import trustme

from services.supervisor import SERVICES, Supervisor
from shared.runtime.redis import client
from shared.runtime.settings import Settings
from shared.runtime.valkey import EmbeddedValkey, free_port
from tests.e2e.conftest import play_bot_game
from tests.support.tls_proxy import TlsProxy

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def tls_valkey() -> Iterator[tuple[EmbeddedValkey, TlsProxy]]:
    server = EmbeddedValkey(shipped=True)
    server.start()
    proxy = TlsProxy(server.port, Path(tempfile.mkdtemp(prefix="empire-tls-"))).start()
    yield server, proxy
    proxy.stop()
    server.stop()


def tls_url(server: EmbeddedValkey, proxy: TlsProxy, user: str, host: str = "localhost") -> str:
    return f"rediss://{user}:{server.passwords[user]}@{host}:{proxy.port}/0"


async def test_a_service_client_verifies_the_server_against_the_ca_bundle(
        tls_valkey: tuple[EmbeddedValkey, TlsProxy]) -> None:
    server, proxy = tls_valkey
    good = client(Settings(redis_url=tls_url(server, proxy, "adjudicator"),
                           redis_ca_file=str(proxy.ca_file)))
    try:
        assert await good.ping()
    finally:
        await good.aclose()
    other_ca = Path(tempfile.mkdtemp()) / "other.pem"
    trustme.CA().cert_pem.write_to_path(str(other_ca))
    bad = client(Settings(redis_url=tls_url(server, proxy, "adjudicator"),
                          redis_ca_file=str(other_ca)))
    try:
        with pytest.raises(redis.exceptions.ConnectionError, match=r"(?i)certificate"):
            await bad.ping()
    finally:
        await bad.aclose()


def test_plaintext_to_the_tls_port_gets_nothing(
        tls_valkey: tuple[EmbeddedValkey, TlsProxy]) -> None:
    server, proxy = tls_valkey
    plain = f"redis://adjudicator:{server.passwords['adjudicator']}@127.0.0.1:{proxy.port}/0"
    with pytest.raises((redis.exceptions.ConnectionError, ssl.SSLError)), redis.Redis.from_url(
            plain, socket_timeout=3) as r:
        r.ping()


@pytest.mark.full
async def test_the_whole_system_plays_over_tls(
        tls_valkey: tuple[EmbeddedValkey, TlsProxy]) -> None:
    server, proxy = tls_valkey
    before = proxy.connections
    sup = Supervisor(port=free_port(), valkey=server, log_dir=Path("test-output/logs/tls"),
                     env_extra={"EMPIRE_REDIS_CA_FILE": str(proxy.ca_file),
                                "EMPIRE_REDIS_PLAINTEXT": "0"})
    sup.service_urls = {svc: tls_url(server, proxy, svc) for svc in SERVICES}
    try:
        sup.start(wait=180)
        played = await play_bot_game(sup.url, "duel", 2, {"rounds": 2})
        assert played.problems == []
        assert proxy.connections - before >= len(SERVICES)  # every service came through TLS
    finally:
        sup.stop()
