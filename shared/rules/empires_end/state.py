"""The state of Empire's End: plain slotted objects, cloned then changed inside ``apply``.

A state the engine hands out (``setup``, a transition's state, ``decode``) is never changed
afterwards: ``apply`` clones it (``State.clone``) and the rule modules change only that clone,
in place. So a caller may keep any state it was given.

What a move changes is mutable: the state, each ``Player`` and its ``Res``, the
``DisasterPhase`` and its ``DisasterSlot``s. ``clone`` copies the state and its disaster
phase; the players and the slots are copied on write: a clone shares its parent's players
until a move asks for one to change (``State.writable``), which copies that player into the
clone alone (a move changes one seat's player, mostly), and likewise a slot
(``DisasterPhase.writable``). So a rule changes a player only as ``state.writable(seat)``
returned it, never as read from ``state.players``, and a slot only as ``writable(i)``
returned it. The rest is
never changed once made and is shared by clones: ``Innovation`` and ``ConvLeft`` (frozen),
``Location``, ``Resolution`` and ``SeatWork`` (a change makes a new one, through
``location``, ``resolution`` and ``seat_work``: plain slotted classes, hashed by value as
frozen ones, because a move makes one or more of them and a frozen dataclass's fields can
only be set through ``object.__setattr__``, several times the cost of a slot's store; the
copy-on-write tests catch a rule that changed one in place), every tuple (decks, hands,
empires: a change makes a new tuple), and ``Options``, the frozen pydantic model of the
variant flags, parsed once by ``setup``. The stored JSON form
(``GAME.encode``/``decode``) is defined by ``stored.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import Field

from shared.rules._kit.model import Frozen
from shared.rules.api import Json
from shared.rules.empires_end.data import CARD_IDS, Bundle, Resource

_new = object.__new__


class Options(Frozen):
    """Variant flags; the defaults are the recommended rulings."""

    random_first_player: bool = Field(
        True,
        title="Random first player",
        description="The dealer draws who starts; off, the first seat starts.",
        json_schema_extra={"why": "EEND-1: the setup and the quick start disagree; random "
                           "is the recommended reading."},
    )
    low_resources_rule: bool = Field(
        True,
        title="Low resources rule",
        description="After taking a disaster with fewer than 5 resources, you may buy Coins for "
        "2 VP each, up to 5 (VP may go below 0).",
        json_schema_extra={"why": "EEND-9: the rulebook's optional low-resources rule."},
    )
    reshuffle_discards: bool = Field(
        True,
        title="Reshuffle the discards",
        description="An empty disaster deck is rebuilt from the discards; off, drawing stops.",
        json_schema_extra={"why": "EEND-19: the rulebook does not cover an empty deck."},
    )


@dataclass(slots=True)
class Res:
    """A stash of tokens. Supplies are unlimited (EEND-20).

    ``plus``/``add``/``add_bundle`` return a new stash; ``gain``/``gain_res`` change this one
    (only on a state's clone)."""

    wheat: int = 0
    hammer: int = 0
    axe: int = 0
    coin: int = 0

    def get(self, r: Resource) -> int:
        return int(getattr(self, r))

    def clone(self) -> Res:
        return Res(self.wheat, self.hammer, self.axe, self.coin)

    def gain(self, r: Resource, n: int = 1) -> None:
        """In place: ``n`` more of ``r`` (fewer when negative)."""
        setattr(self, r, getattr(self, r) + n)

    def gain_res(self, other: Res) -> None:
        """In place: every token of ``other`` added."""
        self.wheat += other.wheat
        self.hammer += other.hammer
        self.axe += other.axe
        self.coin += other.coin

    def gain_bundle(self, bundle: Bundle, times: int = 1) -> None:
        """In place: ``bundle`` added ``times`` times."""
        for r, n in bundle:
            setattr(self, r, getattr(self, r) + n * times)

    def plus(self, r: Resource, n: int = 1) -> Res:
        out = self.clone()
        out.gain(r, n)
        return out

    def add(self, other: Res) -> Res:
        out = self.clone()
        out.gain_res(other)
        return out

    def add_bundle(self, bundle: Bundle, times: int = 1) -> Res:
        out = self.clone()
        out.gain_bundle(bundle, times)
        return out

    def total(self) -> int:
        return self.wheat + self.hammer + self.axe + self.coin

    def as_dict(self) -> dict[str, Json]:
        return {"wheat": self.wheat, "hammer": self.hammer, "axe": self.axe, "coin": self.coin}


def bundle_res(bundle: Bundle, times: int = 1) -> Res:
    out = Res()
    out.gain_bundle(bundle, times)
    return out


@dataclass(frozen=True, slots=True)
class Innovation:
    card: str
    exhausted: bool = False


# card -> its innovation as built or placed (not exhausted), and exhausted: frozen, so one
# for all empires
FRESH: dict[str, Innovation] = {c: Innovation(c) for c in CARD_IDS}
EXHAUSTED: dict[str, Innovation] = {c: Innovation(c, True) for c in CARD_IDS}


@dataclass(slots=True, unsafe_hash=True)
class Location:
    tile: str
    healthy: bool = True
    innovations: tuple[Innovation, ...] = ()


@dataclass(slots=True)
class Player:
    res: Res
    vp: int = 0
    empire: tuple[Location, ...] = ()  # left to right; position 1 = index 0
    hand: tuple[str, ...] = ()

    def clone(self) -> Player:
        r = self.res
        return Player(Res(r.wheat, r.hammer, r.axe, r.coin), self.vp, self.empire, self.hand)


@dataclass(slots=True)
class DisasterSlot:
    """One disaster of the phase. ``card`` None and not closed = waiting to be revealed."""

    card: str | None = None
    pool: Res = field(default_factory=Res)  # the public bids on it (EEND-21)
    closed: bool = False

    def clone(self) -> DisasterSlot:
        return DisasterSlot(self.card, self.pool.clone(), self.closed)


def empty_slot(closed: bool) -> DisasterSlot:
    """``DisasterSlot(closed=closed)`` with an empty pool, through the slots: a disaster still
    to reveal (``closed`` False) or a taken one's (True)."""
    pool = _new(Res)
    pool.wheat = pool.hammer = pool.axe = pool.coin = 0
    slot = _new(DisasterSlot)
    slot.card, slot.pool, slot.closed = None, pool, closed
    return slot  # type: ignore[no-any-return]


@dataclass(slots=True, unsafe_hash=True)
class Resolution:
    """A take being resolved by ``seat``: destroy, place the innovation, low resources."""

    seat: int
    card: str
    target: int  # 0-based position
    stage: Literal["destroy", "place", "shore"]
    choices: tuple[str, ...] = ()  # tile ids (destroy/place) the seat chooses between


@dataclass(slots=True)
class DisasterPhase:
    slots: tuple[DisasterSlot, ...]
    bidder: int
    addressed: tuple[int, ...] = ()  # slot indices the bidder has bid on/taken this turn
    resolution: Resolution | None = None
    # slots this phase copied (bit ``1 << i``), so its own to change: as ``State.owned``
    owned: int = field(default=0, init=False, repr=False, compare=False)

    def clone(self) -> DisasterPhase:
        """A copy that changes nothing of this phase when changed: its slots are this
        phase's until ``writable`` copies one (as ``State.clone`` shares the players)."""
        new = _new(DisasterPhase)
        new.slots, new.bidder = self.slots, self.bidder
        new.addressed, new.resolution = self.addressed, self.resolution
        new.owned = self.owned = 0  # both share every slot now: neither may change one
        return new  # type: ignore[no-any-return]

    def writable(self, i: int) -> DisasterSlot:
        """Slot ``i``, this phase's own to change in place: copied (with its pool) the first
        time a move asks."""
        if self.owned >> i & 1:
            return self.slots[i]
        s = self.slots[i]
        r = s.pool
        pool = _new(Res)  # DisasterSlot(..., Res(...)) through the slots: no __init__ calls
        pool.wheat, pool.hammer, pool.axe, pool.coin = r.wheat, r.hammer, r.axe, r.coin
        slot = _new(DisasterSlot)
        slot.card, slot.pool, slot.closed = s.card, pool, s.closed
        slots = list(self.slots)
        slots[i] = slot
        self.slots = tuple(slots)
        self.owned |= 1 << i
        return slot  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class ConvLeft:
    source: str  # tile or card id of a conversion ability
    left: int


# (source, left) -> its ConvLeft: frozen, so one for every work that holds it
_CONV_LEFT: dict[tuple[str, int], ConvLeft] = {}


def conv_left(source: str, left: int) -> ConvLeft:
    """``ConvLeft(source, left)``, made once."""
    got = _CONV_LEFT.get((source, left))
    if got is None:
        got = _CONV_LEFT[(source, left)] = ConvLeft(source, left)
    return got


SubPhase = Literal["economy", "industry"]
Stage = Literal["choose", "economy", "industry", "done"]


@dataclass(slots=True, unsafe_hash=True)
class SeatWork:
    """One seat's progress through a simultaneous Economy/Industry phase (EEND-22). Never
    changed once made, so clones share it: a step makes a new one (``changed``,
    ``set_work``)."""

    stage: Stage
    todo: tuple[SubPhase, ...] = ()  # sub-phases still to do after the current one
    conv: tuple[ConvLeft, ...] = ()  # economy: conversions left
    repeats: tuple[str, ...] = ()  # economy: repeat abilities not used yet
    acts: int = 0  # industry: builds + sells done (EEND-11)
    repaired: bool = False  # industry: one repair per phase (EEND-13)
    used: tuple[str, ...] = ()  # industry abilities used this phase
    discarded: bool = False  # industry: the optional discard of both cards

    def clone(self) -> SeatWork:
        return self

    def changed(self, *, conv: tuple[ConvLeft, ...] | None = None,
                repeats: tuple[str, ...] | None = None, acts: int | None = None,
                repaired: bool | None = None, used: tuple[str, ...] | None = None,
                discarded: bool | None = None) -> SeatWork:
        """This work with the given fields changed."""
        return seat_work(self.stage, self.todo, self.conv if conv is None else conv,
                         self.repeats if repeats is None else repeats,
                         self.acts if acts is None else acts,
                         self.repaired if repaired is None else repaired,
                         self.used if used is None else used,
                         self.discarded if discarded is None else discarded)


def seat_work(stage: Stage, todo: tuple[SubPhase, ...] = (), conv: tuple[ConvLeft, ...] = (),
              repeats: tuple[str, ...] = (), acts: int = 0, repaired: bool = False,
              used: tuple[str, ...] = (), discarded: bool = False) -> SeatWork:
    """``SeatWork(...)`` of these fields."""
    w = _new(SeatWork)
    w.stage = stage
    w.todo = todo
    w.conv = conv
    w.repeats = repeats
    w.acts = acts
    w.repaired = repaired
    w.used = used
    w.discarded = discarded
    return w  # type: ignore[no-any-return]


def location(tile: str, healthy: bool, innovations: tuple[Innovation, ...]) -> Location:
    """``Location(tile, healthy, innovations)``."""
    loc = _new(Location)
    loc.tile = tile
    loc.healthy = healthy
    loc.innovations = innovations
    return loc  # type: ignore[no-any-return]


def resolution(seat: int, card: str, target: int, stage: Literal["destroy", "place", "shore"],
               choices: tuple[str, ...] = ()) -> Resolution:
    """``Resolution(seat, card, target, stage, choices)``."""
    r = _new(Resolution)
    r.seat = seat
    r.card = card
    r.target = target
    r.stage = stage
    r.choices = choices
    return r  # type: ignore[no-any-return]


DONE = SeatWork("done")  # a finished seat's work (frozen: one for all)


def set_work(state: State, seat: int, work: SeatWork) -> None:
    """In place: ``seat``'s work replaced (a new tuple; works are frozen)."""
    items = list(state.work)
    items[seat] = work
    state.work = tuple(items)


@dataclass(slots=True)
class State:
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
    # seats whose player this state copied (bit ``1 << seat``), so its own to change; never
    # set by a state's maker (``replace`` and ``decode`` give 0), reset by ``clone`` in the
    # copy and in this state (a state changed in place after a clone, as a rollout's is,
    # copies a player again before changing it)
    owned: int = field(default=0, init=False, repr=False, compare=False)

    @property
    def phase(self) -> str:
        i = self.phase_index
        if i < 0:
            return "setup"
        track = self.track
        return track[i] if i < len(track) else "end"

    def player(self, seat: int) -> Player:
        return self.players[seat]

    def writable(self, seat: int) -> Player:
        """``seat``'s player, this state's own to change in place: copied (with its stash)
        the first time a move asks, as a clone shares its parent's players until then."""
        if self.owned >> seat & 1:
            return self.players[seat]
        p = self.players[seat]
        r = p.res
        res = _new(Res)  # Player(Res(...), ...) through the slots: no __init__ calls
        res.wheat, res.hammer, res.axe, res.coin = r.wheat, r.hammer, r.axe, r.coin
        q = _new(Player)
        q.res, q.vp, q.empire, q.hand = res, p.vp, p.empire, p.hand
        players = list(self.players)
        players[seat] = q
        self.players = tuple(players)
        self.owned |= 1 << seat
        return q  # type: ignore[no-any-return]

    def clone(self) -> State:
        """A copy that changes nothing of this state when changed: its players are this
        state's until ``writable`` copies one (see the module's docstring)."""
        dp = self.disaster
        new = _new(State)  # State(...) through the slots: no __init__ call
        new.n, new.options, new.track = self.n, self.options, self.track
        new.setup_step, new.phase_index = self.setup_step, self.phase_index
        new.order, new.first, new.players = self.order, self.first, self.players
        new.deck, new.discard = self.deck, self.discard
        new.conflict_deck, new.conflict_discard = self.conflict_deck, self.conflict_discard
        new.conflict_card = self.conflict_card
        new.disaster = None if dp is None else dp.clone()
        new.work, new.draw_queue, new.reshuffles = self.work, self.draw_queue, self.reshuffles
        new.owned = self.owned = 0  # both share every player now: neither may change one
        return new


# ``State.clone`` and ``Player``'s copy in it set every field through the slots
assert State.__slots__ == (
    "n", "options", "track", "setup_step", "phase_index", "order", "first", "players", "deck",
    "discard", "conflict_deck", "conflict_discard", "conflict_card", "disaster", "work",
    "draw_queue", "reshuffles", "owned"), "State.clone sets every field of State"
assert Player.__slots__ == ("res", "vp", "empire", "hand"), "State.writable copies every field"
assert Res.__slots__ == ("wheat", "hammer", "axe", "coin"), "State.writable copies every field"
assert SeatWork.__slots__ == ("stage", "todo", "conv", "repeats", "acts", "repaired", "used",
                             "discarded"), "seat_work sets every field of SeatWork"
assert Resolution.__slots__ == ("seat", "card", "target", "stage", "choices"), \
    "resolution sets every field of Resolution"
assert Location.__slots__ == ("tile", "healthy", "innovations"), "location sets every field"
assert DisasterSlot.__slots__ == ("card", "pool", "closed"), "DisasterPhase.writable copies them"
assert DisasterPhase.__slots__ == ("slots", "bidder", "addressed", "resolution", "owned"), \
    "DisasterPhase.clone sets every field of DisasterPhase"
