"""The adjudicator's functional core: one input + the game document -> effects.

Pure: no I/O, no clock (``now_ms`` is an argument). The shell loads the document, calls
``handle``, persists the effects atomically (one Lua step, compare-and-set on ``seq``) and then
publishes the outbound messages. Every outbound message is derived from the persisted state,
so a redelivered input after a crash re-sends them (``redrive``) and the receivers are
idempotent (by round id and draw label).

Game life: seeding (dealer commits its seed) -> entropy (optional sealed round of client seeds)
-> playing (engine nodes: turns, sealed rounds via the escrow, draws via the dealer) -> ended.
Every game also ends by ``expires_ms`` (a real-time game: the ``game_lifetime_s`` setting; a
turn-based one: moved on with every change, services/adjudicator/turns.py): ``expire`` takes it
through the normal end path (``game_ended`` in the record, ``GameEnded`` to scoring, the
dealer's reveal) with the public outcome ``{"status": "expired", "results": [], ...}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from services.adjudicator import turns
from services.adjudicator.turns import Awaited
from shared.fairness import signing
from shared.protocol import internal as im
from shared.protocol import streams
from shared.protocol.base import Wire
from shared.protocol.turns import Pace, TurnsChanged
from shared.rules import registry
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Event,
    Game,
    JointAction,
    Move,
    Node,
    Rejection,
    Simultaneous,
    Terminal,
    Turn,
    client_events,
    to_json,
)
from shared.rules.replay import check_rules_version

ENTROPY_ROUND = "entropy"
Stage = Literal["seeding", "entropy", "playing", "ended"]


class GameDoc(BaseModel):
    """Everything the adjudicator stores for one game (``g:{id}:state``)."""

    model_config = ConfigDict(extra="forbid")

    game_id: str
    game: str
    options: dict[str, JsonValue]
    players: list[im.PlayerRef]
    seq: int = 0
    stage: Stage = "seeding"
    engine: dict[str, JsonValue]
    client_entropy: bool = True
    client_seeds: list[str] = []
    seed_commitment: str | None = None
    turn_timeout_ms: int
    round_timeout_ms: int
    deadline_ms: int | None = None
    expires_ms: int | None = None  # the game's absolute end (None: a game stored without one)
    ended_ms: int | None = None  # when it ended (the archive follows a little later)
    rules_version: str | None = None  # the engine's at create (None: stored before it was kept)
    # the outcome of a game ended before its engine's end (an admin's end; None: by the rules
    # or by its lifetime)
    end_outcome: dict[str, Any] | None = None
    # --- pace and turns (services/adjudicator/turns.py) ---
    pace: Pace = "real-time"
    time_bank_ms: int = 0
    bank: list[int] = []  # each seat's time bank left ([]: the table has none)
    armed_ms: int | None = None  # when the current turn's clock started
    waiting: list[Awaited] = []  # the seats the game waits for, since when, until when
    expires_cap_ms: int | None = None  # a turn-based game's latest end (None: real-time)
    stall_ms: int = 0  # a turn-based game ends this long after its last change
    # when a seat's clock runs out: "default" its default move; "bot" the default move and
    # the seat goes to a bot (services/adjudicator/handover.py)
    on_expiry: im.OnExpiry = "default"
    handed_over: list[im.HandedSeat] = []  # seats handed to a bot, in order
    # the open sealed round the waiting seats belong to (None: the node is not simultaneous);
    # TurnsChanged carries it so a SeatCommitted of that round applies (turns.py)
    sealed_round: str | None = None


@dataclass
class Effects:
    """What handling one input produced. ``doc`` None means nothing changed."""

    doc: GameDoc | None = None
    events: list[Event] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)  # private log entries
    records: list[dict[str, Any]] = field(default_factory=list)  # public record entries
    outbound: list[tuple[str, Wire]] = field(default_factory=list)  # (stream base, msg)
    reply: im.Reply | None = None
    timer_ms: int | None = None  # arm the turn timer for doc.seq at this time
    turns: TurnsChanged | None = None  # appended to the turns stream with the commit

    @property
    def changed(self) -> bool:
        return self.doc is not None


def _game(doc: GameDoc) -> Game:
    """The game's engine; RulesVersionMismatch if it is not the version the game started on
    (a game ends on the rules it began with: the dealer's game key binds the version)."""
    game = registry.get(doc.game)
    check_rules_version(game, doc.rules_version)
    return game


def create(msg: im.CreateGame, expires_ms: int | None = None,
           turn_based_life: tuple[int, int] | None = None) -> Effects:
    """A new game document; the first step asks the dealer to commit to its seed.
    ``expires_ms``: the game's absolute end (now + the lifetime). ``turn_based_life``: a
    turn-based game's (latest end, how long after its last change it ends)."""
    game = registry.get(msg.game)
    state = game.setup(msg.options, len(msg.players))
    doc = GameDoc(game_id=msg.game_id, game=msg.game, options=msg.options, players=msg.players,
                  engine=game.encode(state), client_entropy=msg.client_entropy,
                  turn_timeout_ms=msg.turn_timeout_ms, round_timeout_ms=msg.round_timeout_ms,
                  rules_version=game.rules_version, expires_ms=expires_ms,
                  on_expiry=msg.on_expiry)
    doc = doc.model_copy(update={"pace": msg.pace, "time_bank_ms": msg.time_bank_ms,
                                 "bank": [msg.time_bank_ms] * len(msg.players)
                                 if msg.time_bank_ms else []})
    if msg.pace == "turn-based" and turn_based_life is not None:
        cap, stall = turn_based_life
        doc = doc.model_copy(update={"expires_cap_ms": cap, "stall_ms": stall,
                                     "expires_ms": min(cap, expires_ms or cap)})
    eff = Effects(doc=doc)
    eff.records.append({"type": "game_created", "game": msg.game, "options": msg.options,
                        "rules_version": game.rules_version,
                        "players": [p.model_dump() for p in msg.players],
                        "client_entropy": msg.client_entropy})
    eff.outbound.append((streams.DEALER_IN, im.CommitSeed(game_id=msg.game_id,
                                                          rules_version=game.rules_version)))
    return eff


def redrive(doc: GameDoc, now_ms: int) -> Effects:
    """The outbound requests implied by the current document (sent again after a crash)."""
    eff = Effects()
    if doc.stage == "seeding":
        game = _game(doc)
        eff.outbound.append((streams.DEALER_IN, im.CommitSeed(
            game_id=doc.game_id, rules_version=game.rules_version)))
    elif doc.stage == "entropy":
        eff.outbound.append((streams.ESC_OPEN, _entropy_round(doc, now_ms)))
    else:  # playing or ended: the engine's node says what is pending (or the end messages)
        game = _game(doc)
        node = game.next(game.decode(doc.engine))
        if doc.stage == "ended" and not isinstance(node, Terminal):  # ended by its lifetime
            outcome = doc.end_outcome or expired_outcome(doc)
            eff.outbound.append((streams.GAME_ENDED, im.GameEnded(
                game_id=doc.game_id, game=doc.game, players=first_players(doc), outcome=outcome,
                handed_over=doc.handed_over)))
            eff.outbound.append((streams.DEALER_IN, im.RevealSeed(game_id=doc.game_id)))
            return eff
        _request(doc, game, node, eff, now_ms, arm=False)
    return eff


def _entropy_round(doc: GameDoc, now_ms: int) -> im.OpenRound:
    # FAIRNESS.md §Dealer 2: each seat may add a 32-byte client seed ("" = none).
    slots = [im.SlotSpec(seat=i, player_id=doc.players[i].player_id, key=f"s{i}",
                         allowed=None, default="") for i in range(len(doc.players))]
    return im.OpenRound(game_id=doc.game_id, game="", round_id=ENTROPY_ROUND, slots=slots,
                        deadline_ms=now_ms + doc.round_timeout_ms, handed=handed_seats(doc),
                        pace=doc.pace)


def on_seed_committed(doc: GameDoc, msg: im.SeedCommitted, now_ms: int) -> Effects:
    if doc.stage != "seeding":
        return Effects()  # duplicate
    doc = doc.model_copy(update={"seed_commitment": msg.commitment, "seq": doc.seq + 1})
    if doc.client_entropy:
        doc = doc.model_copy(update={"stage": "entropy",
                                     "deadline_ms": now_ms + doc.round_timeout_ms})
        eff = Effects(doc=doc)
        eff.outbound.append((streams.ESC_OPEN, _entropy_round(doc, now_ms)))
        return eff
    return _start(doc.model_copy(update={"stage": "playing"}), now_ms)


def _start(doc: GameDoc, now_ms: int) -> Effects:
    eff = Effects(doc=doc)
    game = _game(doc)
    _request(doc, game, game.next(game.decode(doc.engine)), eff, now_ms, arm=True)
    return eff


def on_revealed(doc: GameDoc, msg: im.RoundRevealed, now_ms: int) -> Effects:
    if msg.round_id == ENTROPY_ROUND:
        if doc.stage != "entropy":
            return Effects()
        seeds = [str(msg.choices.get(f"s{i}", "")) for i in range(len(doc.players))]
        doc = doc.model_copy(update={"client_seeds": seeds, "stage": "playing",
                                     "seq": doc.seq + 1, "deadline_ms": None})
        return _start(doc, now_ms)
    if doc.stage != "playing":
        return Effects()
    move = JointAction(round_id=msg.round_id, choices=msg.choices,
                       defaulted=tuple(msg.defaulted))
    return _apply(doc, move, now_ms, origin={"by": "escrow", "round_id": msg.round_id})


def on_draw(doc: GameDoc, msg: im.DrawMade, now_ms: int) -> Effects:
    if doc.stage != "playing":
        return Effects()
    game = _game(doc)
    node = game.next(game.decode(doc.engine))
    if not isinstance(node, Chance) or node.label != msg.label:
        return Effects()  # duplicate or stale answer
    eff = _apply(doc, ChanceOutcome(label=msg.label, values=tuple(msg.values)), now_ms,
                 origin={"by": "dealer", "label": msg.label})
    if eff.changed:
        entry: dict[str, Any] = {"type": "draw", "label": node.label, "draw": node.draw,
                                 "n": node.n, "count": node.count, "secret": node.secret}
        if not node.secret:
            entry["values"] = list(msg.values)
        eff.records.insert(0, entry)
    return eff


def on_action(doc: GameDoc, msg: im.SubmitAction, now_ms: int) -> Effects:
    def refuse(code: str, message: str) -> Effects:
        return Effects(reply=im.Reply(game_id=doc.game_id, player_id=msg.player_id,
                                      cmd_id=msg.cmd_id, ok=False, code=code, message=message))

    if doc.stage == "ended":
        return refuse("game/over", "the game is over")
    if doc.stage != "playing":
        return refuse("action/wrong_phase", f"the game is not in play yet ({doc.stage})")
    if msg.seat in handed_seats(doc) and msg.player_id != player_at(doc, msg.seat):
        return refuse("game/seat_handed_over", "this seat was handed to a bot: a bot plays "
                      "it for the rest of the game")
    if msg.expected_seq is not None and msg.expected_seq != doc.seq:
        return refuse("action/stale_seq", f"expected seq {msg.expected_seq}, game is at {doc.seq}")
    # the turn and the seat are the rules kit's guards (shared/rules/_kit/base.py)
    origin: dict[str, Any] = {"by": "seat", "seat": msg.seat, "cmd_id": msg.cmd_id}
    if msg.sig is not None:  # checked by the shell: kept so the verifier can check who acted
        origin.update(expected_seq=msg.expected_seq, key=msg.key, sig=msg.sig)
    doc = turns.draw_bank(doc, msg.seat, now_ms)  # time beyond the move's clock, if any
    eff = _apply(doc, Act(seat=msg.seat, action=msg.action), now_ms, origin=origin)
    if eff.reply is not None:
        eff.reply = eff.reply.model_copy(update={"player_id": msg.player_id,
                                                 "cmd_id": msg.cmd_id})
    return eff


MAX_DEFAULTS_PER_TIMEOUT = 200


def on_timeout(doc: GameDoc, msg: im.TurnTimeout, now_ms: int) -> Effects:
    """Apply the rules' default actions for the seats awaited when the deadline passed, for
    as long as any of them is still awaited (a phase may take several steps per seat)."""
    if doc.stage != "playing" or msg.seq != doc.seq:
        return Effects()
    game = _game(doc)
    node = game.next(game.decode(doc.engine))
    if not isinstance(node, Turn):
        return Effects()
    late = set(node.seats)
    doc = turns.empty_banks(doc, late)  # their banks ran out with the deadline
    total = Effects()
    for _ in range(MAX_DEFAULTS_PER_TIMEOUT):
        cur = total.doc or doc
        state = game.decode(cur.engine)
        n = game.next(state)
        seat = next((s for s in n.seats if s in late), None) if isinstance(n, Turn) else None
        if seat is None:
            break
        eff = _apply(cur, Act(seat=seat, action=game.default_action(state, seat)), now_ms,
                     origin={"by": "timeout", "seat": seat})
        if not eff.changed:
            break
        _merge(total, eff)
    return total


def expired_outcome(doc: GameDoc) -> dict[str, Any]:
    """The public outcome of a game ended by its lifetime: nobody placed, nobody rated."""
    return {"status": "expired", "results": [], "tiebreak": "",
            "reason": "the game reached its maximum lifetime"}


def expire(doc: GameDoc, now_ms: int) -> Effects:
    """End a game that reached ``expires_ms`` whatever it waits for (turn, sealed round,
    draw, setup): the normal end path with the ``expired`` outcome. Late answers (a reveal,
    a draw, a timeout) then meet an ended game and change nothing."""
    if doc.stage == "ended" or doc.expires_ms is None or now_ms < doc.expires_ms:
        return Effects()
    new = doc.model_copy(update={"stage": "ended", "seq": doc.seq + 1, "deadline_ms": None,
                                 "ended_ms": now_ms})
    outcome = expired_outcome(doc)
    eff = Effects(doc=new)
    eff.records.append({"type": "game_ended", "outcome": outcome})
    eff.outbound.append((streams.GAME_ENDED, im.GameEnded(
        game_id=doc.game_id, game=doc.game, players=first_players(doc), outcome=outcome,
                handed_over=doc.handed_over)))
    eff.outbound.append((streams.DEALER_IN, im.RevealSeed(game_id=doc.game_id)))
    return eff


def aborted_outcome(reason: str) -> dict[str, Any]:
    """The public outcome of a game an admin ended: nobody placed, nobody rated; the verifier
    treats it like an expired game (rounds may be left open)."""
    return {"status": "aborted", "results": [], "tiebreak": "", "by": "admin",
            "reason": reason}


def end_by_admin(doc: GameDoc, reason: str, now_ms: int) -> Effects:
    """An admin ends a running game: the same end path as ``expire`` with the ``aborted``
    outcome (a typed, public ``game_ended`` entry carrying the reason)."""
    if doc.stage == "ended":
        return Effects()
    outcome = aborted_outcome(reason)
    new = doc.model_copy(update={"stage": "ended", "seq": doc.seq + 1, "deadline_ms": None,
                                 "ended_ms": now_ms, "end_outcome": outcome})
    eff = Effects(doc=new)
    eff.records.append({"type": "game_ended", "outcome": outcome})
    eff.outbound.append((streams.GAME_ENDED, im.GameEnded(
        game_id=doc.game_id, game=doc.game, players=first_players(doc), outcome=outcome,
                handed_over=doc.handed_over)))
    eff.outbound.append((streams.DEALER_IN, im.RevealSeed(game_id=doc.game_id)))
    return eff


def _merge(total: Effects, eff: Effects) -> None:
    total.doc = eff.doc
    total.events += eff.events
    total.log += eff.log
    total.records += eff.records
    total.outbound = eff.outbound  # only the latest node's requests matter
    total.timer_ms = eff.timer_ms


def _apply(doc: GameDoc, move: Move, now_ms: int, origin: dict[str, Any]) -> Effects:
    game = _game(doc)
    result = game.apply(game.decode(doc.engine), move)
    if isinstance(result, Rejection):
        return Effects(reply=im.Reply(game_id=doc.game_id, player_id="", cmd_id="",
                                      ok=False, code=result.code, message=result.message))
    state = result.state
    new = doc.model_copy(update={"engine": game.encode(state), "seq": doc.seq + 1,
                                 "deadline_ms": None})
    eff = Effects(doc=new, events=list(result.events))
    eff.log.append({"seq": new.seq, "move": to_json(move), **origin})
    for ev in result.events:
        if ev.visible_to is None:
            eff.records.append({"type": "event", "seq": new.seq, "event": ev.type,
                                "data": ev.data})
    _request(new, game, game.next(state), eff, now_ms, arm=True)
    if eff.doc is not None and eff.doc.stage == "ended":
        eff.records.append({"type": "game_ended", "outcome": game.score(state).model_dump()})
    return eff


def _request(doc: GameDoc, game: Game, node: Node, eff: Effects, now_ms: int,
             arm: bool) -> None:
    """Outbound requests for the node the game is now at (mutates ``eff``)."""
    if isinstance(node, Chance):
        eff.outbound.append((streams.DEALER_IN, im.DrawRequest(
            game_id=doc.game_id, label=node.label, draw=node.draw, n=node.n, count=node.count,
            client_seeds=doc.client_seeds)))
    elif isinstance(node, Simultaneous):
        slots = [im.SlotSpec(seat=s.seat, player_id=player_at(doc, s.seat), key=s.key,
                             allowed=list(s.allowed) if s.allowed is not None else None,
                             default=s.default, public_keys=list(s.public_keys),
                             context=s.context) for s in node.slots]
        if node.ordered:  # P-S1: each slot its own time; the round's bound covers them all
            per_slot: int | None = doc.round_timeout_ms
            deadline = now_ms + doc.round_timeout_ms * (len(slots) + 1)
        else:
            per_slot, deadline = None, now_ms + doc.round_timeout_ms
        if arm and eff.doc is not None:  # who it waits for, until when ("My games")
            eff.doc = eff.doc.model_copy(update={"deadline_ms": deadline})
        eff.outbound.append((streams.ESC_OPEN, im.OpenRound(
            game_id=doc.game_id, game=doc.game, round_id=node.round_id, slots=slots,
            ordered=node.ordered, deadline_ms=deadline, slot_timeout_ms=per_slot,
            handed=handed_seats(doc), pace=doc.pace)))
    elif isinstance(node, Turn):
        if arm and eff.doc is not None:
            deadline = now_ms + doc.turn_timeout_ms + turns.bank_for(doc, list(node.seats))
            eff.doc = eff.doc.model_copy(update={"deadline_ms": deadline, "armed_ms": now_ms})
            eff.timer_ms = deadline
    elif isinstance(node, Terminal):
        if eff.doc is not None:
            eff.doc = eff.doc.model_copy(update={"stage": "ended", "deadline_ms": None,
                                                 "ended_ms": eff.doc.ended_ms or now_ms})
        outcome = game.score(game.decode(doc.engine))
        eff.outbound.append((streams.GAME_ENDED, im.GameEnded(
            game_id=doc.game_id, game=doc.game, players=first_players(doc),
            outcome=outcome.model_dump(mode="json"), handed_over=doc.handed_over)))
        eff.outbound.append((streams.DEALER_IN, im.RevealSeed(game_id=doc.game_id)))


def player_at(doc: GameDoc, seat: int) -> str:
    """The player the game seats at ``seat`` ("" for no such seat): whose keys sign its acts
    and commits."""
    return doc.players[seat].player_id if 0 <= seat < len(doc.players) else ""


def handed_seats(doc: GameDoc) -> list[int]:
    """The seats handed to a bot (only the bot may act or commit for them)."""
    return sorted({h.seat for h in doc.handed_over})


def first_players(doc: GameDoc) -> list[im.PlayerRef]:
    """The players as seated at the start (a handed-over seat's first player): whom the
    result names and scoring rates."""
    out = list(doc.players)
    for h in reversed(doc.handed_over):
        out[h.seat] = h.player
    return out


def signed_act(msg: im.SubmitAction) -> bytes:
    """The message the seat's session key signed for this act (shared/fairness/signing.py)."""
    return signing.message(msg.game_id, msg.seat, msg.cmd_id, "act",
                           signing.act_body(msg.action, msg.expected_seq))


def node_info(doc: GameDoc, game: Game, node: Node, seat: int | None) -> dict[str, Any]:
    """The public description of the node, with the seat's own sealed slots only."""
    if isinstance(node, Turn):
        info: dict[str, Any] = {"kind": "turn", "seats": list(node.seats),
                                "open_to": list(node.open_to), "deadline_ms": doc.deadline_ms}
        if doc.bank:  # each seat's time bank left (public: every seat's clock is)
            info["time_bank_ms"] = list(doc.bank)
        return info
    if isinstance(node, Simultaneous):
        mine = [to_json(s) for s in node.slots if s.seat == seat]
        return {"kind": "simultaneous", "round_id": node.round_id, "ordered": node.ordered,
                "order": [{"seat": s.seat, "key": s.key} for s in node.slots],
                "my_slots": mine}
    if isinstance(node, Chance):
        return {"kind": "chance", "label": node.label}
    return {"kind": "terminal"}


def pre_game_node(doc: GameDoc, seat: int | None) -> dict[str, Any]:
    if doc.stage == "entropy":
        mine = ([{"seat": seat, "key": f"s{seat}", "allowed": None, "default": ""}]
                if seat is not None else [])
        return {"kind": "simultaneous", "round_id": ENTROPY_ROUND, "ordered": False,
                "order": [{"seat": i, "key": f"s{i}"} for i in range(len(doc.players))],
                "my_slots": mine, "platform": True}
    return {"kind": "setup", "stage": doc.stage}


def render_views(doc: GameDoc, events: list[Event]) -> dict[int | None, dict[str, Any]]:
    """Per-seat (and spectator = None) snapshot payloads for this seq."""
    game = _game(doc)
    state = game.decode(doc.engine)
    playing = doc.stage in ("playing", "ended")
    node: Node | None = game.next(state) if playing else None
    if doc.stage == "ended":  # also a game ended by its lifetime, whatever its engine awaits
        node = Terminal()
    out: dict[int | None, dict[str, Any]] = {}
    seats: list[int | None] = [*range(len(doc.players)), None]
    for seat in seats:
        if node is not None:
            info = node_info(doc, game, node, seat)
            legal = (list(game.legal_actions(state, seat))
                     if seat is not None and isinstance(node, Turn)
                     and (seat in node.seats or seat in node.open_to) else [])
        else:
            info = pre_game_node(doc, seat)
            legal = []
        out[seat] = {
            "seq": doc.seq, "seat": seat, "stage": doc.stage,
            "view": game.view(state, seat), "legal": legal, "node": info,
            "events": client_events(events, seat),
        }
    return out
