"""The backup profile's RDB restored into a fresh Valkey volume by docs/operations.md's compose
procedure ("Restore from an RDB backup"), and the game it caught mid-way resumed from it and
played to the end. Runs after test_stack.py on the same stack."""

from __future__ import annotations

import asyncio
import secrets
import time

import pytest

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from tests.deploy.real.compose import ComposeStack
from tests.deploy.real.games import Game, applied_twice, entries_by_id, start_game
from tests.deploy.real.test_stack import LONG, MID, note

pytestmark = pytest.mark.containers


def admin_cli(stack: ComposeStack, container: str, *command: str) -> str:
    return stack.engine.docker(
        "exec", container, "sh", "-c",
        'REDISCLI_AUTH="$VALKEY_PASSWORD_ADMIN" valkey-cli --tls --cacert /tls/ca.crt '
        "--user admin --no-auth-warning " + " ".join(command))


def restore(stack: ComposeStack) -> float:
    """docs/operations.md's compose steps, with the data volume removed first (fresh)."""
    t = time.monotonic()
    project = stack.PROJECT
    stack.compose("stop", timeout=300)
    stack.compose("rm", "-f", "valkey")
    stack.engine.docker("volume", "rm", f"{project}_valkey-data")
    stack.compose("run", "--rm", "--no-deps", "-v", f"{project}_valkey-backups:/backups:ro",
                  "--entrypoint", "sh", "valkey", "-c",
                  "rm -rf /data/appendonlydir /data/dump.rdb && "
                  "cp \"$(ls /backups/dump-*.rdb | tail -1)\" /data/dump.rdb")
    stack.compose("run", "-d", "--name", "valkey-restore", "--no-deps", "valkey",
                  "/etc/valkey/valkey.conf", "--appendonly", "no")
    try:
        deadline = time.monotonic() + 120
        while stack.health("valkey-restore") != "healthy":
            assert time.monotonic() < deadline, stack.engine.docker("logs", "valkey-restore")
            time.sleep(1)
        keys = int(admin_cli(stack, "valkey-restore", "DBSIZE").strip())
        assert keys > 0, "the restored snapshot is empty"
        assert admin_cli(stack, "valkey-restore", "CONFIG SET appendonly yes").strip() == "OK"
        while True:
            info = admin_cli(stack, "valkey-restore", "INFO persistence")
            if all(f in info for f in ("aof_enabled:1", "aof_rewrite_in_progress:0",
                                       "aof_rewrite_scheduled:0",
                                       "aof_last_bgrewrite_status:ok")):
                break
            assert time.monotonic() < deadline, info
            time.sleep(0.5)
    finally:
        stack.engine.docker("rm", "-f", "valkey-restore", check=False)
    stack.up()
    return time.monotonic() - t


async def test_a_backup_restored_into_a_fresh_volume_resumes_its_game(
        stack: ComposeStack) -> None:
    name, password = f"deploy-restore-{secrets.token_hex(4)}", secrets.token_urlsafe(18)
    async with Client(stack.url) as c:
        me = await c.sign_in(name)
        await c.set_password(password)
        game = await start_game(c, *LONG)
        await game.reach(MID)
        before = await c.record(game.game_id)
        out = await asyncio.to_thread(stack.compose, "--profile", "backup", "run", "--rm",
                                      "backup")
        assert "valkey-backup: wrote /data/dump-" in out, out
        game.task.cancel()  # this client's seat resumes after the restore
        await asyncio.gather(game.task, return_exceptions=True)
    took = await asyncio.to_thread(restore, stack)
    async with Client(stack.url) as c:
        again = await c.sign_in_password(name, password)
        assert again["player_id"] == me["player_id"]
        resumed = Game(c, game.game_id, asyncio.create_task(play_seat(c, game.game_id)))
        await resumed.finish()
    assert resumed.problems == [], resumed.problems
    assert applied_twice(resumed.record) == []
    after = entries_by_id(resumed.record)
    assert all(after.get(i) == e for i, e in entries_by_id(before).items())
    note("backup restored", {"restore_to_healthy_s": round(took, 1),
                             "entries_before_backup": len(before["record"]),
                             "entries_at_end": len(resumed.record["record"])})
