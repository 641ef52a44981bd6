"""What a client sends about a game over the socket: watching it, and the seat's moves, actions
and sealed commits, each signed with this session's Ed25519 key for the player's seat
(docs/protocol.md "Signed commands"). A commitment and its nonce are computed here; the
opening leaves the process only sealed to the escrow's key."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Any

import websockets

from clients.sdk.connection import Connection
from clients.sdk.errors import ApiError
from clients.sdk.session import GameSession, Receipt, escrow_key_of
from shared.fairness.commitments import commitment, new_nonce
from shared.fairness.seal import seal_opening
from shared.protocol.versions import PROTOCOL_VERSION, SEALED_COMMIT_VERSION
from shared.runtime.session_keys import SessionKey

KEPT_RECEIPTS = 100  # unwatched games whose receipts a Client keeps for verify_game


class Commands(Connection):
    """Watches, acts and commits. Its state is set by ``Client.__init__``."""

    session_key: SessionKey
    _key_registered: str  # the player the session key is registered for ("": not yet)

    async def watch(self, game_id: str, timeout: float = 30.0) -> GameSession:
        if self.ws is None:
            await self.connect()
        game = self.games.setdefault(game_id, GameSession(game_id=game_id, client=self))
        # watching again resumes from what is held (nothing is delivered twice)
        await self._send(
            {
                "type": "watch",
                "v": PROTOCOL_VERSION,
                "game_id": game_id,
                "after_seq": game.seq,
                "after_record": game.record_id,
            }
        )
        # a refusal that may pass (a game not yet visible, the connection's rate, a server
        # hiccup: answered with the game's id) is sent again by ``_watch_again``: waiting out
        # the timeout would leave a bot's seat idle for a round
        deadline = asyncio.get_running_loop().time() + timeout
        while game.view is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await game.wait(1.0)
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"no view of {game_id}")
        return game

    async def unwatch(self, game_id: str) -> None:
        """Stop following a game (its session is dropped; its receipts are kept for
        ``verify_game``, the last ``KEPT_RECEIPTS`` games')."""
        session = self.games.get(game_id)
        self._rewatch_tries.pop(game_id, None)
        if session is not None and session.receipts:
            self.kept_receipts[game_id] = session.receipts_doc()
            while len(self.kept_receipts) > KEPT_RECEIPTS:
                del self.kept_receipts[next(iter(self.kept_receipts))]
        if self.games.pop(game_id, None) is not None and self.ws is not None:
            with contextlib.suppress(websockets.ConnectionClosed):
                await self._send({"type": "unwatch", "game_id": game_id})

    async def _command(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send a command frame as given; an act or commit without a ``sig`` is signed first
        (as this player's seat in the game) when it can be: this client signs every move it
        sends (docs/protocol.md "Signed commands")."""
        return (await self._request(await self._signed(msg)))[0]

    async def _signed(self, msg: dict[str, Any]) -> dict[str, Any]:
        kind, gid, cmd = msg.get("type"), msg.get("game_id"), msg.get("cmd_id")
        if kind not in ("act", "commit") or "sig" in msg or not isinstance(gid, str) \
                or not isinstance(cmd, str):
            return msg
        try:
            seat = await self._seat_of(gid)
        except ApiError:
            return msg  # no such game: refused as such, unsigned
        if seat is None:
            return msg  # not seated: refused as such
        try:
            if kind == "act" and "action" in msg:
                sig = self.session_key.sign_act(gid, seat, cmd, msg["action"],
                                                msg.get("expected_seq"))
            elif kind == "commit" and all(isinstance(msg.get(k), str) for k in (
                    "round_id", "slot", "commitment", "sealed")):
                sig = self.session_key.sign_commit(gid, seat, cmd, msg["round_id"], msg["slot"],
                                                   msg["commitment"], msg["sealed"],
                                                   msg.get("public"))
            else:
                return msg
        except (ValueError, TypeError):
            return msg  # nothing canonical to sign: the gateway refuses it anyway
        await self.register_session_key()
        return {**msg, **sig}

    async def _signed_in(self, data: dict[str, Any]) -> dict[str, Any]:
        """A new session binds its key at once (the lobby takes a session's first key), so
        nobody who sees its access token in transit can bind one first. A refusal here is
        left to the first signed command, which registers again."""
        out = await super()._signed_in(data)
        with contextlib.suppress(ApiError):
            await self.register_session_key()
        return out

    async def register_session_key(self) -> None:
        """Register this client's session key for its player (once per player): the lobby
        checks the token and binds the key; acts and commits are then signed with it."""
        if self._key_registered and self._key_registered == (self.player_id
                                                             or self._key_registered):
            return
        # the same key registered twice is one registration: safe to send again
        answer = await self._call("POST", "/api/session-keys", {"key": self.session_key.public},
                                  idempotent=True)
        self._key_registered = str(answer["player_id"])

    async def rotate_session_key(self) -> None:
        """Hand the session on to a fresh key: the current key signs the new one over (the
        lobby takes a later key for a session only so), and stops verifying."""
        await self.register_session_key()
        new = SessionKey()
        proof = self.session_key.sign_rekey(self.session_id or "", new.public)
        await self._call("POST", "/api/session-keys", {"key": new.public, "proof": proof},
                         idempotent=True)
        self.session_key = new

    async def _seat_of(self, game_id: str) -> int | None:
        game = self.games.get(game_id)
        if game is not None and game.seat is not None:
            return game.seat
        if self.player_id is None:
            return None
        players = (await self.match(game_id)).get("players", [])
        return next((i for i, p in enumerate(players) if p.get("player_id") == self.player_id),
                    None)

    async def act(self, game_id: str, action: Any, expected_seq: int | None,
                  seat: int | None = None) -> str:
        """Take an action, signed with this session's key for ``seat`` (the game's seat map
        when not given)."""
        cmd_id = "c" + secrets.token_hex(8)
        frame: dict[str, Any] = {
            "type": "act",
            "cmd_id": cmd_id,
            "game_id": game_id,
            "expected_seq": expected_seq,
            "action": action,
        }
        if seat is None:
            seat = await self._seat_of(game_id)
        if seat is not None:  # (no seat: refused as seat/not_seated)
            await self.register_session_key()
            frame.update(self.session_key.sign_act(game_id, seat, cmd_id, action, expected_seq))
        reply = await self._command(frame)
        if reply["type"] == "rejected":
            raise ApiError(reply["code"], reply.get("message", ""))
        return cmd_id

    async def commit(
        self,
        game: GameSession,
        round_id: str,
        slot: str,
        choice: Any,
        public: dict[str, Any] | None = None,
    ) -> Receipt:
        """Commit a sealed choice; the opening (choice and nonce) leaves this process only
        sealed to the escrow's key from the round's ``round_opened`` entry."""
        if game.seat is None:
            raise ApiError("seat/not_seated", "spectators cannot commit")
        escrow_key = await escrow_key_of(game, round_id)
        nonce = new_nonce()
        c = commitment(game.game_id, round_id, slot, game.seat, choice, nonce)
        sealed = seal_opening(escrow_key, game.game_id, round_id, slot, game.seat, choice, nonce)
        receipt = Receipt(round_id=round_id, slot=slot, choice=choice, nonce=nonce, commitment=c,
                          escrow_key=escrow_key)
        key = f"{round_id}/{slot}"
        game.receipts[key] = receipt
        cmd_id = "k" + secrets.token_hex(8)
        try:
            await self.register_session_key()
            reply, pending = await self._request(
                {
                    "type": "commit",
                    "v": SEALED_COMMIT_VERSION,
                    "cmd_id": cmd_id,
                    "game_id": game.game_id,
                    "round_id": round_id,
                    "slot": slot,
                    "commitment": c,
                    "sealed": sealed,
                    "public": public,
                    **self.session_key.sign_commit(game.game_id, game.seat, cmd_id, round_id,
                                                   slot, c, sealed, public),
                }
            )
        except BaseException:
            self._forget(game, key, receipt)  # no answer: the slot may be committed again
            raise
        if reply["type"] == "rejected":
            if (
                pending.resent
                and game.commitments_seen.get(key) == c
                and reply["code"] in ("escrow/already_committed", "escrow/closed")
            ):
                receipt.acknowledged = True  # the first copy was accepted before the drop
                return receipt
            self._forget(game, key, receipt)  # refused: the slot may be committed again
            raise ApiError(reply["code"], reply.get("message", ""))
        return receipt

    @staticmethod
    def _forget(game: GameSession, key: str, receipt: Receipt) -> None:
        """Drop the receipt of a commit that was not acknowledged (a refusal, a transient
        ``message/unavailable``, no answer), so callers that skip slots holding a receipt
        commit that slot again instead of waiting for the round's deadline."""
        if game.receipts.get(key) is receipt and not receipt.acknowledged:
            del game.receipts[key]
