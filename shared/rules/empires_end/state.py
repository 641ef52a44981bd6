"""Frozen state models for Empire's End (tuples only, updated with ``model_copy``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from shared.rules._kit.model import Frozen
from shared.rules.api import Json
from shared.rules.empires_end.data import RESOURCES, Bundle, Resource


class Options(Frozen):
    """Variant flags; the defaults are the recommended rulings."""

    random_first_player: bool = Field(
        True,
        title="Random first player",
        description=(
            "EEND-1: the dealer picks the first player at random; off = the first seat starts."
        ),
    )
    low_resources_rule: bool = Field(
        True,
        title="Low resources rule",
        description=(
            "EEND-9: a player with fewer than 5 resources reveals them and buys coins "
            "at 2 VP each up to 5 (VP may go below 0)."
        ),
    )
    reshuffle_discards: bool = Field(
        True,
        title="Reshuffle the discards",
        description=(
            "EEND-19: an empty deck is rebuilt from the discards; off = drawing simply stops."
        ),
    )


class Res(Frozen):
    """A stash of tokens. Supplies are unlimited (EEND-20)."""

    wheat: int = 0
    hammer: int = 0
    axe: int = 0
    coin: int = 0

    def get(self, r: Resource) -> int:
        return int(getattr(self, r))

    def plus(self, r: Resource, n: int = 1) -> Res:
        return self.model_copy(update={r: self.get(r) + n})

    def add(self, other: Res) -> Res:
        return Res.model_construct(
            wheat=self.wheat + other.wheat,
            hammer=self.hammer + other.hammer,
            axe=self.axe + other.axe,
            coin=self.coin + other.coin,
        )

    def add_bundle(self, bundle: Bundle, times: int = 1) -> Res:
        out = self
        for r, n in bundle:
            out = out.plus(r, n * times)
        return out

    def total(self) -> int:
        return self.wheat + self.hammer + self.axe + self.coin

    def as_dict(self) -> dict[str, Json]:
        return {r: self.get(r) for r in RESOURCES}


def bundle_res(bundle: Bundle, times: int = 1) -> Res:
    return Res().add_bundle(bundle, times)


class Innovation(Frozen):
    card: str
    exhausted: bool = False


class Location(Frozen):
    tile: str
    healthy: bool = True
    innovations: tuple[Innovation, ...] = ()


class Player(Frozen):
    res: Res
    vp: int = 0
    empire: tuple[Location, ...]  # left to right; position 1 = index 0
    hand: tuple[str, ...] = ()


class DisasterSlot(Frozen):
    """One disaster of the phase. ``card`` None and not closed = waiting to be revealed."""

    card: str | None = None
    pool: Res = Res()  # the public bids on it (EEND-21)
    closed: bool = False


class Resolution(Frozen):
    """A take being resolved by ``seat``: destroy, place the innovation, low resources."""

    seat: int
    card: str
    target: int  # 0-based position
    stage: Literal["destroy", "place", "shore"]
    choices: tuple[str, ...] = ()  # tile ids (destroy/place) the seat chooses between


class DisasterPhase(Frozen):
    slots: tuple[DisasterSlot, ...]
    bidder: int
    addressed: tuple[int, ...] = ()  # slot indices the bidder has bid on/taken this turn
    resolution: Resolution | None = None


class ConvLeft(Frozen):
    source: str  # tile or card id of a conversion ability
    left: int


SubPhase = Literal["economy", "industry"]


class SeatWork(Frozen):
    """One seat's progress through a simultaneous Economy/Industry phase (EEND-22)."""

    stage: Literal["choose", "economy", "industry", "done"]
    todo: tuple[SubPhase, ...] = ()  # sub-phases still to do after the current one
    conv: tuple[ConvLeft, ...] = ()  # economy: conversions left
    repeats: tuple[str, ...] = ()  # economy: repeat abilities not used yet
    acts: int = 0  # industry: builds + sells done (EEND-11)
    repaired: bool = False  # industry: one repair per phase (EEND-13)
    used: tuple[str, ...] = ()  # industry abilities used this phase
    discarded: bool = False  # industry: the optional discard of both cards


class State(Frozen):
    n: int
    options: Options
    track: tuple[str, ...]
    setup_step: int = 0  # 0 order, 1 first player, 2 disaster deck, 3 conflict deck, 4 done
    phase_index: int = -1  # -1 = setup; len(track) = game over
    order: tuple[str, ...] = ()  # the shared starting arrangement (EEND-2)
    first: int = 0  # first-player marker
    players: tuple[Player, ...] = ()
    deck: tuple[str, ...] = ()  # disaster deck, top first (hidden)
    discard: tuple[str, ...] = ()  # disaster discard pile
    conflict_deck: tuple[str, ...] = ()
    conflict_discard: tuple[str, ...] = ()
    conflict_card: str | None = None
    disaster: DisasterPhase | None = None
    work: tuple[SeatWork, ...] = ()
    draw_queue: tuple[int, ...] = ()  # seats still drawing up to 4 after an Industry phase
    reshuffles: int = 0  # EEND-19

    @property
    def phase(self) -> str:
        if self.phase_index < 0:
            return "setup"
        if self.phase_index >= len(self.track):
            return "end"
        return self.track[self.phase_index]

    def player(self, seat: int) -> Player:
        return self.players[seat]

    def with_player(self, seat: int, player: Player) -> State:
        players = list(self.players)
        players[seat] = player
        return self.model_copy(update={"players": tuple(players)})

    def with_work(self, seat: int, work: SeatWork) -> State:
        items = list(self.work)
        items[seat] = work
        return self.model_copy(update={"work": tuple(items)})
