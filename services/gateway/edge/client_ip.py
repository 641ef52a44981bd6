"""Which address a request comes from: the socket peer, or, when the peer is one of the
configured trusted proxies (EMPIRE_TRUSTED_PROXIES), the right-most X-Forwarded-For hop that
is not itself a trusted proxy. An X-Forwarded-For from any other peer is ignored: a client
cannot choose the address it is limited under."""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

from services.gateway.edge.limits import Network

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@functools.lru_cache(maxsize=4096)  # the same few addresses, parsed per request otherwise
def _parse(text: str) -> Address | None:
    text = text.strip()
    if text.startswith("["):  # [v6]:port
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # v4:port
        text = text.partition(":")[0]
    try:
        addr = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def within(addr: str | Address | None, nets: Iterable[Network]) -> bool:
    a = _parse(addr) if isinstance(addr, str) else addr
    return a is not None and any(a in n for n in nets)


def client_ip(scope: Mapping[str, Any], trusted: tuple[Network, ...]) -> str:
    client = scope.get("client") or ("", 0)
    peer_text = str(client[0])
    peer = _parse(peer_text)
    if peer is None:
        return peer_text or "unknown"
    if not trusted or not within(peer, trusted):
        return str(peer)
    hops: list[str] = []
    for name, value in scope.get("headers", ()):
        if name == b"x-forwarded-for":
            hops += [h for h in value.decode("latin-1").split(",") if h.strip()]
    for hop in reversed(hops):
        addr = _parse(hop)
        if addr is None:  # a hop no proxy of ours wrote: stay with the last known one
            return str(peer)
        if not within(addr, trusted):
            return str(addr)
        peer = addr
    return str(peer)
