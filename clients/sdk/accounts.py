"""The HTTP half of the client: one request with its token refreshed and its retries, and the
player's account, sessions and the operators' calls (docs/protocol.md "Accounts and
sessions")."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx

from clients.sdk.errors import ApiError
from shared.runtime.session_keys import SessionKey

IDEMPOTENT_TRIES = 3  # a request safe to repeat, sent again after a dead connection


class AccountsApi:
    """HTTP requests and the account calls. Its state is set by ``Client.__init__``."""

    base_url: str
    http: httpx.AsyncClient
    token: str | None
    refresh_token: str | None
    access_expires_ms: int
    session_id: str | None
    player_id: str | None
    name: str | None
    session_key: SessionKey
    _key_registered: str
    _refreshing: asyncio.Lock | None

    # -- HTTP ----------------------------------------------------------------------------

    async def _call(self, method: str, path: str, body: Any = None, auth: bool = True,
                    idempotent: bool = False) -> Any:
        """One request; with a session, the access token is refreshed first when it is about
        to expire, and once more if the server says it expired. ``idempotent``: a request
        that may safely be sent again (as every GET is)."""
        if auth:
            await self.fresh_token()
        try:
            return await self._call_once(method, path, body, auth, idempotent)
        except ApiError as exc:
            if exc.code != "auth/expired_token" or not auth or not self.refresh_token:
                raise
        await self.refresh()
        return await self._call_once(method, path, body, auth, idempotent)

    async def _call_once(self, method: str, path: str, body: Any, auth: bool,
                         idempotent: bool = False) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token and auth else {}
        again = method == "GET" or idempotent
        for attempt in range(IDEMPOTENT_TRIES if again else 1):
            try:
                r = await self.http.request(method, path, json=body, headers=headers)
                break
            except httpx.TransportError:
                # the connection died under the request (a keep-alive connection the server
                # closed as we reused it, a gateway replica killed mid-request): a request
                # that is safe to repeat goes again, on a new connection
                if not again or attempt == IDEMPOTENT_TRIES - 1:
                    raise
                await asyncio.sleep(0.2 * attempt)
        try:
            data = r.json()
        except ValueError:  # not JSON (a proxy's or a crashed server's error page)
            raise ApiError(f"http/{r.status_code}", r.text[:200]) from None
        if r.status_code >= 400 or (isinstance(data, dict) and data.get("ok") is False):
            code = data.get("code", f"http/{r.status_code}") if isinstance(data, dict) else \
                f"http/{r.status_code}"
            message = data.get("message", "") if isinstance(data, dict) else ""
            raise ApiError(code, message)
        return data

    # -- accounts and sessions (docs/protocol.md "Accounts and sessions") ---------------

    def _session(self, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("session_id") != self.session_id:
            # a new session gets a new key: the lobby binds a session's first key to it
            self.session_key = SessionKey()
            self._key_registered = ""
        self.token, self.player_id, self.name = data["token"], data["player_id"], data["name"]
        self.refresh_token = data.get("refresh_token")
        self.access_expires_ms = int(data.get("access_expires_ms") or 0)
        self.session_id = data.get("session_id")
        return dict(data)

    async def _signed_in(self, data: dict[str, Any]) -> dict[str, Any]:
        """A sign-in's answer taken (clients/sdk/commands.py also binds the session's key)."""
        return self._session(data)

    async def sign_in(self, name: str) -> dict[str, Any]:
        """A new guest player, signed in (one click on the web page)."""
        return await self._signed_in(await self._call("POST", "/api/players", {"name": name},
                                                      auth=False))

    async def sign_in_password(self, name: str, password: str) -> dict[str, Any]:
        """Sign in to an account (from any device): the same player as before."""
        return await self._signed_in(await self._call("POST", "/api/session/password",
                                                      {"name": name, "password": password},
                                                      auth=False))

    async def set_password(self, password: str, current: str | None = None) -> dict[str, Any]:
        """Make this guest an account (same player id: rating, history, games stay), or
        change the password (``current`` needed)."""
        body: dict[str, Any] = {"password": password}
        if current is not None:
            body["current"] = current
        return dict(await self._call("POST", "/api/account/password", body))

    async def passkey_register(self, authenticator: Callable[[dict[str, Any]], dict[str, Any]],
                               label: str = "") -> dict[str, Any]:
        """Register a passkey: ``authenticator(options)`` answers the WebAuthn creation
        options with the credential JSON (a browser does this with navigator.credentials)."""
        begin = await self._call("POST", "/api/account/passkeys/begin")
        cred = authenticator(begin["options"])
        return dict(await self._call("POST", "/api/account/passkeys/finish",
                                     {"challenge_id": begin["challenge_id"], "credential": cred,
                                      "label": label}))

    async def sign_in_passkey(self, authenticator: Callable[[dict[str, Any]], dict[str, Any]],
                              name: str | None = None) -> dict[str, Any]:
        begin = await self._call("POST", "/api/session/passkey/begin",
                                 {"name": name} if name else {}, auth=False)
        cred = authenticator(begin["options"])
        return await self._signed_in(await self._call(
            "POST", "/api/session/passkey/finish",
            {"challenge_id": begin["challenge_id"], "credential": cred}, auth=False))

    async def refresh(self) -> dict[str, Any]:
        """A new access token (and refresh token: the old one is spent)."""
        if self._refreshing is None:
            self._refreshing = asyncio.Lock()
        async with self._refreshing:
            if not self.refresh_token:
                raise ApiError("auth/refresh_invalid", "no session to refresh")
            data = await self._call_once("POST", "/api/session/refresh",
                                         {"refresh_token": self.refresh_token}, False)
            return self._session(data)

    async def fresh_token(self, margin_s: float = 30.0) -> None:
        """Refresh the access token if it expires within ``margin_s``."""
        if self.refresh_token and self.access_expires_ms and \
                self.access_expires_ms - time.time() * 1000 < margin_s * 1000:
            before = self.refresh_token
            if self._refreshing is not None and self._refreshing.locked():
                async with self._refreshing:
                    pass
            if self.refresh_token == before and self.access_expires_ms - time.time() * 1000 \
                    < margin_s * 1000:
                await self.refresh()

    async def sign_out(self) -> None:
        """End this session (its refresh token, access tokens and sockets)."""
        await self._call("POST", "/api/session/sign-out")
        self.token = self.refresh_token = self.session_id = None

    async def sessions(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/api/sessions"))["sessions"])

    async def revoke_session(self, session_id: str) -> dict[str, Any]:
        return dict(await self._call("DELETE", f"/api/sessions/{session_id}"))

    async def me(self) -> dict[str, Any]:
        return dict(await self._call("GET", "/api/me"))

    async def export_data(self) -> dict[str, Any]:
        return dict(await self._call("GET", "/api/account/export"))

    async def delete_account(self, confirm: str) -> dict[str, Any]:
        """Delete this player (``confirm``: its name)."""
        return dict(await self._call("DELETE", "/api/account", {"confirm": confirm}))

    async def admin_suspend(self, player_id: str, reason: str,
                            suspended: bool = True) -> dict[str, Any]:
        return dict(await self._call("POST", f"/api/admin/players/{player_id}/suspend",
                                     {"reason": reason, "suspended": suspended}))

    async def admin_close_table(self, table_id: str, reason: str) -> dict[str, Any]:
        return dict(await self._call("POST", f"/api/admin/tables/{table_id}/close",
                                     {"reason": reason}))

    async def admin_end_game(self, game_id: str, reason: str) -> dict[str, Any]:
        return dict(await self._call("POST", f"/api/admin/games/{game_id}/end",
                                     {"reason": reason}))

    async def admin_audit(self, limit: int = 100) -> list[dict[str, Any]]:
        return list((await self._call("GET", f"/api/admin/audit?limit={limit}"))["entries"])
