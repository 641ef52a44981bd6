"""Handing a running game's seat to a bot: one mechanism for a resignation and for a clock
that ran out at a table with ``on_expiry: "bot"``. Pure: no I/O, no clock (``now_ms`` is an
argument).

The lobby decides who plays the seat (it makes the bot's player and token) and sends
``HandOver``; ``hand_over`` stores it: the seat's player becomes the bot (its acts and
commits are the bot's from now on, signed with the bot's session key: the adjudicator and the
escrow check signatures against the player the game seats there), a public
``seat_handed_over`` record entry tells every seat and spectator, a sealed round still open
gets the seat's slots re-assigned (``SlotHandedOver`` to the escrow), and the bot runner is
told to play the seat (``SeatBot``) only once the game gives the seat to the bot.

For ``on_expiry: "bot"`` the adjudicator applies the default move as ever and then asks the
lobby for the hand-over (``HandOverSeat`` on ``lobby:rpc``): ``on_timeout`` and
``on_revealed`` wrap the core's own handlers.
"""

from __future__ import annotations

from typing import Any

from services.adjudicator import core
from services.adjudicator.core import ENTROPY_ROUND, Effects, GameDoc
from shared.protocol import internal as im
from shared.protocol import lobby as lm
from shared.protocol import streams
from shared.rules.api import Simultaneous, Turn


def pending_round(doc: GameDoc) -> str | None:
    """The sealed round the game waits for now (None: none)."""
    if doc.stage == "entropy":
        return ENTROPY_ROUND
    if doc.stage != "playing":
        return None
    game = core._game(doc)
    node = game.next(game.decode(doc.engine))
    return node.round_id if isinstance(node, Simultaneous) else None


def record_entry(h: im.HandedSeat, seq: int) -> dict[str, Any]:
    """The public record entry of a hand-over (shown to every seat and spectator); ``seq``:
    the game's seq it took (a seq with no move: the verifier skips it in the move log)."""
    return {"type": "seat_handed_over", "seq": seq, "seat": h.seat, "reason": h.reason,
            "from": {"player_id": h.player.player_id, "name": h.player.name},
            "to": {"player_id": h.to.player_id, "name": h.to.name, "bot": h.to.bot}}


def hand_over(doc: GameDoc, msg: im.HandOver, now_ms: int) -> Effects:
    """The seat goes to ``msg.to`` for the rest of the game. Nothing changes when the game
    has ended, or the seat is no longer ``msg.from_player``'s (a second hand-over of the same
    seat, a redelivery: once only)."""
    if doc.stage == "ended" or not 0 <= msg.seat < len(doc.players):
        return Effects()
    before = doc.players[msg.seat]
    if before.player_id != msg.from_player or before.player_id == msg.to.player_id:
        return Effects()
    handed = im.HandedSeat(seat=msg.seat, player=before, to=msg.to, reason=msg.reason)
    players = [*doc.players]
    players[msg.seat] = msg.to
    new = doc.model_copy(update={"players": players, "seq": doc.seq + 1,
                                 "handed_over": [*doc.handed_over, handed]})
    eff = Effects(doc=new)
    eff.records.append(record_entry(handed, new.seq))
    round_id = pending_round(doc)
    if round_id is not None:
        eff.outbound.append((streams.ESC_OPEN, im.SlotHandedOver(
            game_id=doc.game_id, round_id=round_id, seat=msg.seat,
            player_id=msg.to.player_id)))
    eff.outbound.append((streams.BOTS_IN, im.SeatBot(
        game_id=doc.game_id, seat=msg.seat, player_id=msg.to.player_id, token=msg.token,
        kind=msg.to.bot or "heuristic")))
    if doc.deadline_ms is not None:  # the turn's clock goes on (its timer is per seq)
        eff.timer_ms = doc.deadline_ms
    return eff


def expiry_requests(doc: GameDoc, seats: set[int]) -> list[tuple[str, lm.HandOverSeat]]:
    """``on_expiry: "bot"``: ask the lobby to hand each of ``seats`` (whose clock ran out) to
    a bot; a seat a bot already plays is left as it is."""
    if doc.on_expiry != "bot" or doc.stage == "ended":
        return []
    return [(streams.LOBBY_RPC, lm.HandOverSeat(game_id=doc.game_id, seat=s,
                                                from_player=doc.players[s].player_id))
            for s in sorted(seats) if 0 <= s < len(doc.players) and not doc.players[s].bot]


def on_timeout(doc: GameDoc, msg: im.TurnTimeout, now_ms: int) -> Effects:
    """The core's default moves; then, with ``on_expiry: "bot"``, the late seats' hand-over."""
    eff = core.on_timeout(doc, msg, now_ms)
    if not eff.changed or doc.on_expiry != "bot":
        return eff
    game = core._game(doc)
    node = game.next(game.decode(doc.engine))
    late = set(node.seats) if isinstance(node, Turn) else set()
    assert eff.doc is not None
    eff.outbound += expiry_requests(eff.doc, late)
    return eff


def on_revealed(doc: GameDoc, msg: im.RoundRevealed, now_ms: int) -> Effects:
    """The core's reveal; then, with ``on_expiry: "bot"``, the hand-over of the seats whose
    sealed choice was defaulted because their time ran out (not the entropy round's: adding a
    random seed is optional)."""
    eff = core.on_revealed(doc, msg, now_ms)
    if not eff.changed or doc.on_expiry != "bot" or msg.round_id == ENTROPY_ROUND \
            or not msg.defaulted:
        return eff
    game = core._game(doc)
    node = game.next(game.decode(doc.engine))
    if not isinstance(node, Simultaneous) or node.round_id != msg.round_id:
        return eff
    late = {s.seat for s in node.slots if s.key in msg.defaulted}
    assert eff.doc is not None
    eff.outbound += expiry_requests(eff.doc, late)
    return eff
