"""The escrow's pure checks: the sealed opening, stamped seat, commitment,
allowed choice, public part."""

from __future__ import annotations

import pytest

from services.escrow import core
from shared.fairness.commitments import commitment, new_nonce
from shared.fairness.seal import new_private_key, public_key, seal_opening
from shared.protocol import internal as im

pytestmark = pytest.mark.unit


def spec(ordered: bool = False, public_keys: list[str] | None = None) -> im.OpenRound:
    return im.OpenRound(game_id="g", game="duel", round_id="pick:1", ordered=ordered,
                        deadline_ms=0, slots=[
                            im.SlotSpec(seat=0, key="s0", allowed=list(range(10)), default=0,
                                        public_keys=public_keys or []),
                            im.SlotSpec(seat=1, key="s1", allowed=list(range(10)), default=0)])


KEY = new_private_key()


def commit(seat: int, slot: str, choice: object, *, c_seat: int | None = None,
           public: dict[str, object] | None = None, seal_for: tuple[str, str, str, int] | None
           = None, key: str = KEY) -> im.CommitChoice:
    """A v2 commit, its opening sealed to ``key`` for (game, round, slot, seat) = ``seal_for``
    (default: exactly this commit's)."""
    nonce = new_nonce()
    c = commitment("g", "pick:1", slot, seat if c_seat is None else c_seat, choice, nonce)
    g, r, sl, st = seal_for or ("g", "pick:1", slot, seat)
    sealed = seal_opening(public_key(key), g, r, sl, st, choice, nonce)
    return im.CommitChoice(cmd_id="k", game_id="g", seat=seat, player_id="p", round_id="pick:1",
                           slot=slot, commitment=c, sealed=sealed, public=public)


class _Core:
    """core.open_commit (slot, unseal, validate), as the escrow's on_commit runs it."""

    @staticmethod
    def validate(sp: im.OpenRound, msg: im.CommitChoice) -> str | None:
        opening = core.open_commit(sp, msg, KEY)
        return opening if isinstance(opening, str) else None


def test_an_opening_sealed_for_another_slot_seat_game_round_or_key_is_refused() -> None:
    for other in (("g", "pick:1", "s1", 0), ("g", "pick:1", "s0", 1), ("h", "pick:1", "s0", 0),
                  ("g", "pick:2", "s0", 0)):
        assert _Core.validate(spec(), commit(0, "s0", 7, seal_for=other)) == "escrow/bad_seal"
    assert _Core.validate(spec(), commit(0, "s0", 7, key=new_private_key())) == \
        "escrow/bad_seal"
    good = commit(0, "s0", 7)
    assert good.sealed is not None
    for bad in (good.sealed[:-8] + "AAAAAAA=", "A" * 64, "not base64!" * 8):
        assert _Core.validate(spec(), good.model_copy(update={"sealed": bad})) == \
            "escrow/bad_seal"


def test_an_opening_in_clear_is_only_a_previous_release_entry() -> None:
    nonce = new_nonce()
    c = commitment("g", "pick:1", "s0", 0, 7, nonce)
    old = im.CommitChoice(v=1, cmd_id="k", game_id="g", seat=0, player_id="p",
                          round_id="pick:1", slot="s0", commitment=c, choice=7, nonce=nonce)
    assert _Core.validate(spec(), old) is None  # pending in esc:commits across the upgrade
    assert _Core.validate(spec(), old.model_copy(update={"v": 2})) == "escrow/bad_seal"
    with pytest.raises(ValueError):
        im.CommitChoice(cmd_id="k", game_id="g", seat=0, player_id="p", round_id="pick:1",
                        slot="s0", commitment=c, sealed="A" * 64, choice=7, nonce=nonce)


def test_an_unsealed_opening_never_shows_in_a_repr() -> None:
    opening = core.unseal(commit(0, "s0", 7), KEY)
    assert isinstance(opening, core.Opening) and opening.choice == 7
    assert opening.nonce not in repr(opening) and "7" not in repr(opening)


def test_accepts_a_correct_commitment() -> None:
    assert _Core.validate(spec(), commit(0, "s0", 7)) is None


def test_forged_seat_other_slot() -> None:
    assert _Core.validate(spec(), commit(0, "s1", 7)) == "escrow/not_your_slot"


def test_commitment_computed_for_another_seat_is_refused() -> None:
    # a client copying seat 1's commitment: the escrow recomputes with the stamped seat 0
    assert _Core.validate(spec(), commit(0, "s0", 7, c_seat=1)) == "escrow/bad_commitment"


def test_choice_not_allowed() -> None:
    assert _Core.validate(spec(), commit(0, "s0", 12)) == "escrow/choice_not_allowed"


def test_public_part_must_match_the_opening() -> None:
    choices: list[object] = [{"engine": e, "value": v} for e in "LR" for v in (1, 2)]
    sp = im.OpenRound(game_id="g", game="duel", round_id="pick:1", ordered=True, deadline_ms=0,
                      slots=[im.SlotSpec(seat=0, key="s0", allowed=choices,
                                         default=choices[0], public_keys=["engine"])])
    good = commit(0, "s0", {"engine": "L", "value": 2}, public={"engine": "L"})
    lying = commit(0, "s0", {"engine": "L", "value": 2}, public={"engine": "R"})
    missing = commit(0, "s0", {"engine": "L", "value": 2})
    assert _Core.validate(sp, good) is None
    assert _Core.validate(sp, lying) == "escrow/public_mismatch"
    assert _Core.validate(sp, missing) == "escrow/public_mismatch"


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
    opened = core.opened_entry(sp, salts, public_key(KEY))
    assert "allowed" not in str(opened) and "context" not in str(revealed)
    assert opened["escrow_key"] == public_key(KEY)
