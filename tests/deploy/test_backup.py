"""Backups for real: deploy/backup/valkey-backup.sh (the CronJob's and the compose profile's
command) takes an RDB as the backup ACL user, which is enough and can read no key, and keeps
the newest BACKUP_KEEP; and the restore drill of docs/operations.md ("Restore from an RDB
backup"): a game played partway on the dev overlay's Valkey and services, a backup taken with
the CronJob's container as written, a fresh Valkey started from it (dump.rdb in an empty data
dir, appendonly no, CONFIG SET appendonly yes, restart as usual), the services started on it,
the game finished and verified."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from services.supervisor import SERVICES, Supervisor
from shared.fairness.verify import verify
from shared.runtime.valkey import EmbeddedValkey, free_port
from tests.deploy.kustomize import pod_spec, render
from tests.deploy.stack import (
    DEPLOY,
    K8S,
    OUT,
    Stack,
    base_env,
    by_kind,
    container_env,
    dev_secrets,
    k8s_valkey,
    map_paths,
    mapped,
    materialize_volumes,
    redis_cli_tls,
    secret_data,
    valkey_cli,
    wait_for,
)

pytestmark = [pytest.mark.deploy, pytest.mark.full]

BACKUP = DEPLOY / "backup" / "valkey-backup.sh"


def run_backup(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(BACKUP)], env={**base_env(), **env}, capture_output=True, text=True, timeout=120
    )


def dumps(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.suffix == ".rdb")


def test_the_backup_user_takes_rdb_snapshots_and_old_ones_are_pruned(tmp_path: Path) -> None:
    server = EmbeddedValkey(shipped=True, aof=True)
    server.start()
    try:
        with redis.Redis.from_url(server.url) as admin:
            admin.set("g:{g-1}:state", "x")
            admin.acl_log_reset()
        env = {
            "VALKEY_PASSWORD_BACKUP": server.passwords["backup"],
            "VALKEY_HOST": "127.0.0.1",
            "VALKEY_PORT": str(server.port),
            "VALKEY_CLI": valkey_cli(),
            "BACKUP_DIR": str(tmp_path / "backups"),
            "BACKUP_KEEP": "2",
        }
        for _ in range(3):
            run = run_backup(env)
            assert run.returncode == 0, run.stderr
            time.sleep(1.1)  # one snapshot name per second
        kept = dumps(tmp_path / "backups")
        assert len(kept) == 2, kept
        for dump in kept:
            data = dump.read_bytes()
            assert data.startswith(b"REDIS") and b"g:{g-1}:state" in data
            digest, name = (dump.parent / f"{dump.name}.sha256").read_text().split()
            assert name == dump.name and digest == hashlib.sha256(data).hexdigest()
        assert not [p for p in (tmp_path / "backups").iterdir() if p.name.startswith(".")]
        assert "removed" in run.stdout
        with redis.Redis.from_url(server.url) as admin:
            # the backup user's rules sufficed: nothing was denied
            assert admin.acl_log() == []
        # and it can read no key
        with (
            redis.Redis(
                port=server.port, username="backup", password=server.passwords["backup"]
            ) as backup,
            pytest.raises(redis.exceptions.NoPermissionError),
        ):
            backup.get("g:{g-1}:state")
        # a wrong password fails and leaves nothing behind
        bad = run_backup({**env, "VALKEY_PASSWORD_BACKUP": os.urandom(32).hex()})
        assert bad.returncode != 0
        assert len(dumps(tmp_path / "backups")) == 2
        assert not [p for p in (tmp_path / "backups").iterdir() if p.name.startswith(".")]
    finally:
        server.stop()


# --- the restore drill --------------------------------------------------------------------


def admin_client(stack: Stack, passwords: dict[str, str]) -> redis.Redis:
    assert stack.valkey is not None
    return redis.Redis(
        port=stack.valkey.client_port,
        username="admin",
        password=passwords["admin"],
        ssl=True,
        ssl_ca_certs=str(stack.valkey.mounts["/tls"] / "ca.crt"),
        decode_responses=True,
    )


def start_services(
    stack: Stack, secrets: dict[str, str], passwords: dict[str, str], name: str
) -> Supervisor:
    """Every service with the URL, CA bundle and token key the dev overlay gives it."""
    assert stack.valkey is not None
    where = f"127.0.0.1:{stack.valkey.client_port}"
    urls = {
        svc: secrets[f"redis-url-{svc}"].replace("empire-valkey:6379", where) for svc in SERVICES
    }
    sup = Supervisor(
        redis_url=f"rediss://admin:{passwords['admin']}@{where}/0",
        service_urls=urls,
        port=free_port(),
        token_private_key=secrets["token-private-key"],
        log_dir=OUT / f"deploy-restore-{name}",
        env_extra={
            "EMPIRE_REDIS_CA_FILE": str(stack.valkey.mounts["/tls"] / "ca.crt"),
            "EMPIRE_REDIS_PLAINTEXT": "0",
        },
    )
    sup.start(wait=180)
    return sup


async def play_until(client: Client, game_id: str, done: Callable[[dict[str, Any]], bool]) -> None:
    """Play this client's seat with the heuristic bot until ``done(record)``."""
    stop = asyncio.Event()
    task = asyncio.create_task(play_seat(client, game_id, stop=stop))
    try:
        deadline = time.monotonic() + 180
        while not done(await client.record(game_id)):
            assert time.monotonic() < deadline, "the game did not get there"
            assert not task.done(), "the game ended before the backup"
            await asyncio.sleep(0.2)
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 30)


def wait_rewritten(admin: redis.Redis) -> None:
    def done() -> bool:
        info = admin.info("persistence")
        return bool(
            info["aof_enabled"] == 1
            and info["aof_rewrite_in_progress"] == 0
            and info["aof_rewrite_scheduled"] == 0
            and info["aof_last_bgrewrite_status"] == "ok"
        )

    wait_for(done, 60, "the AOF rewrite after CONFIG SET appendonly yes")


async def test_restore_drill_backup_restore_and_finish_a_game() -> None:
    docs = render(K8S / "overlays" / "dev") + dev_secrets()
    secrets = secret_data(by_kind(docs, "Secret")["empire-secrets"])
    passwords = secret_data(by_kind(docs, "Secret")["empire-valkey-passwords"])
    stack = Stack("restore-drill")
    claims: dict[str, Path] = {}
    sup: Supervisor | None = None
    try:
        # 1. the system as the dev overlay runs it; a game played partway
        k8s_valkey(docs, stack, claims)
        sup = start_services(stack, secrets, passwords, "before")
        async with Client(sup.url) as c:
            await c.sign_in("drill")
            t = await c.create_table("duel", seats=2, options={"rounds": 8})
            await c.add_bot(t["table_id"])
            gid = await c.start(t["table_id"])
            token, key = c.token, c.session_key

            def partway(rec: dict[str, Any]) -> bool:
                return bool(sum(e.get("type") == "round_revealed" for e in rec["record"]) >= 2)

            await play_until(c, gid, partway)
            before = (await c.record(gid))["record"]

        # 2. the backup, with the CronJob's container as written (its script, env, volumes)
        cron = by_kind(docs, "CronJob")["empire-valkey-backup"]
        spec = pod_spec(cron)
        assert spec is not None
        (job,) = spec["containers"]
        mounts = materialize_volumes(spec, job, docs, stack.tmp / "backup-job", claims)
        env = map_paths(container_env(job, docs), mounts)
        assert stack.valkey is not None
        env |= {
            "VALKEY_HOST": "127.0.0.1",  # empire-valkey, the headless Service
            "VALKEY_PORT": str(stack.valkey.client_port),
            "VALKEY_CLI": redis_cli_tls(),  # TLS-capable, as the valkey/valkey image's is
        }
        assert job["command"][0] == "sh"
        run = subprocess.run(
            ["sh", str(mapped(job["command"][1], mounts))],
            env={**base_env(), **env},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        (snapshot,) = dumps(claims["empire-valkey-backups"])

        # the old system goes away entirely
        sup.stop()
        sup = None
        stack.valkey.stop()

        # 3. restore (docs/operations.md): dump.rdb in an empty data volume, one start with
        # appendonly no, CONFIG SET appendonly yes (writes the AOF), then the usual start
        restored = stack.tmp / "restored-data"
        restored.mkdir()
        shutil.copy(snapshot, restored / "dump.rdb")
        restore_claims = {**claims, "data": restored}
        k8s_valkey(docs, stack, restore_claims, extra=["--appendonly", "no"])
        with admin_client(stack, passwords) as admin:
            assert admin.dbsize() > 0
            admin.config_set("appendonly", "yes")
            wait_rewritten(admin)
            # keys with a TTL (sessions, rate limits, challenges) may expire across the
            # restart: those without one must all be there (a bare DBSIZE once went 38 -> 37)
            keys = set(admin.scan_iter(count=1000))
            persistent = {k for k in keys if admin.pttl(k) == -1}
        stack.valkey.stop()
        (restored / "dump.rdb").unlink()  # the AOF alone must carry the data from now on
        k8s_valkey(docs, stack, restore_claims)
        with admin_client(stack, passwords) as admin:
            assert admin.config_get("appendonly") == {"appendonly": "yes"}
            after = set(admin.scan_iter(count=1000))
            assert persistent <= after, sorted(persistent - after)[:5]
            assert after <= keys, sorted(after - keys)[:5]

        # 4. the services on the restored Valkey finish the game; it verifies
        sup = start_services(stack, secrets, passwords, "after")
        async with Client(sup.url, token=token) as c:
            # the session's bound key signs on: a new key would need the old one's signature
            c.session_key = key
            session = await asyncio.wait_for(play_seat(c, gid), 300)
            assert session.ended
            for _ in range(200):  # the dealer's reveal and the scoring follow the end
                rec = await c.record(gid)
                if any(e.get("type") == "seed_revealed" for e in rec["record"]):
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("no seed reveal after the end")
        # everything before the backup is there, in order, and the whole game verifies
        assert rec["record"][: len(before)] == before
        assert sum(e.get("type") == "round_revealed" for e in rec["record"]) > 2
        problems, counts = verify(rec)
        assert problems == []
        assert counts["draws"] > 0 and counts["commitments"] > 0
    finally:
        if sup is not None:
            sup.stop()
        stack.stop()
