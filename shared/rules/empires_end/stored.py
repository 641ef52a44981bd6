"""The stored form of a state: the JSON of ``GAME.encode`` and what ``GAME.decode`` reads.

These frozen models are the schema of stored games (the adjudicator's documents, the upgrade
fixtures): ``encode`` builds them from a ``state.State`` and dumps them, ``decode`` validates
JSON with them and builds the plain state. The rules never see them.
"""

from __future__ import annotations

from typing import Literal

from shared.rules._kit.model import Frozen
from shared.rules.empires_end import state as st
from shared.rules.empires_end.build import build
from shared.rules.empires_end.state import Options, Stage, SubPhase


class Res(Frozen):
    """A stash of tokens. Supplies are unlimited (EEND-20)."""

    wheat: int = 0
    hammer: int = 0
    axe: int = 0
    coin: int = 0


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
    empire: tuple[Location, ...]
    hand: tuple[str, ...] = ()


class DisasterSlot(Frozen):
    """One disaster of the phase. ``card`` None and not closed = waiting to be revealed."""

    card: str | None = None
    pool: Res = Res()
    closed: bool = False


class Resolution(Frozen):
    """A take being resolved by ``seat``: destroy, place the innovation, low resources."""

    seat: int
    card: str
    target: int
    stage: Literal["destroy", "place", "shore"]
    choices: tuple[str, ...] = ()


class DisasterPhase(Frozen):
    slots: tuple[DisasterSlot, ...]
    bidder: int
    addressed: tuple[int, ...] = ()
    resolution: Resolution | None = None


class ConvLeft(Frozen):
    source: str
    left: int


class SeatWork(Frozen):
    """One seat's progress through a simultaneous Economy/Industry phase (EEND-22)."""

    stage: Stage
    todo: tuple[SubPhase, ...] = ()
    conv: tuple[ConvLeft, ...] = ()
    repeats: tuple[str, ...] = ()
    acts: int = 0
    repaired: bool = False
    used: tuple[str, ...] = ()
    discarded: bool = False


class State(Frozen):
    n: int
    options: Options
    track: tuple[str, ...]
    setup_step: int = 0
    phase_index: int = -1
    order: tuple[str, ...] = ()
    first: int = 0
    players: tuple[Player, ...] = ()
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    conflict_deck: tuple[str, ...] = ()
    conflict_discard: tuple[str, ...] = ()
    conflict_card: str | None = None
    disaster: DisasterPhase | None = None
    work: tuple[SeatWork, ...] = ()
    draw_queue: tuple[int, ...] = ()
    reshuffles: int = 0


# -- plain -> stored -------------------------------------------------------------------------


def _res(r: st.Res) -> Res:
    return build(Res, wheat=r.wheat, hammer=r.hammer, axe=r.axe, coin=r.coin)


def _location(loc: st.Location) -> Location:
    return build(Location, tile=loc.tile, healthy=loc.healthy, innovations=tuple(
        build(Innovation, card=i.card, exhausted=i.exhausted) for i in loc.innovations))


def _player(p: st.Player) -> Player:
    return build(Player, res=_res(p.res), vp=p.vp,
                 empire=tuple(_location(loc) for loc in p.empire), hand=p.hand)


def _disaster(dp: st.DisasterPhase) -> DisasterPhase:
    r = dp.resolution
    return build(
        DisasterPhase,
        slots=tuple(build(DisasterSlot, card=s.card, pool=_res(s.pool), closed=s.closed)
                    for s in dp.slots),
        bidder=dp.bidder, addressed=dp.addressed,
        resolution=None if r is None else build(
            Resolution, seat=r.seat, card=r.card, target=r.target, stage=r.stage,
            choices=r.choices))


def _work(w: st.SeatWork) -> SeatWork:
    return build(
        SeatWork, stage=w.stage, todo=w.todo,
        conv=tuple(build(ConvLeft, source=c.source, left=c.left) for c in w.conv),
        repeats=w.repeats, acts=w.acts, repaired=w.repaired, used=w.used,
        discarded=w.discarded)


def to_stored(s: st.State) -> State:
    return build(
        State, n=s.n, options=s.options, track=s.track, setup_step=s.setup_step,
        phase_index=s.phase_index, order=s.order, first=s.first,
        players=tuple(_player(p) for p in s.players), deck=s.deck, discard=s.discard,
        conflict_deck=s.conflict_deck, conflict_discard=s.conflict_discard,
        conflict_card=s.conflict_card,
        disaster=None if s.disaster is None else _disaster(s.disaster),
        work=tuple(_work(w) for w in s.work), draw_queue=s.draw_queue, reshuffles=s.reshuffles)


# -- stored -> plain -------------------------------------------------------------------------


def _plain_res(r: Res) -> st.Res:
    return st.Res(r.wheat, r.hammer, r.axe, r.coin)


def _plain_location(loc: Location) -> st.Location:
    return st.Location(loc.tile, loc.healthy,
                       tuple(st.Innovation(i.card, i.exhausted) for i in loc.innovations))


def _plain_disaster(dp: DisasterPhase) -> st.DisasterPhase:
    r = dp.resolution
    return st.DisasterPhase(
        tuple(st.DisasterSlot(s.card, _plain_res(s.pool), s.closed) for s in dp.slots),
        dp.bidder, dp.addressed,
        None if r is None else st.Resolution(r.seat, r.card, r.target, r.stage, r.choices))


def _plain_work(w: SeatWork) -> st.SeatWork:
    return st.SeatWork(w.stage, w.todo, tuple(st.ConvLeft(c.source, c.left) for c in w.conv),
                       w.repeats, w.acts, w.repaired, w.used, w.discarded)


def from_stored(s: State) -> st.State:
    return st.State(
        n=s.n, options=s.options, track=s.track, setup_step=s.setup_step,
        phase_index=s.phase_index, order=s.order, first=s.first,
        players=tuple(st.Player(_plain_res(p.res), p.vp,
                                tuple(_plain_location(loc) for loc in p.empire), p.hand)
                      for p in s.players),
        deck=s.deck, discard=s.discard, conflict_deck=s.conflict_deck,
        conflict_discard=s.conflict_discard, conflict_card=s.conflict_card,
        disaster=None if s.disaster is None else _plain_disaster(s.disaster),
        work=tuple(_plain_work(w) for w in s.work), draw_queue=s.draw_queue,
        reshuffles=s.reshuffles)
