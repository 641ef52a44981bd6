"""The escrow's functional core: validate a commitment, build the close and reveal records.

FAIRNESS.md §Escrow: the opening arrives sealed to the escrow's key (shared/fairness/seal.py),
bound to the game, round, slot and seat stamped by the gateway; it is opened here, and the
commitment is recomputed from it with that seat and game (never values from the payload); the
choice must be allowed for the slot; in an ordered round the slot must be the next one and the
declared public part must equal the opening's. Nothing here sees another seat's opening
before the round closes, and no opening is ever logged.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from shared.fairness import signing
from shared.fairness.commitments import commitment, commitments_root, default_commitment
from shared.fairness.seal import BadSeal, open_sealed
from shared.protocol import internal as im
from shared.protocol.versions import SEALED_COMMIT_VERSION
from shared.rules import registry
from shared.rules.api import SealedSlot, from_json

_HEX32 = re.compile(r"^[0-9a-f]{64}$")


def new_salts(spec: im.OpenRound) -> dict[str, str]:
    return {s.key: secrets.token_hex(16) for s in spec.slots}


def slot_of(spec: im.OpenRound, key: str) -> im.SlotSpec | None:
    return next((s for s in spec.slots if s.key == key), None)


MAX_SEATS = 12  # seats a table may have (shared/protocol/lobby.py CreateTable.seats)


def handed_field(round_id: str, seat: int) -> str:
    """The round hash's field naming the player a seat was handed to while the round was
    open (services/adjudicator/handover.py)."""
    return f"{round_id}#to{seat}"


def with_handed(spec: im.OpenRound, handed: dict[int, str]) -> im.OpenRound:
    """The spec with the seats handed over while it was open: their slots are the new
    player's (whose session key signs the commit)."""
    if not handed:
        return spec
    slots = [s.model_copy(update={"player_id": handed[s.seat]}) if s.seat in handed else s
             for s in spec.slots]
    return spec.model_copy(update={"slots": slots,
                                   "handed": sorted({*spec.handed, *handed})})


def previous_slot(spec: im.OpenRound, key: str) -> str:
    """In an ordered round, the slot that must be committed before ``key`` ("" if none)."""
    if not spec.ordered:
        return ""
    keys = [s.key for s in spec.slots]
    i = keys.index(key)
    return keys[i - 1] if i > 0 else ""


def choice_allowed(spec: im.OpenRound, slot: im.SlotSpec, choice: Any) -> bool:
    if spec.game == "":  # platform round: the dealer's client-seed contribution
        return choice == "" or (isinstance(choice, str) and bool(_HEX32.match(choice)))
    game = registry.get(spec.game)
    rules_slot = from_json(SealedSlot, slot.model_dump(exclude={"player_id"}))
    return game.check_choice(rules_slot, choice)


def public_part(slot: im.SlotSpec, choice: Any) -> dict[str, Any] | None:
    if not slot.public_keys:
        return None
    if not isinstance(choice, dict):
        return {}
    return {k: choice.get(k) for k in slot.public_keys}


class Opening:
    """A seat's opening, once unsealed: secret until the round closes (no repr, never
    logged)."""

    __slots__ = ("choice", "nonce")

    def __init__(self, choice: Any, nonce: str) -> None:
        self.choice, self.nonce = choice, nonce

    def __repr__(self) -> str:
        return "Opening(<sealed>)"


def unseal(msg: im.CommitChoice, private_hex: str) -> Opening | str:
    """The opening of a commit, or an error code. A v2 commit's opening is sealed to the
    escrow key for exactly this game, round, slot and stamped seat (escrow/bad_seal if it
    does not open so); a v1 entry in clear is one the previous release left pending in
    esc:commits (the upgrade window; the gateway writes only sealed ones now)."""
    if msg.sealed is None:
        if msg.v >= SEALED_COMMIT_VERSION or msg.nonce is None:
            return "escrow/bad_seal"
        return Opening(msg.choice, msg.nonce)
    try:
        choice, nonce = open_sealed(private_hex, msg.game_id, msg.round_id, msg.slot, msg.seat,
                                    msg.sealed)
    except BadSeal:
        return "escrow/bad_seal"
    return Opening(choice, nonce)


def open_commit(spec: im.OpenRound, msg: im.CommitChoice, private_hex: str) -> Opening | str:
    """A commit's opening once every check passed, or the first error code: the slot must be
    the stamped seat's, the opening must unseal for it (escrow/bad_seal), then ``validate``."""
    slot = slot_of(spec, msg.slot)
    if slot is None or slot.seat != msg.seat:
        return "escrow/not_your_slot"
    if slot.seat in spec.handed and slot.player_id and msg.player_id != slot.player_id:
        return "game/seat_handed_over"  # the player resigned: the bot commits for the seat
    opening = unseal(msg, private_hex)
    if isinstance(opening, str):
        return opening
    return validate(spec, msg, opening) or opening


def validate(spec: im.OpenRound, msg: im.CommitChoice, opening: Opening) -> str | None:
    """An error code, or None when the commit is acceptable (order/duplicates are checked
    atomically by the store)."""
    slot = slot_of(spec, msg.slot)
    if slot is None or slot.seat != msg.seat:
        return "escrow/not_your_slot"
    try:
        expected = commitment(msg.game_id, msg.round_id, msg.slot, msg.seat, opening.choice,
                              opening.nonce)
    except ValueError:
        return "escrow/bad_commitment"
    if expected != msg.commitment:
        return "escrow/bad_commitment"
    if not choice_allowed(spec, slot, opening.choice):
        return "escrow/choice_not_allowed"
    if (msg.public or None) != public_part(slot, opening.choice):
        return "escrow/public_mismatch"
    return None


def opened_entry(spec: im.OpenRound, salts: dict[str, str], escrow_key: str
                 ) -> dict[str, Any]:
    """Public: who must commit, in which order, by when, a salted commitment to each
    default, and the escrow's public key the seats seal their openings to. The allowed
    choices are not published: they can reveal hidden holdings."""
    entry: dict[str, Any] = {
        "type": "round_opened", "round_id": spec.round_id, "ordered": spec.ordered,
        "deadline_ms": spec.deadline_ms, "escrow_key": escrow_key,
        "slots": [{"seat": s.seat, "key": s.key,
                   "default_commitment": default_commitment(
                       spec.game_id, spec.round_id, s.key, s.default, salts[s.key])}
                  for s in spec.slots]}
    if timed_slots(spec):
        entry["slot_timeout_ms"] = spec.slot_timeout_ms
    return entry


def timed_slots(spec: im.OpenRound) -> bool:
    """P-S1: a fixed-order round with a time per slot."""
    return spec.ordered and spec.slot_timeout_ms is not None and spec.slot_timeout_ms > 0


def next_slot(spec: im.OpenRound, key: str) -> str | None:
    """In an ordered round, the slot whose turn follows ``key``'s (None after the last)."""
    keys = [s.key for s in spec.slots]
    i = keys.index(key)
    return keys[i + 1] if i + 1 < len(keys) else None


def timed_out_entry(spec: im.OpenRound, slot: im.SlotSpec) -> dict[str, Any]:
    """Public: the slot's own time passed (P-S1); its default stands. The default's public
    part is shown to the later seats as a committed choice's would be; the rest of the
    default stays sealed until the reveal."""
    return {"type": "slot_timed_out", "round_id": spec.round_id, "slot": slot.key,
            "seat": slot.seat, "public": public_part(slot, slot.default)}


def signed_commit(msg: im.CommitChoice) -> bytes | None:
    """The message the seat's session key signed for this commit (shared/fairness/signing.py);
    None for a v1 entry in clear (no sealed text to sign)."""
    if msg.sealed is None:
        return None
    return signing.message(msg.game_id, msg.seat, msg.cmd_id, "commit", signing.commit_body(
        msg.round_id, msg.slot, msg.commitment, signing.sealed_digest(msg.sealed), msg.public))


def seat_slots(spec: im.OpenRound, seat: int) -> list[str]:
    """The keys of the round's slots that belong to ``seat``."""
    return [s.key for s in spec.slots if s.seat == seat]


def committed_entry(msg: im.CommitChoice, slot: im.SlotSpec, opening: Opening
                    ) -> dict[str, Any]:
    entry = {"type": "committed", "round_id": msg.round_id, "slot": msg.slot,
             "seat": msg.seat, "commitment": msg.commitment,
             "public": public_part(slot, opening.choice)}
    if msg.sig is not None and msg.sealed is not None:  # who committed, for the verifier
        entry.update(cmd_id=msg.cmd_id, sealed_sha256=signing.sealed_digest(msg.sealed),
                     key=msg.key, sig=msg.sig)
    return entry


def reveal(spec: im.OpenRound, openings: dict[str, dict[str, Any]],
           commitments: dict[str, str], salts: dict[str, str]
           ) -> tuple[dict[str, Any], dict[str, Any], im.RoundRevealed]:
    """(closed entry, revealed entry, message to the adjudicator). Missing slots default."""
    defaulted = [s.key for s in spec.slots if s.key not in openings]
    root = commitments_root(sorted(commitments.items()))
    closed = {"type": "round_closed", "round_id": spec.round_id, "root": root,
              "defaulted": defaulted}
    rows = []
    choices: dict[str, Any] = {}
    for s in spec.slots:
        o = openings.get(s.key)
        choice = o["choice"] if o is not None else s.default
        choices[s.key] = choice
        row = {"slot": s.key, "seat": s.seat, "choice": choice,
               "nonce": o["nonce"] if o is not None else None,
               "commitment": commitments.get(s.key), "defaulted": o is None}
        if o is None:  # the default was used: open its commitment
            row["default_salt"] = salts.get(s.key)
        rows.append(row)
    revealed = {"type": "round_revealed", "round_id": spec.round_id, "openings": rows}
    msg = im.RoundRevealed(game_id=spec.game_id, round_id=spec.round_id, choices=choices,
                           defaulted=defaulted)
    return closed, revealed, msg
