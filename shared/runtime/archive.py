"""The archive of finished games: one small interface (``Archive``) and its embedded default.

A finished game is archived once (services/adjudicator, ``archive_after_s`` after its end,
when the dealer's reveal and the result are in): one document with everything its public
pages need, the same answers as when it was live (docs/operations.md "Archive"):

    {"v": 1, "game_id", "game", "options", "players", "table_id", "meta",
     "record": [{"id", "type", ...}], "log": [...], "result": {...} | null,
     "final_view": <the spectator's last view payload>, "ended_ms", "archived_ms"}

Then the game's live keys (``g:{id}:*``) expire after ``archive_live_ttl_s``, and
GET /api/matches/{id}, /record, /replay and /result (so ``python -m shared.fairness.verify``)
answer from the archive.

The default store (``ValkeyArchive``) keeps each game as one zlib-compressed JSON value under
``arch:{<game_id>}`` in the Valkey the services already use: no other moving part, the same
ACL users, backups and AOF, one key per game (it lives in the game's own cluster slot), every
gateway replica reads it, and a finished game costs its compressed record (~4-8× smaller than
the live keys). It is kept for EMPIRE_ARCHIVE_TTL_S (30 days; 0 keeps it for good), so the
archive's memory is bounded by games per day × their compressed size × the retention, never
by the site's age (docs/operations.md "Archive"). The interface is one key -> one immutable
blob, so an object store (S3 and compatible: ``PUT <prefix>/<game_id>.json.z``, retention by
a lifecycle rule) plugs in behind the same two methods for a longer retention.
"""

from __future__ import annotations

import zlib
from typing import Any, Protocol, cast

from shared.protocol import keys
from shared.runtime.jsonutil import dumpb, loads
from shared.runtime.redis import Client

ARCHIVE_VERSION = 1


def archive_key(game_id: str) -> str:
    return keys.archive(game_id)


class Archive(Protocol):
    """Where finished games live once their live keys expire."""

    async def put(self, game_id: str, doc: dict[str, Any]) -> None:
        """Store the game's archived document (idempotent: the same game, the same doc)."""
        ...

    async def get(self, game_id: str) -> dict[str, Any] | None:
        """The archived document, or None when the game is not archived (yet)."""
        ...


def pack(doc: dict[str, Any]) -> bytes:
    return zlib.compress(dumpb(doc), 6)


def unpack(blob: bytes) -> dict[str, Any]:
    out = loads(zlib.decompress(blob))
    if not isinstance(out, dict):
        raise ValueError("an archived game is a JSON object")
    return out


class ValkeyArchive:
    """``arch:{<game_id>}`` -> zlib(JSON), expiring ``ttl_s`` after the archive (0: never);
    the embedded default."""

    def __init__(self, redis: Client, ttl_s: float = 0.0) -> None:
        self.redis = redis
        self.ttl_ms = int(ttl_s * 1000)

    async def put(self, game_id: str, doc: dict[str, Any]) -> None:
        await self.redis.set(archive_key(game_id), pack(doc), px=self.ttl_ms or None)

    async def get(self, game_id: str) -> dict[str, Any] | None:
        raw = cast(bytes | None, await self.redis.get(archive_key(game_id)))
        return None if raw is None else unpack(raw)

    async def exists(self, game_id: str) -> bool:
        return bool(await self.redis.exists(archive_key(game_id)))


class MemoryArchive:
    """In memory, for tests of code that takes an ``Archive``."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}

    async def put(self, game_id: str, doc: dict[str, Any]) -> None:
        self.blobs[game_id] = pack(doc)

    async def get(self, game_id: str) -> dict[str, Any] | None:
        blob = self.blobs.get(game_id)
        return None if blob is None else unpack(blob)
