"""A seat handed to a bot (services/adjudicator/handover.py) through the adjudicator's and the
escrow's ports: a resignation and a clock run out at an ``on_expiry: "bot"`` table. A game of
duel: seat 0 calls, then every seat picks in a sealed round."""

from __future__ import annotations

import pytest

from services.adjudicator.service import Adjudicator
from shared.protocol import internal as im
from shared.protocol import streams
from shared.runtime.session_keys import SessionKey
from shared.runtime.settings import Settings
from tests.service.test_adjudicator import KEYS, REGISTRY, FakeArchive, act, seq
from tests.service.test_escrow import GID, RID, commit, duel, escrow, replies, reveals, signed
from tests.service.test_escrow import KEYS as ESCROW_KEYS
from tests.service.test_escrow import REGISTRY as ESCROW_REGISTRY
from tests.support.fakes import FakeAdjudicatorStore, FakePublisher

pytestmark = pytest.mark.service

BOT_KEY = SessionKey()
REGISTRY.register("b-bot", BOT_KEY.public)
BOT = im.PlayerRef(player_id="b-bot", name="Heuristic bot", bot="heuristic")


def hand_over(seat: int = 0, frm: str = "p0", to: im.PlayerRef = BOT) -> im.HandOver:
    return im.HandOver(game_id="g", seat=seat, from_player=frm, to=to, reason="resigned",
                       token="seat-token")


async def game(on_expiry: im.OnExpiry = "default"
               ) -> tuple[Adjudicator, FakeAdjudicatorStore, FakePublisher]:
    store, out = FakeAdjudicatorStore(), FakePublisher()
    adj = Adjudicator(Settings(), store, out, FakeArchive(), REGISTRY)
    players = [im.PlayerRef(player_id=f"p{i}", name=f"n{i}") for i in range(2)]
    await adj.dispatch(im.CreateGame(game_id="g", game="duel", options={"rounds": 1},
                                     players=players, client_entropy=False,
                                     on_expiry=on_expiry).model_dump(mode="json"))
    await adj.on_seed(im.SeedCommitted(game_id="g", commitment="c" * 64))
    await adj.on_draw(im.DrawMade(game_id="g", label="setup:first", values=[0]))
    out.sent.clear()
    return adj, store, out


def bot_act(cmd_id: str) -> im.SubmitAction:
    action = {"type": "call", "stake": 2}
    signed = BOT_KEY.sign_act("g", 0, cmd_id, action, None)
    return im.SubmitAction(cmd_id=cmd_id, game_id="g", seat=0, player_id="b-bot",
                           action=action, **signed)


async def test_a_hand_over_gives_the_seat_to_the_bot_and_tells_every_seat() -> None:
    adj, store, out = await game()
    before = await seq(store)
    await adj.dispatch(hand_over().model_dump(mode="json"))
    doc = await store.load("g")
    assert doc is not None and doc.seq == before + 1
    assert doc.players[0] == BOT and doc.handed_over[0].player.player_id == "p0"
    entry = store.records["g"][-1]
    assert entry == {"type": "seat_handed_over", "seq": doc.seq, "seat": 0, "reason": "resigned",
                     "from": {"player_id": "p0", "name": "n0"},
                     "to": {"player_id": "b-bot", "name": "Heuristic bot", "bot": "heuristic"}}
    # every seat and the spectator get a new view at the new seq (the record is public)
    assert all(store.views["g"][s][-1]["seq"] == doc.seq for s in (0, 1, None))
    (seat_bot,) = out.bodies("seat_bot")
    assert (seat_bot["seat"], seat_bot["player_id"], seat_bot["token"]) == (0, "b-bot",
                                                                            "seat-token")
    assert any(s == streams.BOTS_IN for s, _ in out.sent)
    # the turn's clock goes on at the new seq
    assert store.timers.due.get(f"g|{doc.seq}") == doc.deadline_ms


async def test_the_resigned_player_is_refused_and_the_bot_plays_the_seat() -> None:
    adj, store, out = await game()
    await adj.dispatch(hand_over().model_dump(mode="json"))
    at = await seq(store)
    await adj.on_action(act(0, "c1"))  # the player who resigned, with its own valid key
    (reply,) = out.bodies("reply")
    assert (reply["code"], reply["player_id"]) == ("game/seat_handed_over", "p0")
    assert await seq(store) == at
    await adj.on_action(bot_act("b1"))  # the bot, signed with the bot's key
    assert await seq(store) == at + 1 and store.logs["g"][-1]["cmd_id"] == "b1"


async def test_the_old_key_cannot_sign_for_the_bot() -> None:
    adj, store, out = await game()
    await adj.dispatch(hand_over().model_dump(mode="json"))
    at = await seq(store)
    action = {"type": "call", "stake": 2}
    forged = KEYS[0].sign_act("g", 0, "x1", action, None)  # p0's key, the bot's player id
    await adj.on_action(im.SubmitAction(cmd_id="x1", game_id="g", seat=0, player_id="b-bot",
                                        action=action, **forged))
    assert [r["code"] for r in out.bodies("reply")] == ["auth/bad_signature"]
    assert await seq(store) == at


async def test_a_hand_over_twice_is_once() -> None:
    adj, store, out = await game()
    await adj.dispatch(hand_over().model_dump(mode="json"))
    at, records = await seq(store), len(store.records["g"])
    await adj.dispatch(hand_over().model_dump(mode="json"))  # a redelivery or a retry
    assert await seq(store) == at and len(store.records["g"]) == records
    # the bot runner is told again (it keeps one per seat): a crash cannot lose the bot
    assert len(out.bodies("seat_bot")) == 2
    other = im.PlayerRef(player_id="b-other", name="Another bot", bot="heuristic")
    await adj.dispatch(hand_over(to=other).model_dump(mode="json"))  # from p0: stale
    doc = await store.load("g")
    assert doc is not None and doc.players[0] == BOT and len(doc.handed_over) == 1


async def test_no_hand_over_after_the_end() -> None:
    adj, store, out = await game()
    await adj.on_end(im.EndGame(game_id="g", reason="test"))
    at = await seq(store)
    out.sent.clear()
    await adj.dispatch(hand_over().model_dump(mode="json"))
    assert await seq(store) == at and out.bodies("seat_bot") == []


async def test_the_result_names_the_first_players_and_the_handed_seat() -> None:
    adj, _, out = await game()
    await adj.dispatch(hand_over().model_dump(mode="json"))
    await adj.on_end(im.EndGame(game_id="g", reason="test"))
    (ended,) = out.bodies("game_ended")
    assert [p["player_id"] for p in ended["players"]] == ["p0", "p1"]
    (h,) = ended["handed_over"]
    assert (h["seat"], h["player"]["player_id"], h["to"]["player_id"], h["reason"]) == (
        0, "p0", "b-bot", "resigned")


async def test_a_hand_over_during_a_sealed_round_tells_the_escrow() -> None:
    adj, _, out = await game()
    await adj.on_action(act(0, "c1"))  # the call: the sealed pick round opens
    out.sent.clear()
    await adj.dispatch(hand_over(seat=1, frm="p1").model_dump(mode="json"))
    (moved,) = [b for s, b in out.sent if s.startswith("esc:open")]
    assert moved["type"] == "slot_handed_over" and moved["seat"] == 1
    assert moved["player_id"] == "b-bot" and moved["round_id"]


async def test_on_expiry_bot_defaults_the_move_then_asks_the_lobby_for_a_bot() -> None:
    adj, store, out = await game(on_expiry="bot")
    at = await seq(store)
    await adj.on_timeout(im.TurnTimeout(game_id="g", seq=at))
    assert await seq(store) > at  # the default move was applied
    assert store.logs["g"][-1]["by"] == "timeout"
    asks = [b for s, b in out.sent if s == streams.LOBBY_RPC]
    assert [(b["op"], b["seat"], b["from_player"]) for b in asks] == [
        ("hand_over_seat", 0, "p0")]


async def test_on_expiry_default_asks_for_no_bot() -> None:
    adj, store, out = await game()
    await adj.on_timeout(im.TurnTimeout(game_id="g", seq=await seq(store)))
    assert [b for s, b in out.sent if s == streams.LOBBY_RPC] == []


# --- the escrow: an open round's slot handed over ---------------------------------------


@pytest.mark.parametrize("require_signatures", [True, False])
async def test_the_escrow_takes_the_bot_s_commit_for_a_handed_slot_not_the_player_s(
        require_signatures: bool) -> None:
    """Signed or not (a rolling upgrade's window), the player who resigned cannot commit for
    the seat any more; the bot, signing with its own key, can."""
    esc, store, out = escrow(Settings(require_signatures=require_signatures))
    ESCROW_REGISTRY.register("b-bot", BOT_KEY.public)
    spec = duel()
    spec = spec.model_copy(update={"slots": [sl.model_copy(update={"player_id": f"p{sl.seat}"})
                                             for sl in spec.slots]})
    await esc.on_open(spec)
    await esc.on_commit(signed(commit(1, 3), ESCROW_KEYS[1]))
    await esc.dispatch_open(im.SlotHandedOver(game_id=GID, round_id=RID, seat=0,
                                              player_id="b-bot").model_dump(mode="json"))
    mine = commit(0, 7)
    await esc.on_commit(signed(mine, ESCROW_KEYS[0]))  # p0's own key: it resigned
    assert replies(out)[-1][1] in ("auth/bad_signature", "game/seat_handed_over")
    assert await store.commitment(GID, RID, "s0") is None
    bots = mine.model_copy(update={"player_id": "b-bot", "cmd_id": "b0"})
    await esc.on_commit(signed(bots, BOT_KEY))
    assert replies(out)[-1] == (True, None, "s0")
    assert len(reveals(out)) == 1  # both slots in: the round closed
