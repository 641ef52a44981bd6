"""The duel's round count: up to 1,000 (the bench's long match plays 512 rounds of one game,
bench/longmatch.py); past it, or under 1, the options are refused."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from shared.rules.duel import DuelOptions

pytestmark = pytest.mark.unit


def test_a_duel_may_have_up_to_1000_rounds() -> None:
    assert DuelOptions.model_validate({"rounds": 1000}).rounds == 1000
    assert DuelOptions.model_validate({"rounds": 512, "with_turns": False,
                                       "with_dice": False}).rounds == 512


@pytest.mark.parametrize("rounds", [0, 1001, 10**9])
def test_a_round_count_out_of_bounds_is_refused(rounds: int) -> None:
    with pytest.raises(ValidationError):
        DuelOptions.model_validate({"rounds": rounds})
