"""The adjudicator's behaviour through its ports (no server): its store and publisher are the
in-memory fakes of tests/support/fakes (checked against the Redis store in
tests/integration/test_store_contracts.py). A game of duel: the seed, the first-seat draw,
then seat 0's call."""

from __future__ import annotations

from typing import Any

import pytest

from services.adjudicator.service import Adjudicator
from shared.protocol import internal as im
from shared.protocol import streams
from shared.runtime.archive import Archive
from shared.runtime.session_keys import SessionKey
from shared.runtime.settings import Settings
from tests.support.fakes import FakeAdjudicatorStore, FakeKeyRegistry, FakePublisher

pytestmark = pytest.mark.service

CALL = {"type": "call", "stake": 2}
# each seat's player signs its acts with a session key the lobby registered
KEYS = [SessionKey(), SessionKey()]
REGISTRY = FakeKeyRegistry()
for _i, _k in enumerate(KEYS):
    REGISTRY.register(f"p{_i}", _k.public)


class FakeArchive:
    def __init__(self) -> None:
        self.docs: dict[str, dict[str, Any]] = {}

    async def put(self, game_id: str, doc: dict[str, Any]) -> None:
        self.docs[game_id] = doc

    async def get(self, game_id: str) -> dict[str, Any] | None:
        return self.docs.get(game_id)


def adjudicator(store: FakeAdjudicatorStore | None = None
                ) -> tuple[Adjudicator, FakeAdjudicatorStore, FakePublisher]:
    store, out = store or FakeAdjudicatorStore(), FakePublisher()
    archive: Archive = FakeArchive()
    return Adjudicator(Settings(), store, out, archive, REGISTRY), store, out


async def seat_zero_to_act() -> tuple[Adjudicator, FakeAdjudicatorStore, FakePublisher]:
    adj, store, out = adjudicator()
    players = [im.PlayerRef(player_id=f"p{i}", name=f"n{i}") for i in range(2)]
    await adj.dispatch(im.CreateGame(game_id="g", game="duel", options={"rounds": 1},
                                     players=players, client_entropy=False
                                     ).model_dump(mode="json"))
    await adj.on_seed(im.SeedCommitted(game_id="g", commitment="c" * 64))
    await adj.on_draw(im.DrawMade(game_id="g", label="setup:first", values=[0]))
    out.sent.clear()
    return adj, store, out


def act(seat: int, cmd_id: str, action: Any = None, key: SessionKey | None = None
        ) -> im.SubmitAction:
    """Seat ``seat``'s act, signed by its player's key (or by ``key``)."""
    action = CALL if action is None else action
    signed = (key or KEYS[seat]).sign_act("g", seat, cmd_id, action, None)
    return im.SubmitAction(cmd_id=cmd_id, game_id="g", seat=seat, player_id=f"p{seat}",
                           action=action, **signed)


async def seq(store: FakeAdjudicatorStore) -> int:
    doc = await store.load("g")
    assert doc is not None
    return doc.seq


async def test_a_create_commits_the_game_and_asks_the_dealer_for_its_seed() -> None:
    adj, store, out = adjudicator()
    players = [im.PlayerRef(player_id=f"p{i}", name=f"n{i}") for i in range(2)]
    create = im.CreateGame(game_id="g", game="duel", options={"rounds": 1}, players=players,
                           client_entropy=False)
    await adj.on_create(create)
    await adj.on_create(create)  # redelivered: nothing twice
    assert [e["type"] for e in store.records["g"]].count("game_created") == 1
    assert [b["type"] for s, b in out.sent if s.startswith("dealer:in")] == ["commit_seed"] * 2
    assert "g|expire" in store.timers.due  # the game's lifetime


async def test_an_action_is_applied_with_its_command_id_in_the_seat_s_view() -> None:
    adj, store, out = await seat_zero_to_act()
    before = await seq(store)
    await adj.on_action(act(0, "c1"))
    assert await seq(store) == before + 1
    assert store.logs["g"][-1]["cmd_id"] == "c1" and store.logs["g"][-1]["seat"] == 0
    assert store.views["g"][0][-1]["cmd_ids"] == ["c1"]  # the acting seat sees its receipt
    assert "cmd_ids" not in store.views["g"][1][-1]
    assert out.bodies("reply") == []  # no refusal
    # the sealed round that follows the call goes to the escrow
    assert [b["type"] for s, b in out.sent if s.startswith("esc:open")] == ["open_round"]


async def test_an_action_out_of_turn_is_refused_and_changes_nothing() -> None:
    adj, store, out = await seat_zero_to_act()
    before, records = await seq(store), len(store.records["g"])
    await adj.on_action(act(1, "c1"))
    (reply,) = out.bodies("reply")
    assert (reply["ok"], reply["code"], reply["player_id"]) == (False, "action/not_your_turn",
                                                                "p1")
    assert await seq(store) == before and len(store.records["g"]) == records
    assert "c1" in store.refusals[("g", 1)]
    await adj.on_action(act(1, "c1"))  # the refused id again: a replay, refused as one
    assert [r["code"] for r in out.bodies("reply")] == ["action/not_your_turn",
                                                        "command/duplicate"]


async def test_a_command_id_applies_once_and_its_replay_is_answered_duplicate() -> None:
    adj, store, out = await seat_zero_to_act()
    await adj.on_action(act(0, "c1"))
    after, log = await seq(store), len(store.logs["g"])
    out.sent.clear()
    await adj.on_action(act(0, "c1"))  # a redelivery, or the client re-sending it
    assert await seq(store) == after and len(store.logs["g"]) == log
    (reply,) = out.bodies("reply")
    assert (reply["code"], reply["cmd_id"]) == ("command/duplicate", "c1")
    # what the first delivery implied is sent again (a crash may have cut it short)
    assert [b["type"] for s, b in out.sent if s.startswith("esc:open")] == ["open_round"]


async def test_command_ids_belong_to_their_seat() -> None:
    adj, store, out = await seat_zero_to_act()
    await adj.on_action(act(1, "c1"))  # seat 1 burns "c1" on a refusal
    await adj.on_action(act(0, "c1"))  # seat 0's own "c1" still applies
    assert store.logs["g"][-1]["cmd_id"] == "c1"
    assert [r["code"] for r in out.bodies("reply")] == ["action/not_your_turn"]


async def test_a_replica_deciding_on_a_stale_document_retries_on_the_stored_one() -> None:
    a, store, _ = await seat_zero_to_act()
    b, _, _ = adjudicator(store)  # a second replica on the same store
    stale = await store.load("g")
    assert stale is not None
    await a.on_action(act(0, "c1"))
    b.store._cache["g"] = stale  # type: ignore[attr-defined]  # b's cache is behind
    await b.on_action(act(0, "c2"))  # the same seat again: refused on the stored document
    assert [e["cmd_id"] for e in store.logs["g"] if e.get("cmd_id")] == ["c1"]


async def test_a_malformed_input_changes_nothing() -> None:
    adj, store, out = adjudicator()
    await adj.dispatch({"type": "submit_action", "game_id": "g"})
    await adj.on_action(act(0, "c1"))  # no such game
    assert store.docs == {} and [r["code"] for r in out.bodies("reply")] == ["game/not_found"]
    # only the game's fan-out shard (read by the gateways watching it)
    assert all(s == streams.updates_for("g", adj.settings.gw_shards) for s, _ in out.sent)


async def test_a_forged_act_is_refused_bad_signature_and_changes_nothing() -> None:
    """Signed acts: whoever writes the action stream (the gateway's password) cannot act
    for a seat without its player's registered key: unsigned, signed by an unregistered key,
    or by the other seat's player, each refused auth/bad_signature, nothing applied or kept."""
    adj, store, out = await seat_zero_to_act()
    before, log = await seq(store), len(store.logs["g"])
    bare = act(0, "f1").model_copy(update={"key": None, "sig": None})
    await adj.on_action(bare)
    await adj.on_action(act(0, "f2", key=SessionKey()))  # a key nobody registered
    await adj.on_action(act(0, "f3", key=KEYS[1]))  # the other seat's player's key
    tampered = act(0, "f4").model_copy(update={"action": {"type": "call", "stake": 3}})
    await adj.on_action(tampered)  # the signed action changed on the way
    assert [r["code"] for r in out.bodies("reply")] == ["auth/bad_signature"] * 4
    assert await seq(store) == before and len(store.logs["g"]) == log
    await adj.on_action(act(0, "f1"))  # a refused forgery burns no id: the real one applies
    assert store.logs["g"][-1]["cmd_id"] == "f1"
