"""The notifier's shell: reads TurnsChanged (shared/protocol/turns.py) from the TURNS stream,
keeps each turn-based game's current waits, arms the due-queue (shared/runtime/timers.py) and
sends what falls due: the turn mail, the reminder, the verification mail, and the webhook
calls. It only reads the stream the adjudicator appends to, so a move is never slowed by it.

Durable and idempotent: a TurnsChanged is applied only if it is not older than the game's
record (its seq); the due-queue lives in Valkey, so a restarted notifier sends what was due
while it was down; a message is sent only after its sent-marker is claimed in one Lua step
(store.py CLAIM_LUA), and once sent it is marked ``sent``: a redelivered entry, a re-armed
timer or a second replica finds the marker and sends nothing. The one window left is a crash
between the mail server's acceptance and the ``sent`` mark: the message goes again on the
next try, with the same Message-ID (webhooks: the same X-Empire-Delivery id), which mail
clients and receivers use to drop the copy.

A sealed round waits for the seats that have not committed: the escrow's SeatCommitted of the
round the record holds takes that seat's wait off it and drops its turn message and reminder
(nothing is sent for it); the round's committed seats are kept, so a TurnsChanged of that
round read after it does not arm them again.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import structlog
from pydantic import ValidationError

from services.notifier import core, mail
from services.notifier.ports import HookSender, Mailer, NotifyStorePort
from shared.protocol.turns import SeatCommitted, TurnsChanged, parse_entry
from shared.runtime import metrics
from shared.runtime.settings import Settings

log = structlog.get_logger("notifier")
SEND_LEASE_MS = 60_000  # a claimed send is this sender's for this long (then retried)


def now_ms() -> int:
    return int(time.time() * 1000)


def title_of(game: str) -> str:
    from shared.rules import registry

    try:
        return str(registry.get(game).title)
    except Exception:
        return game


def _waits(record: str | None) -> tuple[str, list[core.Wait]]:
    if not record:
        return "", []
    data = orjson.loads(record)
    return str(data.get("game", "")), [core.Wait(w["player"], w["seat"], w["since_ms"],
                                                 w.get("deadline_ms"))
                                       for w in data.get("waits", [])]


class Notifier:
    def __init__(self, settings: Settings, store: NotifyStorePort, mailer: Mailer,
                 hooks: HookSender, clock: Callable[[], int] = now_ms) -> None:
        self.settings = settings
        self.store = store
        self.mailer = mailer
        self.hooks = hooks
        self.clock = clock

    # -- the stream: TurnsChanged -----------------------------------------------------------

    async def dispatch(self, body: dict[str, Any]) -> None:
        try:
            msg = parse_entry(body)
        except ValidationError as exc:  # where, never what: a value could be anything
            log.error("malformed_internal_message",
                      fields=[".".join(map(str, e["loc"])) for e in exc.errors()][:10])
            return
        if isinstance(msg, SeatCommitted):
            await self.on_seat_committed(msg)
            return
        await self.on_turns(msg)

    async def on_turns(self, msg: TurnsChanged) -> None:
        """Only turn-based games are followed (a real-time game's players have its page
        open). Older entries than the stored record change nothing."""
        if msg.pace != "turn-based":
            return
        new = core.waits_of(msg)
        if msg.round_id is not None:  # seats of its sealed round that committed already
            new = core.without_seats(new, await self.store.committed(msg.game_id, msg.round_id))
        record = orjson.dumps({"seq": msg.seq, "game": msg.game, "round_id": msg.round_id,
                               "waits": [
            {"player": w.player, "seat": w.seat, "since_ms": w.since_ms,
             "deadline_ms": w.deadline_ms} for w in new]}).decode()
        written, prev = await self.store.swap_waits(msg.game_id, msg.seq, record, msg.ended)
        if not written:
            return
        _, old = _waits(prev)
        channels = {w.player: core.channels_of(await self.store.prefs(w.player),
                                               self.mailer.enabled) for w in new}
        plan = core.plan(msg.game_id, old, new, channels,
                         int(self.settings.turn_mail_delay_s * 1000))
        await self.store.arm(plan.arm, keep=True)
        if plan.drop:
            await self.store.drop(plan.drop)

    async def on_seat_committed(self, msg: SeatCommitted) -> None:
        """The seat committed in its sealed round: remembered for the round; when the game's
        record is of that round, the seat's wait leaves it and its turn message and reminder
        are dropped. Another round's entry (stale) changes nothing. Safe to run twice."""
        first = await self.store.waits(msg.game_id)
        if not first:
            return  # not a followed game (real-time, or unknown): nothing to keep
        deadlines = [w.deadline_ms for w in _waits(first)[1] if w.deadline_ms is not None]
        await self.store.mark_committed(msg.game_id, msg.round_id, msg.seat,
                                        core.committed_kept_ms(deadlines, self.clock()))
        for _ in range(8):  # another replica may write the record in between: read it again
            prev = await self.store.waits(msg.game_id)
            if not prev or orjson.loads(prev).get("round_id") != msg.round_id:
                return
            data = orjson.loads(prev)
            _, old = _waits(prev)
            new = core.without_seats(old, {msg.seat})
            if len(new) == len(old):
                return
            data["waits"] = [w for w in data.get("waits", []) if w.get("seat") != msg.seat]
            if await self.store.replace_waits(msg.game_id, prev, orjson.dumps(data).decode()):
                drop = core.plan(msg.game_id, old, new, {}, 0).drop
                await self.store.drop(drop)
                return
        log.warning("seat_committed_contended", game_id=msg.game_id)

    # -- the due-queue ----------------------------------------------------------------------

    async def run_due(self) -> None:
        """Send what falls due, forever (every replica polls; a claim is one replica's)."""
        await self.store.run_due(self.fire, self.settings.notify_poll_ms / 1000, self.clock)

    async def poll_due(self) -> int:
        """One poll: what is due now is sent; returns how many were looked at."""
        return await self.store.poll_due(self.fire, self.clock())

    async def fire(self, member: str) -> bool:
        """Send one due message; True: done with it, False: it was re-armed (a retry) or
        another sender holds it."""
        job = core.parse_member(member)
        if job is None:
            log.error("bad_due_member", member=member[:200])
            return True
        if job.kind == "verify":
            return await self._verify_mail(job)
        game, waits = _waits(await self.store.waits(job.key))
        wait = next((w for w in waits if w.player == job.player
                     and str(w.since_ms) == job.since), None)
        if wait is None:  # the wait is over (the player moved, the game ended)
            return True
        prefs = await self.store.prefs(job.player)
        if job.channel not in core.channels_of(prefs, self.mailer.enabled):
            return True
        turn = core.Turn(job.kind, job.key, title_of(game), wait.seat, prefs.get("name", ""),
                         wait.since_ms, wait.deadline_ms,
                         core.game_link(self.settings.page_address, job.key))
        if job.channel == "mail":
            return await self._deliver(job, lambda: self._turn_mail(job, turn, prefs),
                                       cap=self.settings.notify_daily_cap)
        return await self._deliver(job, lambda: self._hook(job, turn, prefs), cap=0)

    async def _deliver(self, job: core.Job, send: Callable[[], Awaitable[None]],
                       cap: int) -> bool:
        now = self.clock()
        marker = job.marker()
        tries = await self.store.claim(job.player, marker, core.day_of(now), cap, now,
                                       SEND_LEASE_MS)
        fields = {"player": job.player, "game_id": job.key if job.kind != "verify" else None,
                  "kind": job.kind, "channel": job.channel}
        if tries == 0:
            return True
        if tries == -1:
            log.warning("notify_capped", **fields)
            metrics.NOTIFY.labels(job.kind, job.channel, "capped").inc()
            return True
        if tries == -2:
            return False
        try:
            await send()
        except Exception as exc:
            if isinstance(exc, core.NotifyError) and exc.code in core.FINAL:
                # a webhook URL the policy refuses now: no retry
                await self.store.settle(job.player, marker, "failed")
                log.warning("notify_refused", code=exc.code, **fields)
                metrics.NOTIFY.labels(job.kind, job.channel, "failed").inc()
                return True
            if tries >= self.settings.notify_tries:
                await self.store.settle(job.player, marker, "failed")
                log.warning("notify_failed", tries=tries, error=type(exc).__name__, **fields)
                metrics.NOTIFY.labels(job.kind, job.channel, "failed").inc()
                return True
            retry = core.retry_after_s(tries, self.settings.notify_retry_s)
            await self.store.settle(job.player, marker, f"sending:{tries}:0")
            await self.store.arm({job.member(): now + int(retry * 1000)}, keep=False)
            log.info("notify_retry", tries=tries, retry_s=retry, error=type(exc).__name__,
                     **fields)
            metrics.NOTIFY.labels(job.kind, job.channel, "retry").inc()
            return False
        await self.store.settle(job.player, marker, "sent")
        log.info("notify_sent", tries=tries, **fields)
        metrics.NOTIFY.labels(job.kind, job.channel, "sent").inc()
        return True

    def _message_id(self, job: core.Job) -> str:
        digest = hashlib.sha256(f"{job.player}:{job.marker()}".encode()).hexdigest()[:32]
        domain = self.mailer.sender.rpartition("@")[2] or "empire-hall"
        return f"<{digest}@{domain}>"

    async def _turn_mail(self, job: core.Job, turn: core.Turn, prefs: dict[str, str]) -> None:
        key = await self.store.signing_key()
        unsub = (f"{self.settings.page_address}/api/notifications/unsubscribe"
                 f"?token={core.unsubscribe_token(key, job.player)}")
        body = core.turn_text(turn) + f"\n\nNo more turn mails: {unsub}\n"
        msg = mail.build(self.mailer.sender, prefs["email"], core.turn_subject(turn), body,
                         self._message_id(job), {
                             "List-Unsubscribe": f"<{unsub}>",
                             "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"})
        await self.mailer.send(msg)

    async def _hook(self, job: core.Job, turn: core.Turn, prefs: dict[str, str]) -> None:
        body = orjson.dumps(core.hook_payload(turn))
        stamp = self.clock()
        await self.hooks.post(prefs["hook_url"], body, {
            "X-Empire-Timestamp": str(stamp),
            "X-Empire-Signature": core.hook_signature(prefs.get("hook_secret", ""), stamp, body),
            "X-Empire-Delivery": hashlib.sha256(
                f"{job.player}:{job.marker()}".encode()).hexdigest()[:32]})

    async def _verify_mail(self, job: core.Job) -> bool:
        """The verification mail of the player's pending link (prefs ``verify_token``); a job
        whose link was replaced by a newer one, used or expired sends nothing."""
        prefs = await self.store.prefs(job.player)
        token = prefs.get("verify_token", "")
        if not token or core.token_ref(token) != job.since or not self.mailer.enabled:
            return True
        rec = await self.store.verify_record(token)
        if rec is None or prefs.get("email") != rec["email"]:
            return True
        link = (f"{self.settings.page_address}/api/me/notifications/verify"
                f"?token={token}")
        msg = mail.build(self.mailer.sender, rec["email"], "Confirm your address for Empire "
                         "Hall", core.verify_text(link), self._message_id(job))
        return await self._deliver(job, lambda: self.mailer.send(msg),
                                   cap=self.settings.notify_daily_cap)
