"""The dealer's behaviour through its ports (no server): the store and the publisher are the
in-memory fakes of tests/support/fakes (checked against the Redis store in
tests/integration/test_store_contracts.py)."""

from __future__ import annotations

import pytest

from services.dealer import core
from services.dealer.service import Dealer
from shared.fairness import draws
from shared.protocol import internal as im
from shared.protocol import streams
from shared.runtime.settings import Settings
from tests.support.fakes import FakeDealerStore, FakePublisher

pytestmark = pytest.mark.service

SEEDS = ["aa" * 16, "bb" * 16]


def dealer() -> tuple[Dealer, FakeDealerStore, FakePublisher]:
    store, out = FakeDealerStore(), FakePublisher()
    return Dealer(Settings(), store, out), store, out


def draw(label: str, n: int = 10, seeds: list[str] = SEEDS) -> im.DrawRequest:
    return im.DrawRequest(game_id="g-1", label=label, draw="below", n=n, client_seeds=seeds)


async def test_the_seed_is_committed_once_and_a_redelivery_gets_the_same_commitment() -> None:
    d, store, out = dealer()
    await d.on_commit_seed(im.CommitSeed(game_id="g-1", rules_version="r1"))
    await d.on_commit_seed(im.CommitSeed(game_id="g-1", rules_version="r1"))
    first, again = out.bodies("seed_committed")
    assert first["commitment"] == again["commitment"]
    seed = bytes.fromhex(store.hashes["g-1"]["seed"])
    assert first["commitment"] == draws.seed_commitment("g-1", seed)
    assert [e["type"] for e in store.records["g-1"]] == ["seed_committed"]  # one entry
    assert {s for s, _ in out.sent} == {streams.sharded(streams.ADJ_DRAWS, "g-1", 1)}


async def test_draws_come_from_the_game_key_and_a_label_answers_its_first_request() -> None:
    d, store, out = dealer()
    await d.on_commit_seed(im.CommitSeed(game_id="g-1", rules_version="r1"))
    await d.on_draw(draw("deal:1"))
    await d.on_draw(draw("deal:1"))  # the same request again: the same values
    await d.on_draw(draw("deal:1", n=20))  # other inputs for a dealt label: no answer
    made = out.bodies("draw_made")
    assert len(made) == 2 and made[0]["values"] == made[1]["values"]
    assert made[0]["values"] == core.deal(store.hashes["g-1"], draw("deal:1"))


async def test_a_draw_refuses_other_client_seeds_and_a_game_without_seed() -> None:
    d, _, out = dealer()
    await d.on_draw(draw("deal:1"))  # no seed yet
    await d.on_commit_seed(im.CommitSeed(game_id="g-1", rules_version="r1"))
    await d.on_draw(draw("deal:1"))
    await d.on_draw(draw("deal:2", seeds=["cc" * 16]))  # the game key is fixed already
    assert [b["label"] for b in out.bodies("draw_made")] == ["deal:1"]


async def test_the_reveal_is_written_once_with_every_draw_in_order() -> None:
    d, store, out = dealer()
    await d.on_commit_seed(im.CommitSeed(game_id="g-1", rules_version="r1"))
    for label in ("b", "a", "c"):
        await d.on_draw(draw(label))
    await d.dispatch({"type": "reveal_seed", "game_id": "g-1"})
    await d.dispatch({"type": "reveal_seed", "game_id": "g-1"})
    reveals = [e for e in store.records["g-1"] if e["type"] == "seed_revealed"]
    assert len(reveals) == 1 and len(out.bodies("notify")) == 1
    (rev,) = reveals
    assert [x["label"] for x in rev["draws"]] == ["b", "a", "c"]
    assert rev["server_seed"] == store.hashes["g-1"]["seed"] and rev["client_seeds"] == SEEDS
    assert store.ttl_ms["g-1"] > 0


async def test_a_malformed_message_changes_nothing() -> None:
    d, store, out = dealer()
    await d.dispatch({"type": "draw_request", "game_id": "g-1"})
    assert store.hashes == {} and out.sent == []
