"""The gateway's pure guards: which client address a request is limited under (trusted
proxies only), the JSON depth bound, the limits' address lists."""

from __future__ import annotations

import pytest

from services.gateway.edge.client_ip import client_ip
from services.gateway.edge.json_guard import BadJson, depth_of, parse
from services.gateway.edge.limits import GatewayLimits, networks

pytestmark = pytest.mark.unit

PROXY = networks("10.0.0.0/8, 127.0.0.1")


def scope(peer: str, *xff: str) -> dict[str, object]:
    return {"client": (peer, 5000), "headers": [(b"x-forwarded-for", v.encode()) for v in xff]}


def test_the_peer_is_the_client_unless_it_is_a_trusted_proxy() -> None:
    assert client_ip(scope("203.0.113.5", "1.2.3.4"), PROXY) == "203.0.113.5"
    assert client_ip(scope("203.0.113.5", "1.2.3.4"), ()) == "203.0.113.5"
    assert client_ip(scope("10.1.2.3"), PROXY) == "10.1.2.3"  # a proxy with no header


def test_the_right_most_untrusted_hop_is_the_client() -> None:
    # the client forged its left-most entry; our proxies appended the real one
    assert client_ip(scope("10.1.2.3", "6.6.6.6, 198.51.100.7, 10.9.9.9"), PROXY) \
        == "198.51.100.7"
    assert client_ip(scope("10.1.2.3", "6.6.6.6", "198.51.100.7"), PROXY) == "198.51.100.7"
    assert client_ip(scope("10.1.2.3", "[2001:db8::1]:443"), PROXY) == "2001:db8::1"
    assert client_ip(scope("10.1.2.3", "198.51.100.7:8080"), PROXY) == "198.51.100.7"
    assert client_ip(scope("10.1.2.3", "10.4.4.4, 10.5.5.5"), PROXY) == "10.4.4.4"


def test_garbage_in_the_header_falls_back_to_the_proxy() -> None:
    assert client_ip(scope("10.1.2.3", "not-an-ip"), PROXY) == "10.1.2.3"
    assert client_ip(scope("::ffff:10.1.2.3", "198.51.100.7"), PROXY) == "198.51.100.7"
    assert client_ip({"client": None, "headers": []}, PROXY) == "unknown"


def test_json_depth_and_hostile_documents() -> None:
    assert depth_of(1, 5) == 0 and depth_of([[{"a": [1]}]], 10) == 4
    assert parse(b'{"a": [1, {"b": 2}]}', 3) == {"a": [1, {"b": 2}]}
    for raw in (b"[" * 40 + b"]" * 40, b'"\\ud800"', b'"\xed\xa0\x80"', b'"\xff"', b"1e400",
                b"1" + b"0" * 5000, b"NaN", b"{} {}", b""):
        with pytest.raises(BadJson) as exc:
            parse(raw, 32)
        assert len(str(exc.value)) < 120


def test_the_limits_parse_address_lists() -> None:
    limits = GatewayLimits(trusted_proxies="10.0.0.0/8,::1", rate_exempt_ips="")
    assert len(limits.trusted) == 2 and limits.exempt == ()
    assert len(GatewayLimits(rate_exempt_ips="127.0.0.0/8,::1/128").exempt) == 2
    # nobody is exempt by default (tests/unit/platform/test_rate_exempt.py)
