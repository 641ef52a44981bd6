"""The escrow's shell: decodes, checks with the core (services/escrow/core.py), calls its store
(the port of services/escrow/ports.py; Redis and Lua in services/escrow/store.py) and publishes.
Openings arrive sealed to the escrow's key (esc:keys) and, once opened, live only under
``esc:{game}:*`` keys, which only the escrow's Redis user may read (deploy/valkey/users.acl).
Logs carry commitments, never openings."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import structlog
from cachetools import LRUCache
from pydantic import ValidationError

from services.escrow import core
from services.escrow.ports import CloseInputs, EscrowStorePort
from shared.fairness import seal
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.turns import TURNS, SeatCommitted
from shared.runtime import metrics, session_keys
from shared.runtime.jsonutil import dumps
from shared.runtime.ports import KeyRegistry, Publisher
from shared.runtime.settings import Settings
from shared.runtime.tail import Tail, applied
from shared.runtime.tail import make as tail_of

log = structlog.get_logger("escrow")


def now_ms() -> int:
    return int(time.time() * 1000)


class Escrow:
    def __init__(self, settings: Settings, store: EscrowStorePort, broker: Publisher,
                 registered: KeyRegistry) -> None:
        self.settings = settings
        self.store = store  # every Redis call (services/escrow/store.py)
        self.broker = broker
        # a round's spec never changes once opened: cached until the round closes; the bound
        # only guards against rounds that never close in this process (another replica
        # closed them): the least recently used go first, one at a time
        self._specs: LRUCache[tuple[str, str], im.OpenRound] = LRUCache(maxsize=20_000)
        self._seal_key: str | None = None  # the X25519 private key openings are sealed to
        self.registered = registered  # the lobby's session keys (shared/runtime/session_keys)

    async def seal_key(self) -> str:
        """The escrow's private X25519 key (hex): made once by the first replica to start,
        kept in esc:keys (only the escrow's Redis user reads esc:*), shared by every replica.
        Its public half is published in every round_opened entry."""
        if self._seal_key is None:
            self._seal_key = await self.store.seal_key(seal.new_private_key())
        return self._seal_key

    async def _notify(self, game_id: str) -> None:
        await self.broker.publish(im.Notify(game_id=game_id).model_dump(mode="json"),
                                  **self._fan_out(game_id))

    async def _reply(self, r: im.Reply) -> None:
        await self.broker.publish(r.model_dump(mode="json"), **self._fan_out(r.game_id))

    def _tail(self, entries: list[tuple[dict[str, Any], dict[str, Any]]],
              ack: bool) -> Tail | None:
        """The publishes (body, {stream, maxlen}) that end a step, and with ``ack`` the
        consumed entry's acknowledgement, for the store to do in the step itself
        (shared/runtime/tail.py); None when it cannot."""
        return tail_of(self.broker, self.store.inline, entries, ack)

    def _fan_out(self, game_id: str) -> dict[str, Any]:
        """The game's fan-out shard (read only by the gateways watching it) and its cap."""
        n = self.settings.gw_shards
        return {"stream": streams.updates_for(game_id, n), "maxlen": streams.updates_maxlen(n)}

    async def _spec(self, game_id: str, round_id: str) -> im.OpenRound | None:
        key = (game_id, round_id)
        spec = self._specs.get(key)
        if spec is not None:
            return spec
        spec = await self.store.round_spec(game_id, round_id)
        if spec is None:
            return None
        self._remember(spec)
        return spec

    def _remember(self, spec: im.OpenRound) -> None:
        self._specs[(spec.game_id, spec.round_id)] = spec

    async def on_open(self, spec: im.OpenRound) -> None:
        with structlog.contextvars.bound_contextvars(game_id=spec.game_id,
                                                     round_id=spec.round_id):
            salts = core.new_salts(spec)
            public = seal.public_key(await self.seal_key())
            # the deadline timer first (a timer without its round is dropped by the timer
            # loop), then the open
            # the game's escrow keys live to the deadline + the live TTL (in the same step)
            # created: the gateways told, the entry acknowledged, in the same step
            tail = self._tail([(im.Notify(game_id=spec.game_id).model_dump(mode="json"),
                                self._fan_out(spec.game_id))], ack=True)
            created = await self.store.open_round(
                spec, self._timers_at_open(spec), dumps(core.opened_entry(spec, salts, public)),
                dumps(salts), now_ms(), self._live_ttl_ms(spec.deadline_ms - now_ms()),
                tail=tail)
            if created:
                applied(tail)
                self._remember(spec)
                metrics.SEALED_OPEN.inc()
                log.info("round_opened", slots=len(spec.slots), ordered=spec.ordered)
                if tail is None:
                    await self._notify(spec.game_id)
            else:  # a duplicate open: if it already closed, resend the reveal
                await self.resend_reveal(spec.game_id, spec.round_id)

    def _timers_at_open(self, spec: im.OpenRound) -> dict[str, int]:
        """The round's deadline and, P-S1, the first slot's own time: member -> due ms."""
        timer = {f"{spec.game_id}|{spec.round_id}": spec.deadline_ms}
        if core.timed_slots(spec):  # P-S1: the first slot's own time
            assert spec.slot_timeout_ms is not None
            timer[self._slot_member(spec, spec.slots[0].key)] = now_ms() + spec.slot_timeout_ms
        return timer

    async def on_commit(self, msg: im.CommitChoice) -> None:
        with structlog.contextvars.bound_contextvars(game_id=msg.game_id, seat=msg.seat,
                                                     round_id=msg.round_id, slot=msg.slot):
            spec = await self._spec(msg.game_id, msg.round_id)
            for _ in range(100):  # the open may be a few ms behind the client's view
                if spec is not None:
                    break
                await asyncio.sleep(0.02)
                spec = await self._spec(msg.game_id, msg.round_id)
            signed = spec is not None and await self.signed_by_seat(spec, msg)
            if spec is not None and not (signed and self._not_handed_away(spec, msg)):
                # the seat may have been handed over while the round was open (told to
                # another replica): the kept spec is read again before refusing
                self._specs.pop((msg.game_id, msg.round_id), None)
                spec = await self._spec(msg.game_id, msg.round_id)
                signed = spec is not None and await self.signed_by_seat(spec, msg)
            # the opening (never logged), or the first refusal
            opening = "escrow/no_round" if spec is None else \
                "auth/bad_signature" if not signed else \
                core.open_commit(spec, msg, await self.seal_key())
            error = opening if isinstance(opening, str) else None
            receipt = im.Reply(game_id=msg.game_id, player_id=msg.player_id,
                               cmd_id=msg.cmd_id, ok=True, commitment=msg.commitment,
                               round_id=msg.round_id, slot=msg.slot)
            if error is None and spec is not None and isinstance(opening, core.Opening):
                error = await self._store_commit(spec, msg, opening, receipt)
            if error is not None:
                log.info("commit_refused", code=error)
                metrics.REJECTIONS.labels(error).inc()
                await self._reply(im.Reply(game_id=msg.game_id, player_id=msg.player_id,
                                           cmd_id=msg.cmd_id, ok=False, code=error,
                                           message=_MESSAGES.get(error, error),
                                           round_id=msg.round_id, slot=msg.slot))
                return
            log.debug("committed", commitment=msg.commitment)

    @staticmethod
    def _not_handed_away(spec: im.OpenRound, msg: im.CommitChoice) -> bool:
        """False when the slot's seat was handed to another player than the committer."""
        slot = core.slot_of(spec, msg.slot)
        return slot is None or slot.seat not in spec.handed or msg.player_id == slot.player_id

    async def on_hand_over(self, msg: im.SlotHandedOver) -> None:
        """A seat handed to a bot while this round was open (services/adjudicator/
        handover.py): its uncommitted slots are the bot's from now on."""
        await self.store.hand_over_slot(msg.game_id, msg.round_id, msg.seat, msg.player_id)
        self._specs.pop((msg.game_id, msg.round_id), None)
        log.info("slot_handed_over", game_id=msg.game_id, round_id=msg.round_id, seat=msg.seat)

    async def signed_by_seat(self, spec: im.OpenRound, msg: im.CommitChoice) -> bool:
        """Whether the commit carries a signature, over exactly this game, seat, command and
        body, by a session key the lobby registered for the player the round's spec seats at
        the slot (the adjudicator's word, never ``msg.player_id``: the gateway stamps that).
        Unsigned commits pass only with EMPIRE_REQUIRE_SIGNATURES=0."""
        slot = core.slot_of(spec, msg.slot)
        if msg.sig is not None or msg.key is not None:  # signed (or half): whose seat is it?
            if slot is None or slot.seat != msg.seat:
                return True  # refused as escrow/not_your_slot, whoever signed it
            if not slot.player_id:  # a round opened before signed commands (a rolling upgrade)
                return not self.settings.require_signatures
        return await session_keys.signed_by(slot.player_id if slot else "", msg.key, msg.sig,
                                            lambda: core.signed_commit(msg), self.registered,
                                            now_ms(), self.settings.require_signatures)

    async def _store_commit(self, spec: im.OpenRound, msg: im.CommitChoice,
                            opening: core.Opening, receipt: im.Reply) -> str | None:
        """Store the commitment and send its receipt (with the reveal when it was the last
        slot: one pipelined publish); an error code instead when it is refused."""
        slot = core.slot_of(spec, msg.slot)
        assert slot is not None
        clear = dumps({"choice": opening.choice, "nonce": opening.nonce})
        # a real-time round without slot times: an accepted commit that is not the last
        # slot's ends with its receipt alone, so the step sends it and acknowledges the entry
        tail = self._tail([(receipt.model_dump(mode="json"), self._fan_out(msg.game_id))],
                          ack=True) \
            if spec.pace == "real-time" and not core.timed_slots(spec) else None
        res = await self.store.record_commit(
            msg.game_id, msg.round_id, msg.slot, msg.commitment, clear,
            core.previous_slot(spec, msg.slot), dumps(core.committed_entry(msg, slot, opening)),
            [s.key for s in spec.slots], tail=tail)
        status = res.status
        if status in ("closed", "dup"):
            # this very commitment stored already: a redelivery after a crash (or the client
            # re-sending it), so finish what the first delivery may not have done
            mine = await self.store.commitment(msg.game_id, msg.round_id, msg.slot)
            if mine is not None and mine == msg.commitment:
                # if the first try could not
                await self._seat_committed(spec, msg.slot, msg.player_id)
                if status == "closed" or await self.store.commit_count(
                        msg.game_id, msg.round_id) >= len(spec.slots):
                    await self.close(spec, receipt=receipt)
                else:
                    await self._arm_next(spec, msg.slot)  # (P-S1) if the first try could not
                    await self._reply(receipt)
                return None
        if status == "closed":
            await self.close(spec)  # resumes a close cut short, else resends the reveal
            return "escrow/closed"
        if status == "order":
            return "escrow/out_of_order"
        if status == "dup":
            return "escrow/already_committed"
        if status == "timed_out":
            return "escrow/slot_timed_out"
        if res.closing is not None:  # the last slot: the round moved to 'closing' and read
            await self._seat_committed(spec, msg.slot, msg.player_id)
            await self.close(spec, inputs=res.closing, receipt=receipt, ack=True)
        elif tail is not None:
            applied(tail)
        else:
            await self._arm_next(spec, msg.slot)
            # the receipt also tells every gateway the game changed
            await asyncio.gather(self._seat_committed(spec, msg.slot, msg.player_id),
                                 self._reply(receipt))
        return None

    async def _seat_committed(self, spec: im.OpenRound, key: str, player_id: str) -> None:
        """Tell the TURNS readers the round no longer waits for the seat, once every slot of
        the seat in the round is done: committed, or (P-S1) its own time ran out and its
        default stands. Public only (who committed or timed out is in the record): never the
        choice, the nonce or the commitment. Sent again on a redelivered commit or a timer
        fired twice; the readers apply it once. Not for a real-time game's round: the readers
        follow a live game's start, players and end only (services/adjudicator/turns.py)."""
        slot = core.slot_of(spec, key)
        if slot is None or spec.pace == "real-time":
            return
        for other in core.seat_slots(spec, slot.seat):
            if other != key and not await self.store.slot_done(
                    spec.game_id, spec.round_id, other):
                return
        entry = SeatCommitted(game_id=spec.game_id, round_id=spec.round_id, seat=slot.seat,
                              player_id=slot.player_id or player_id, at_ms=now_ms())
        await self.broker.publish(entry.model_dump(mode="json"), stream=TURNS,
                                  maxlen=streams.maxlen(TURNS))

    @staticmethod
    def _slot_member(spec: im.OpenRound, key: str) -> str:
        """A slot's own timer in the escrow's deadline set (P-S1): '<game>|<round>|<slot>'."""
        return f"{spec.game_id}|{spec.round_id}|{key}"

    async def _arm_next(self, spec: im.OpenRound, key: str) -> None:
        """P-S1: ``key`` is done (committed or timed out); the next slot's own time begins.
        (A crash before this leaves the next slot bounded by the round's deadline; a
        redelivered commit arms it again.)"""
        if not core.timed_slots(spec):
            return
        nxt = core.next_slot(spec, key)
        if nxt is None:
            return
        assert spec.slot_timeout_ms is not None
        await self.store.arm_timer(self._slot_member(spec, nxt),
                                   now_ms() + spec.slot_timeout_ms, keep=True)

    async def skip(self, spec: im.OpenRound, key: str) -> None:
        """P-S1: the slot's own time passed without a commit; its default stands and the next
        seat's turn begins (the last slot's timing out closes the round)."""
        slot = core.slot_of(spec, key)
        if slot is None or not core.timed_slots(spec):
            return
        res = await self.store.time_out_slot(
            spec.game_id, spec.round_id, key, core.previous_slot(spec, key),
            dumps(core.timed_out_entry(spec, slot)), [s.key for s in spec.slots])
        status = res.status
        with structlog.contextvars.bound_contextvars(game_id=spec.game_id, seat=slot.seat,
                                                     round_id=spec.round_id, slot=key):
            if status == "committed" or status == "dup":
                # done already (a commit won the race, or an earlier firing timed it out and
                # was cut short): make sure the next slot's time runs
                await self._arm_next(spec, key)
                return
            if status != "ok":  # closed, or not its turn (cannot happen: armed in order)
                return
            log.info("slot_timed_out")
            metrics.REJECTIONS.labels("escrow/slot_timed_out").inc()
            if res.closing is not None:
                await self.close(spec, inputs=res.closing)
            else:
                await self._arm_next(spec, key)
                await asyncio.gather(self._seat_committed(spec, key, slot.player_id),
                                     self._notify(spec.game_id))

    async def close(self, spec: im.OpenRound, inputs: CloseInputs | None = None,
                    receipt: im.Reply | None = None, ack: bool = False) -> None:
        """Close (idempotent, resumable): defaults for missing slots, then one reveal.
        ``inputs``: the commit script already set the round to 'closing' and read the
        openings, commitments and salts. ``receipt``: a commit's receipt, published
        with the reveal (it tells the gateways the game changed, so no separate notify).
        ``ack``: the close is the consumed entry's last effect, acknowledged with it."""
        if inputs is None:
            st = await self.store.begin_close(spec.game_id, spec.round_id)
            if st != "closing":  # closed already: resend its reveal
                receipts = [] if receipt is None else [self._reply(receipt)]
                reveal = [self.resend_reveal(spec.game_id, spec.round_id)] if st else []
                await asyncio.gather(*reveal, *receipts)
                return
            inputs = await self.store.close_inputs(spec.game_id, spec.round_id,
                                                   [s.key for s in spec.slots])
        closed, revealed, msg = core.reveal(spec, inputs.openings, inputs.commits, inputs.salts)
        # the reveal and the receipt (else a notify: it tells the gateways the game changed)
        # go out in the close's own step where the store can
        tail = self._tail([(msg.model_dump(mode="json"), self._reveals(msg.game_id)),
                           ((receipt if receipt is not None else im.Notify(
                               game_id=spec.game_id)).model_dump(mode="json"),
                            self._fan_out(spec.game_id))], ack=ack)
        # the openings are public in the record once closed: the keys live the live TTL
        done, opened = await self.store.close_round(
            spec.game_id, spec.round_id, dumps(closed), dumps(revealed), msg.model_dump_json(),
            self._live_ttl_ms(0), tail=tail)
        applied(tail)
        self._specs.pop((spec.game_id, spec.round_id), None)  # re-read if ever needed again
        if done:
            metrics.SEALED_OPEN.dec()
            if opened is not None:
                metrics.REVEAL_LATENCY.observe(max(0.0, (now_ms() - opened) / 1000))
            log.info("round_closed", game_id=spec.game_id, round_id=spec.round_id,
                     defaulted=len(msg.defaulted))
        if tail is None:  # one pipelined round trip through the outbox
            await asyncio.gather(self._send_reveal(msg), self._reply(receipt)
                                 if receipt is not None else self._notify(spec.game_id))

    def _live_ttl_ms(self, extra_ms: int) -> int:
        """How long the game's escrow keys live at least from now: ``extra_ms`` + the live
        TTL."""
        return max(0, extra_ms) + int(self.settings.archive_live_ttl_s * 1000)

    def _reveals(self, game_id: str) -> dict[str, Any]:
        """The adjudicators' reveal shard of the game and its cap."""
        stream = streams.sharded(streams.ADJ_REVEALS, game_id, self.settings.partitions)
        return {"stream": stream, "maxlen": streams.maxlen(stream)}

    async def _send_reveal(self, msg: im.RoundRevealed) -> None:
        await self.broker.publish(msg.model_dump(mode="json"), **self._reveals(msg.game_id))

    async def resend_reveal(self, game_id: str, round_id: str) -> None:
        msg = await self.store.reveal_of(game_id, round_id)
        if msg is not None:
            await self._send_reveal(msg)

    async def dispatch_open(self, body: dict[str, Any]) -> None:
        try:
            if body.get("type") == "slot_handed_over":
                await self.on_hand_over(im.SlotHandedOver.model_validate(body))
                return
            await self.on_open(im.OpenRound.model_validate(body))
        except ValidationError as exc:
            log.error("malformed_internal_message", error=str(exc)[:300])

    async def dispatch_commit(self, body: dict[str, Any]) -> None:
        try:
            msg = im.CommitChoice.model_validate(body)
        except ValidationError as exc:
            log.error("malformed_internal_message", error=str(exc)[:300])
            return
        await self.on_commit(msg)

    async def timer_loop(self) -> None:
        """Round deadlines (close with the defaults fixed at open) and, in a fixed-order
        round with a time per slot, each slot's own time (P-S1): shared/runtime/timers.py."""
        await self.store.timers.run(self.on_timer, self.settings.timer_poll_ms / 1000, now_ms)

    async def on_timer(self, member: str) -> bool:
        """``<game>|<round>`` the round's deadline, ``<game>|<round>|<slot>`` a slot's."""
        game_id, round_id, *slot = member.split("|", 2)
        spec = await self._spec(game_id, round_id)
        if spec is not None:
            if slot:
                await self.skip(spec, slot[0])
            else:
                await self.close(spec)
        return True


_MESSAGES = {
    "auth/bad_signature": "this commit is not signed by a session key registered for the "
                          "player of this seat",
    "escrow/no_round": "no such sealed round is open",
    "escrow/closed": "the round has closed; nothing is accepted after close",
    "escrow/not_your_slot": "this slot does not belong to your seat",
    "game/seat_handed_over": "this seat was handed to a bot: a bot plays it for the rest of "
                             "the game",
    "escrow/out_of_order": "an earlier slot of this ordered round has not committed yet",
    "escrow/already_committed": "this slot is already committed",
    "escrow/bad_commitment": "the opening does not hash to the commitment",
    "escrow/choice_not_allowed": "this choice is not allowed for the slot",
    "escrow/public_mismatch": "the declared public part differs from the choice",
    "escrow/bad_seal": "the sealed opening does not open with the escrow's key for this "
                       "game, round, slot and seat",
    "escrow/slot_timed_out": "this slot's own time in the fixed order ran out; its default "
                             "stands",
}
