"""The escrow's pure checks: stamped seat, commitment, allowed choice, public part."""

from __future__ import annotations

import pytest

from services.escrow import core
from shared.fairness.commitments import commitment, new_nonce
from shared.protocol import internal as im

pytestmark = pytest.mark.unit


def spec(ordered: bool = False, public_keys: list[str] | None = None) -> im.OpenRound:
    return im.OpenRound(game_id="g", game="duel", round_id="pick:1", ordered=ordered,
                        deadline_ms=0, slots=[
                            im.SlotSpec(seat=0, key="s0", allowed=list(range(10)), default=0,
                                        public_keys=public_keys or []),
                            im.SlotSpec(seat=1, key="s1", allowed=list(range(10)), default=0)])


def commit(seat: int, slot: str, choice: object, *, c_seat: int | None = None,
           public: dict[str, object] | None = None) -> im.CommitChoice:
    nonce = new_nonce()
    c = commitment("g", "pick:1", slot, seat if c_seat is None else c_seat, choice, nonce)
    return im.CommitChoice(cmd_id="k", game_id="g", seat=seat, player_id="p", round_id="pick:1",
                           slot=slot, commitment=c, choice=choice, nonce=nonce, public=public)


def test_accepts_a_correct_commitment() -> None:
    assert core.validate(spec(), commit(0, "s0", 7)) is None


def test_forged_seat_other_slot() -> None:
    assert core.validate(spec(), commit(0, "s1", 7)) == "escrow/not_your_slot"


def test_commitment_computed_for_another_seat_is_refused() -> None:
    # a client copying seat 1's commitment: the escrow recomputes with the stamped seat 0
    assert core.validate(spec(), commit(0, "s0", 7, c_seat=1)) == "escrow/bad_commitment"


def test_choice_not_allowed() -> None:
    assert core.validate(spec(), commit(0, "s0", 12)) == "escrow/choice_not_allowed"


def test_public_part_must_match_the_opening() -> None:
    choices: list[object] = [{"engine": e, "value": v} for e in "LR" for v in (1, 2)]
    sp = im.OpenRound(game_id="g", game="duel", round_id="pick:1", ordered=True, deadline_ms=0,
                      slots=[im.SlotSpec(seat=0, key="s0", allowed=choices,
                                         default=choices[0], public_keys=["engine"])])
    good = commit(0, "s0", {"engine": "L", "value": 2}, public={"engine": "L"})
    lying = commit(0, "s0", {"engine": "L", "value": 2}, public={"engine": "R"})
    missing = commit(0, "s0", {"engine": "L", "value": 2})
    assert core.validate(sp, good) is None
    assert core.validate(sp, lying) == "escrow/public_mismatch"
    assert core.validate(sp, missing) == "escrow/public_mismatch"


def test_previous_slot_in_ordered_round() -> None:
    assert core.previous_slot(spec(ordered=True), "s1") == "s0"
    assert core.previous_slot(spec(ordered=True), "s0") == ""
    assert core.previous_slot(spec(), "s1") == ""


def test_platform_entropy_round_accepts_32_bytes_hex_or_nothing() -> None:
    s = im.OpenRound(game_id="g", game="", round_id="entropy", deadline_ms=0,
                     slots=[im.SlotSpec(seat=0, key="s0", default="")])
    assert core.choice_allowed(s, s.slots[0], "ab" * 32)
    assert core.choice_allowed(s, s.slots[0], "")
    assert not core.choice_allowed(s, s.slots[0], "ab")
    assert not core.choice_allowed(s, s.slots[0], 5)


def test_reveal_defaults_missing_slots_and_roots_commitments() -> None:
    sp = spec()
    salts = core.new_salts(sp)
    closed, revealed, msg = core.reveal(sp, {"s0": {"choice": 4, "nonce": "aa"}}, {"s0": "c0"},
                                        salts)
    assert msg.choices == {"s0": 4, "s1": 0} and msg.defaulted == ["s1"]
    assert closed["defaulted"] == ["s1"]
    rows = {r["slot"]: r for r in revealed["openings"]}
    assert rows["s1"]["defaulted"] and rows["s1"]["nonce"] is None
    assert rows["s1"]["default_salt"] == salts["s1"] and "default_salt" not in rows["s0"]
    opened = core.opened_entry(sp, salts)
    assert "allowed" not in str(opened) and "context" not in str(revealed)
