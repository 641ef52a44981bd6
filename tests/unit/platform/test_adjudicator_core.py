"""The adjudicator's pure core, driven with the reference game (duel)."""

from __future__ import annotations

import pytest

from services.adjudicator import core
from shared.protocol import internal as im
from shared.protocol import streams
from shared.rules import registry
from shared.rules.replay import RulesVersionMismatch

pytestmark = pytest.mark.unit
PLAYERS = [im.PlayerRef(player_id="p0", name="a"), im.PlayerRef(player_id="p1", name="b")]


def playing_doc(entropy: bool = False) -> core.GameDoc:
    eff = core.create(im.CreateGame(game_id="g1", game="duel", options={"rounds": 2},
                                    players=PLAYERS, client_entropy=entropy))
    assert eff.doc is not None and eff.outbound[0][0] == streams.DEALER_IN
    eff = core.on_seed_committed(eff.doc, im.SeedCommitted(game_id="g1", commitment="c"), 0)
    assert eff.doc is not None
    doc = eff.doc
    # the engine asks for its first draw
    assert isinstance(eff.outbound[-1][1], im.DrawRequest)
    eff = core.on_draw(doc, im.DrawMade(game_id="g1", label="setup:first", values=[0]), 0)
    assert eff.doc is not None
    return eff.doc


def act(doc: core.GameDoc, seat: int, action: object, seq: int | None = None) -> core.Effects:
    return core.on_action(doc, im.SubmitAction(cmd_id="c1", game_id="g1", seat=seat,
                                               player_id=f"p{seat}", expected_seq=seq,
                                               action=action), 1000)


def test_entropy_round_precedes_play_and_feeds_client_seeds() -> None:
    eff = core.create(im.CreateGame(game_id="g1", game="duel", players=PLAYERS))
    assert eff.doc is not None
    eff = core.on_seed_committed(eff.doc, im.SeedCommitted(game_id="g1", commitment="c"), 0)
    assert eff.doc is not None and eff.doc.stage == "entropy"
    opened = eff.outbound[0][1]
    assert isinstance(opened, im.OpenRound) and opened.round_id == core.ENTROPY_ROUND
    seeds = {"s0": "ab" * 32, "s1": ""}
    eff = core.on_revealed(eff.doc, im.RoundRevealed(game_id="g1", round_id="entropy",
                                                     choices=seeds), 0)
    assert eff.doc is not None and eff.doc.client_seeds == ["ab" * 32, ""]
    draw = eff.outbound[-1][1]
    assert isinstance(draw, im.DrawRequest) and draw.client_seeds == ["ab" * 32, ""]


def test_legal_action_advances_seq_and_opens_the_sealed_round() -> None:
    doc = playing_doc()
    eff = act(doc, 0, {"type": "call", "stake": 2}, seq=doc.seq)
    assert eff.doc is not None and eff.doc.seq == doc.seq + 1 and eff.reply is None
    base, msg = eff.outbound[-1]
    assert base == streams.ESC_OPEN and isinstance(msg, im.OpenRound)
    assert [s.key for s in msg.slots] == ["s0", "s1"]


@pytest.mark.parametrize(("seat", "action", "seq_delta", "code"), [
    (1, {"type": "call", "stake": 1}, 0, "action/not_your_turn"),
    (0, {"type": "call", "stake": 9}, 0, "action/illegal"),
    (0, {"type": "nonsense"}, 0, "action/malformed"),
    (0, {"type": "call", "stake": 1}, -1, "action/stale_seq"),
])
def test_refusals_are_typed_and_change_nothing(seat: int, action: object, seq_delta: int,
                                               code: str) -> None:
    doc = playing_doc()
    eff = act(doc, seat, action, seq=doc.seq + seq_delta)
    assert not eff.changed
    assert eff.reply is not None and eff.reply.code == code and not eff.reply.ok


def test_refusals_come_from_the_rules_kit_with_the_callers_ids() -> None:
    doc = playing_doc()
    eff = act(doc, 0, {"type": "call", "stake": 1})
    assert eff.doc is not None  # a sealed round is open now: no seat may act
    eff = act(eff.doc, 1, {"type": "call", "stake": 1})
    assert not eff.changed and eff.reply is not None
    assert (eff.reply.code, eff.reply.cmd_id, eff.reply.player_id) == (
        "action/wrong_phase", "c1", "p1")


def test_a_game_goes_on_only_with_the_rules_version_it_began_with() -> None:
    doc = playing_doc()
    assert doc.rules_version == registry.get("duel").rules_version
    older = doc.model_copy(update={"rules_version": "0"})
    with pytest.raises(RulesVersionMismatch):
        act(older, 0, {"type": "call", "stake": 1})
    with pytest.raises(RulesVersionMismatch):
        core.render_views(older, [])
    unknown = doc.model_copy(update={"rules_version": None})  # stored before it was kept
    assert act(unknown, 0, {"type": "call", "stake": 1}).changed


def test_timeout_applies_the_default_only_for_the_current_seq() -> None:
    doc = playing_doc()
    assert not core.on_timeout(doc, im.TurnTimeout(game_id="g1", seq=doc.seq - 1), 0).changed
    eff = core.on_timeout(doc, im.TurnTimeout(game_id="g1", seq=doc.seq), 0)
    assert eff.doc is not None and eff.log[-1]["by"] == "timeout"


def test_duplicate_answers_are_ignored() -> None:
    doc = playing_doc()
    again = core.on_draw(doc, im.DrawMade(game_id="g1", label="setup:first", values=[1]), 0)
    assert not again.changed
    stray = core.on_revealed(doc, im.RoundRevealed(game_id="g1", round_id="pick:9",
                                                   choices={}), 0)
    assert not stray.changed


def test_views_carry_only_own_slots_and_public_events() -> None:
    doc = playing_doc()
    eff = act(doc, 0, {"type": "call", "stake": 1})
    assert eff.doc is not None
    views = core.render_views(eff.doc, eff.events)
    assert [s["seat"] for s in views[0]["node"]["my_slots"]] == [0]
    assert [s["seat"] for s in views[1]["node"]["my_slots"]] == [1]
    assert views[None]["node"]["my_slots"] == []
    assert views[None]["legal"] == [] and views[1]["legal"] == []
