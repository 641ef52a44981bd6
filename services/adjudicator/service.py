"""The adjudicator's shell: decode -> load -> core -> persist atomically -> publish."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from pydantic import ValidationError

from services.adjudicator import core, handover, turns
from services.adjudicator.core import Effects, GameDoc
from services.adjudicator.ports import AdjudicatorStorePort
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.base import Wire
from shared.rules.registry import UnknownGame
from shared.runtime import metrics, session_keys
from shared.runtime.archive import ARCHIVE_VERSION, Archive
from shared.runtime.ports import KeyRegistry, Publisher
from shared.runtime.settings import Settings
from shared.runtime.tail import Tail, applied
from shared.runtime.tail import make as tail_of

log = structlog.get_logger("adjudicator")
MAX_CAS_RETRIES = 50
MAX_REPLY_MESSAGE = 300  # characters of a refusal's message (the fan-out's entry budget)
ARCHIVE_WAIT_MS = 600_000  # the archive waits this long at most for the reveal and result


def now_ms() -> int:
    return int(time.time() * 1000)


class Adjudicator:
    def __init__(self, settings: Settings, store: AdjudicatorStorePort, broker: Publisher,
                 archive: Archive, registered: KeyRegistry) -> None:
        self.settings = settings
        self.store = store
        self.broker = broker
        self.archive = archive
        self.registered = registered  # the lobby's session keys (shared/runtime/session_keys)

    # -- publishing ---------------------------------------------------------------------

    def _stream(self, base: str, game_id: str) -> dict[str, Any]:
        """The stream of ``base`` that carries the game's messages, and its cap."""
        stream = (streams.sharded(base, game_id, self.settings.partitions)
                  if base in streams.SHARDED else base)
        return {"stream": stream, "maxlen": streams.maxlen(stream)}

    async def publish(self, base: str, msg: Wire, game_id: str) -> None:
        await self.broker.publish(msg.model_dump(mode="json"), **self._stream(base, game_id))

    async def notify(self, game_id: str) -> None:
        await self.broker.publish(im.Notify(game_id=game_id).model_dump(mode="json"),
                                  **self._fan_out(game_id))

    async def reply(self, r: im.Reply) -> None:
        if len(r.message) > MAX_REPLY_MESSAGE:  # a rules message may quote the action
            r = r.model_copy(update={"message": r.message[:MAX_REPLY_MESSAGE]})
        await self.broker.publish(r.model_dump(mode="json"), **self._fan_out(r.game_id))

    def _fan_out(self, game_id: str) -> dict[str, Any]:
        """The game's fan-out shard (read only by the gateways watching it) and its cap."""
        n = self.settings.gw_shards
        return {"stream": streams.updates_for(game_id, n), "maxlen": streams.updates_maxlen(n)}

    async def _after_commit(self, doc: GameDoc, eff: Effects) -> None:
        # issued together: the outbox sends the publishes (in this order) in one pipeline
        sends: list[Awaitable[None]] = [self.publish(base, msg, doc.game_id)
                                        for base, msg in eff.outbound]
        if eff.timer_ms is not None:
            sends.append(self.store.arm_timer(doc.game_id, doc.seq, eff.timer_ms))
        if doc.pace == "turn-based" and doc.stage != "ended" and doc.expires_ms is not None:
            sends.append(self.store.arm_timer(doc.game_id, "expire", doc.expires_ms))
        if doc.stage == "ended":  # archived a little later; the lifetime timer is moot
            sends.append(self.store.arm_timer(
                doc.game_id, "archive",
                (doc.ended_ms or now_ms()) + int(self.settings.archive_after_s * 1000)))
            sends.append(self.store.drop_timer(f"{doc.game_id}|expire"))
        sends.append(self.notify(doc.game_id))
        await asyncio.gather(*sends)

    def _tail(self, doc: GameDoc, eff: Effects, ack: bool) -> Tail | None:
        """``_after_commit``'s publishes as the commit's tail (shared/runtime/tail.py), when
        they are all it would do (no timer to arm) and the store can apply it."""
        if eff.timer_ms is not None or doc.stage == "ended" or (
                doc.pace == "turn-based" and doc.expires_ms is not None):
            return None
        entries = [(msg.model_dump(mode="json"), self._stream(base, doc.game_id))
                   for base, msg in eff.outbound]
        entries.append((im.Notify(game_id=doc.game_id).model_dump(mode="json"),
                        self._fan_out(doc.game_id)))
        return tail_of(self.broker, self.store.inline, entries, ack)

    async def _redrive(self, doc: GameDoc) -> None:
        for base, msg in core.redrive(doc, now_ms()).outbound:
            await self.publish(base, msg, doc.game_id)
        # where the commit could not append it in its own step (a cluster), again
        await self.store.resend_turns(turns.turns_of(doc, now_ms()))
        if doc.stage == "ended":  # the archive's timer too (a crash after the end's commit)
            await self.store.arm_timer(
                doc.game_id, "archive",
                (doc.ended_ms or now_ms()) + int(self.settings.archive_after_s * 1000),
                keep=True)

    # -- the CAS loop -------------------------------------------------------------------

    async def _process(self, game_id: str, decide: Callable[[GameDoc], Effects],
                       cmd_id: str = "", redrive: bool = False,
                       seat: int | None = None, ack: bool = False) -> Effects | None:
        """Load, decide, commit with compare-and-set; retry on a concurrent change.
        ``redrive``: an input that changes nothing may be a redelivery after a crash between
        the commit and the publishing: send what the document implies again. ``ack``: the
        commit is the consumed entry's last effect, acknowledged in its step with the
        publishes where the store can (``_tail``)."""
        for attempt in range(MAX_CAS_RETRIES):
            doc = self.store.cached(game_id) if attempt == 0 else None
            if doc is not None:
                eff = decide(doc)
                if not eff.changed:  # decided on the cache: "nothing to do" needs the store
                    doc = None
            if doc is None:
                doc = await self.store.load(game_id)
                if doc is None:
                    return None
                eff = decide(doc)
            if not eff.changed:
                if redrive:
                    await self._redrive(doc)
                return eff
            assert eff.doc is not None
            views = core.render_views(eff.doc, eff.events)
            # who it waits for, read from the views' public node (no second decode)
            eff.doc, eff.turns = turns.track(doc, eff.doc, now_ms(), views[None]["node"])
            if cmd_id:
                for view_seat, payload in views.items():
                    if view_seat is not None and eff.log \
                            and eff.log[-1].get("cmd_id") == cmd_id \
                            and eff.log[-1].get("seat") == view_seat:
                        payload["cmd_ids"] = [cmd_id]
            tail = self._tail(eff.doc, eff, ack)
            res = await self.store.commit(doc.seq, eff.doc, eff.log, eff.records, views,
                                          cmd_id=cmd_id, seat=seat, turns=eff.turns,
                                          tail=tail)
            if res.ok:
                for entry in eff.log:
                    metrics.ACTIONS_APPLIED.labels(doc.game, entry.get("by", "?")).inc()
                if tail is None:
                    await self._after_commit(eff.doc, eff)
                else:
                    applied(tail)
                return eff
            if res.duplicate:
                return Effects(reply=im.Reply(game_id=game_id, player_id="", cmd_id=cmd_id,
                                              ok=False, code="command/duplicate",
                                              message="this command id was already applied"))
            await asyncio.sleep(0)
        raise RuntimeError(f"game {game_id}: too many concurrent updates")

    # -- handlers -----------------------------------------------------------------------

    async def on_create(self, msg: im.CreateGame) -> None:
        existing = await self.store.load(msg.game_id)
        if existing is not None:
            await self._redrive(existing)  # a redelivered create: resend what is pending
            if existing.expires_ms is not None and existing.stage != "ended":
                await self.store.arm_timer(msg.game_id, "expire", existing.expires_ms)
            return
        t = now_ms()
        try:
            eff = core.create(msg, expires_ms=t + int(self.settings.game_lifetime_s * 1000),
                              turn_based_life=self._turn_based_life(msg, t))
        except (UnknownGame, ValueError) as exc:
            log.error("create_failed", game_id=msg.game_id, error=str(exc))
            return
        assert eff.doc is not None
        views = core.render_views(eff.doc, [])
        eff.doc, eff.turns = turns.track(None, eff.doc, t, views[None]["node"])
        assert eff.doc.expires_ms is not None
        res = await self.store.commit(-1, eff.doc, eff.log, eff.records, views,
                                      turns=eff.turns)
        if res.ok:
            # the lifetime's timer first: a crash before it is re-armed by the redelivery
            await self.store.arm_timer(msg.game_id, "expire", eff.doc.expires_ms)
            await self._after_commit(eff.doc, eff)
        else:
            doc = await self.store.load(msg.game_id)
            if doc is not None:
                await self._redrive(doc)
        log.info("game_created", game_id=msg.game_id, game=msg.game, seats=len(msg.players))

    def _turn_based_life(self, msg: im.CreateGame, now: int) -> tuple[int, int]:
        """A turn-based game's (latest end, how long after its last change it ends): it
        lives while its clocks move it, EMPIRE_GAME_LIFETIME_S past its longest clock."""
        s = self.settings
        longest = turns.longest_clock_ms(msg.turn_timeout_ms, msg.round_timeout_ms,
                                         msg.time_bank_ms, len(msg.players))
        return (now + int(s.turn_based_lifetime_max_s * 1000),
                longest + int(s.game_lifetime_s * 1000))

    async def signed_by_seat(self, msg: im.SubmitAction) -> bool:
        """Whether the act carries a signature, over exactly this game, seat, command and
        body, by a session key the lobby registered for the player the game seats at
        ``msg.seat`` (never ``msg.player_id``: the gateway stamps that). Unsigned acts pass
        only with EMPIRE_REQUIRE_SIGNATURES=0."""
        player = ""
        if msg.sig is not None and msg.key is not None:  # the seat's player, to check against
            doc = self.store.cached(msg.game_id) or await self.store.load(msg.game_id)
            if doc is None:
                return True  # no such game: answered game/not_found, nothing changes
            player = core.player_at(doc, msg.seat)
        return await session_keys.signed_by(player, msg.key, msg.sig,
                                            lambda: core.signed_act(msg), self.registered,
                                            now_ms(), self.settings.require_signatures)

    async def handed_away(self, msg: im.SubmitAction) -> bool:
        """The act names a seat handed to a bot, from another player than the bot (the player
        who resigned): refused as such rather than as a bad signature."""
        doc = self.store.cached(msg.game_id) or await self.store.load(msg.game_id)
        return doc is not None and msg.seat in core.handed_seats(doc) \
            and msg.player_id != core.player_at(doc, msg.seat)

    async def on_action(self, msg: im.SubmitAction) -> None:
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id, seat=msg.seat,
                                                     cmd_id=msg.cmd_id):
            if await self.handed_away(msg):
                await self.reply(im.Reply(
                    game_id=msg.game_id, player_id=msg.player_id, cmd_id=msg.cmd_id, ok=False,
                    code="game/seat_handed_over", message="this seat was handed to a bot: a "
                    "bot plays it for the rest of the game"))
                return
            if not await self.signed_by_seat(msg):
                log.warning("bad_signature", signed=msg.sig is not None)
                metrics.REJECTIONS.labels("auth/bad_signature").inc()
                await self.reply(im.Reply(
                    game_id=msg.game_id, player_id=msg.player_id, cmd_id=msg.cmd_id, ok=False,
                    code="auth/bad_signature", message="this act is not signed by a session "
                    "key registered for the player of this seat"))
                return
            if await self.store.command_known(msg.game_id, msg.seat, msg.cmd_id):
                doc = await self.store.load(msg.game_id)
                if doc is not None:
                    await self._redrive(doc)
                await self.reply(im.Reply(game_id=msg.game_id, player_id=msg.player_id,
                                          cmd_id=msg.cmd_id, ok=False,
                                          code="command/duplicate",
                                          message="this command id was already processed"))
                return
            t = now_ms()
            eff = await self._process(msg.game_id, lambda d: core.on_action(d, msg, t),
                                      cmd_id=msg.cmd_id, seat=msg.seat)
            if eff is None:
                await self.reply(im.Reply(game_id=msg.game_id, player_id=msg.player_id,
                                          cmd_id=msg.cmd_id, ok=False, code="game/not_found",
                                          message="no such game"))
                return
            if eff.reply is not None and not eff.reply.ok:
                r = eff.reply.model_copy(update={"player_id": msg.player_id,
                                                 "cmd_id": msg.cmd_id})
                if r.code != "command/duplicate" and not await self.store.remember_rejection(
                        msg.game_id, msg.seat, msg.cmd_id):
                    r = r.model_copy(update={"code": "command/duplicate",
                                             "message": "this command id was already processed"})
                log.info("rejected", code=r.code)
                metrics.REJECTIONS.labels(r.code or "?").inc()
                await self.reply(r)

    async def on_revealed(self, msg: im.RoundRevealed) -> None:
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id, round_id=msg.round_id):
            t = now_ms()
            await self._process(msg.game_id, lambda d: handover.on_revealed(d, msg, t),
                                redrive=True, ack=True)

    async def on_seed(self, msg: im.SeedCommitted) -> None:
        t = now_ms()
        await self._process(msg.game_id, lambda d: core.on_seed_committed(d, msg, t),
                            redrive=True, ack=True)

    async def on_draw(self, msg: im.DrawMade) -> None:
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id, label=msg.label):
            t = now_ms()
            await self._process(msg.game_id, lambda d: core.on_draw(d, msg, t),
                                redrive=True, ack=True)

    async def on_timeout(self, msg: im.TurnTimeout) -> None:
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id):
            t = now_ms()
            eff = await self._process(msg.game_id, lambda d: handover.on_timeout(d, msg, t))
            if eff is not None and eff.changed:
                log.info("turn_timeout_applied", seq=msg.seq)

    async def dispatch(self, body: dict[str, Any]) -> None:
        try:
            msg = im.ADJUDICATOR_INPUT.validate_python(body)
        except ValidationError as exc:
            log.error("malformed_internal_message", error=str(exc)[:300])
            return
        if isinstance(msg, im.CreateGame):
            await self.on_create(msg)
        elif isinstance(msg, im.SubmitAction):
            await self.on_action(msg)
        elif isinstance(msg, im.RoundRevealed):
            await self.on_revealed(msg)
        elif isinstance(msg, im.SeedCommitted):
            await self.on_seed(msg)
        elif isinstance(msg, im.DrawMade):
            await self.on_draw(msg)
        elif isinstance(msg, im.TurnTimeout):
            await self.on_timeout(msg)
        elif isinstance(msg, im.EndGame):
            await self.on_end(msg)
        elif isinstance(msg, im.HandOver):
            await self.on_hand_over(msg)

    async def on_hand_over(self, msg: im.HandOver) -> None:
        """A seat goes to a bot (services/adjudicator/handover.py). A redelivery of a stored
        hand-over sends the bot runner its seat again (the runner keeps one per seat)."""
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id, seat=msg.seat):
            t = now_ms()
            eff = await self._process(msg.game_id, lambda d: handover.hand_over(d, msg, t))
            if eff is not None and eff.changed:
                log.info("seat_handed_over", reason=msg.reason)
                return
            doc = await self.store.load(msg.game_id)
            if doc is not None and doc.stage != "ended" \
                    and core.player_at(doc, msg.seat) == msg.to.player_id:
                await self.publish(streams.BOTS_IN, im.SeatBot(
                    game_id=msg.game_id, seat=msg.seat, player_id=msg.to.player_id,
                    token=msg.token, kind=msg.to.bot or "heuristic"), msg.game_id)

    # -- timers -------------------------------------------------------------------------

    async def timer_loop(self) -> None:
        """Durable timers (shared/runtime/timers.py), each fired by one replica at a time:
        ``<game>|<seq>`` a turn deadline, ``<game>|expire`` the game's lifetime,
        ``<game>|archive`` its archive after the end."""
        await self.store.timers.run(self.on_timer, self.settings.timer_poll_ms / 1000, now_ms)

    async def on_timer(self, member: str) -> bool:
        """Fire one due timer; False when it re-armed itself for later (keep the new time)."""
        game_id, what = member.rsplit("|", 1)
        if what == "expire":
            return await self.on_expire(game_id)
        if what == "archive":
            return await self.on_archive(game_id)
        await self.on_timeout(im.TurnTimeout(game_id=game_id, seq=int(what)))
        return True

    # -- lifetime and archive -----------------------------------------------------------

    async def on_expire(self, game_id: str) -> bool:
        """End the game at its ``expires_ms``; False when its end moved on (a turn-based game
        that changed since: the timer is armed again for the new end)."""
        with structlog.contextvars.bound_contextvars(game_id=game_id):
            t = now_ms()
            eff = await self._process(game_id, lambda d: core.expire(d, t))
            if eff is not None and eff.changed:
                log.info("game_expired")
                return True
            doc = self.store.cached(game_id) or await self.store.load(game_id)
            if doc is not None and doc.stage != "ended" and doc.expires_ms is not None \
                    and doc.expires_ms > t:
                await self.store.arm_timer(game_id, "expire", doc.expires_ms)
                return False
            return True

    async def on_end(self, msg: im.EndGame) -> None:
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id):
            t = now_ms()
            eff = await self._process(msg.game_id, lambda d: core.end_by_admin(d, msg.reason, t))
            if eff is not None and eff.changed:
                log.info("game_ended_by_admin")

    async def on_archive(self, game_id: str) -> bool:
        """Archive a finished game, then let its live keys expire. Waits (False: re-armed)
        while the dealer's reveal or the result is missing, for up to ``ARCHIVE_WAIT_MS``
        after the end; archives what there is after that."""
        with structlog.contextvars.bound_contextvars(game_id=game_id):
            doc = await self.store.load(game_id)
            if doc is None or doc.stage != "ended":
                return True  # gone (archived and expired) or not over: nothing to do
            seats = len(doc.players)
            meta, record, log_entries, result, view = await self.store.game_for_archive(
                game_id, seats)
            t = now_ms()
            complete = result is not None and any(
                e.get("type") == "seed_revealed" for e in record)
            ended = doc.ended_ms or t
            if not complete and t - ended < ARCHIVE_WAIT_MS:
                await self.store.arm_timer(game_id, "archive", t + 2_000)
                return False
            await self.archive.put(game_id, {
                "v": ARCHIVE_VERSION, "game_id": game_id, "game": doc.game,
                "options": doc.options,
                "players": [p.model_dump() for p in core.first_players(doc)],
                "table_id": (meta or {}).get("table_id"), "meta": meta, "record": record,
                "log": log_entries, "result": result, "final_view": view,
                # table talk (services/gateway/chat/): the archive's, never the record's
                "chat": await self.store.chat_for_archive(game_id, (meta or {}).get(
                    "table_id")),
                "ended_ms": doc.ended_ms, "archived_ms": t})
            await self.store.expire_live(game_id, seats,
                                         int(self.settings.archive_live_ttl_s * 1000))
            log.info("game_archived", complete=complete, records=len(record),
                     moves=len(log_entries))
            return True
