"""Webhook calls: one POST of a JSON body to the player's URL, only to public addresses.

The host is resolved and every address it resolves to is checked (services/notifier/core.py
``addresses_allowed``: no loopback, private, link-local, shared or reserved address), then the
request goes to the checked address itself, with the name kept for the Host header and for
TLS (SNI and the certificate's name): a name that resolves to a public address at the check
and to a private one a moment later (DNS rebinding) is never connected to. Redirects are not
followed (a redirect to an internal address would undo the check). The policy is off only with
``EMPIRE_NOTIFY_ALLOW_PRIVATE`` (development: ``make run``), which also allows plain http.
"""

from __future__ import annotations

import asyncio
import socket

import httpx

from services.notifier import core

HOOK_TIMEOUT_S = 10.0


async def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (a literal address: itself)."""
    literal = core.literal_address(host)
    if literal is not None:
        return [str(literal)]
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port,
                                                             type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    return sorted({str(info[4][0]) for info in infos})


class HttpsHookSender:
    def __init__(self, allow_private: bool) -> None:
        self.allow_private = allow_private

    async def _target(self, url: str) -> tuple[core.HookUrl, str]:
        hook = core.check_webhook_url(url, self.allow_private)
        addrs = await resolve(hook.host, hook.port)
        core.addresses_allowed(addrs, self.allow_private)
        return hook, addrs[0]

    async def check(self, url: str) -> None:
        """notify/bad_webhook, notify/webhook_unresolvable or notify/webhook_private."""
        await self._target(url)

    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> None:
        """Raises on a refused URL, a failed connection or an answer that is not 2xx."""
        hook, addr = await self._target(url)
        ip_host = f"[{addr}]" if ":" in addr else addr
        host_header = hook.host if hook.port in (80, 443) else f"{hook.host}:{hook.port}"
        async with httpx.AsyncClient(timeout=HOOK_TIMEOUT_S, follow_redirects=False,
                                     trust_env=False) as client:
            reply = await client.post(
                f"{hook.scheme}://{ip_host}:{hook.port}{hook.target}", content=body,
                headers={**headers, "Host": host_header, "Content-Type": "application/json",
                         "User-Agent": "EmpireHall-Notifier"},
                extensions={"sni_hostname": hook.host})
        if not 200 <= reply.status_code < 300:
            raise RuntimeError(f"webhook answered {reply.status_code}")
