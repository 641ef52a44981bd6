"""The state of Empire: The Game of New York: a plain slotted object, cloned then changed
inside ``apply``.

A state the engine hands out (``setup``, a transition's state, ``decode``) is never changed
afterwards: ``apply`` clones it (``NycState.clone``) and the rule modules change only that
clone, in place. So a caller may keep any state it was given. Every field holds an immutable
value (ints, strings, tuples, ``NycOptions``) or an object that is never changed once made
(``Battle``, ``MoveIn``, ``Elimination``): a rule sets a field of the clone to a new value,
so a clone is a shallow copy and clones share everything they have not replaced. The fields
a move seldom changes are held apart in one ``Seldom`` object that clones share likewise: a
rule gives its state a copy of its own (``own_seldom``) before it sets one of them. The one
exception is ``holdings``, a cache derived from ``owner`` (``turns.held``) that equality,
``encode`` and ``view`` ignore. The stored JSON form (``GAME.encode``/``decode``) is defined
by ``stored.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import Field

from shared.rules._kit.model import Frozen
from shared.rules.empire_nyc.holdings import Holdings


class NycOptions(Frozen):
    """Variant flags; every default is the recommended resolution of RULINGS.md §5.5."""

    missions: bool = Field(
        default=False,
        title="Secret missions",
        description="Each player is dealt a secret mission: hold its boroughs to win early.",
        json_schema_extra={"why": "NY-12: the rulebook's shorter occupation-mission game."},
    )
    extra_links: bool = Field(
        default=False,
        title="Tunnels and ferry",
        description="The Lincoln and Holland tunnels and the ferry also join neighborhoods.",
        json_schema_extra={"why": "NY-14: the rulebook names only bridges, tram and subway."},
    )
    eliminated_cards: Literal["eliminator", "discard"] = Field(
        default="eliminator",
        title="Cards of a knocked-out player",
        description="They go to the player who knocked them out, or to the discard pile.",
        json_schema_extra={"why": "NY-7: not covered by the rulebook.",
                           "labels": {"eliminator": "to the player who knocked them out",
                                      "discard": "to the discard pile"}},
    )
    forced_trade: bool = Field(
        default=False,
        title="Forced trade at 5 cards",
        description="A player holding 5 or more cards must turn in a set first.",
        json_schema_extra={"why": "NY-6: a classic house rule, not in the rulebook."},
    )
    defender_chooses_dice: bool = Field(
        default=True,
        title="Defender chooses dice",
        description="A defender with 2 or more cubes may roll 1 die instead of 2.",
        json_schema_extra={"why": "NY-8: how many dice a defender rolls."},
    )
    max_rounds: int | None = Field(
        default=30,
        ge=1,
        title="Round limit",
        description="The game ends after this many rounds; most neighborhoods (then cubes) "
        "wins. Empty: no limit.",
        json_schema_extra={"why": "NY-S1: a server ruling so that every game ends."},
    )


Phase: TypeAlias = Literal[
    "first_player",  # Chance: who starts (NY-1)
    "deal",  # Chance: neighborhood deal (NY-1)
    "deal_missions",  # Chance, secret: occupation missions (NY-12)
    "setup_place",  # Turn: one cube at a time in turn order (NY-1)
    "shuffle_deck",  # Chance, secret: the draw pile (NY-2) or a reshuffle of the discard
    "reinforce",  # Turn: trade sets, place reinforcements (A + B + C)
    "attack",  # Turn: attack or stop
    "defend",  # Turn (defender): 1 or 2 dice (NY-8)
    "roll",  # Chance: instigator dice, then defender dice
    "move_in",  # Turn: cubes moved into a conquered neighborhood (NY-9)
    "fortify",  # Turn: the one free move (NY-10) or end the turn
    "over",
]
WinReason: TypeAlias = Literal["map", "mission", "round_limit"]


@dataclass(slots=True)
class Battle:
    """One roll of an attack in progress (never changed once made: the defender's dice and
    the instigator's roll make a new one)."""

    frm: int
    to: int
    defender: int
    dice: int
    def_dice: int | None = None
    inst_roll: tuple[int, ...] | None = None


def battle(frm: int, to: int, defender: int, dice: int, def_dice: int | None = None,
           inst_roll: tuple[int, ...] | None = None) -> Battle:
    """``Battle(...)`` made through its slots: the class's call costs more, and an attack
    makes three (declared, defended, rolled)."""
    new = _new(Battle)
    new.frm = frm
    new.to = to
    new.defender = defender
    new.dice = dice
    new.def_dice = def_dice
    new.inst_roll = inst_roll
    return new


@dataclass(slots=True)
class MoveIn:
    """A conquest whose move-in is pending: ``moved`` cubes are already in (NY-9)."""

    frm: int
    to: int
    moved: int


@dataclass(slots=True)
class Elimination:
    seat: int
    by: int
    turn: int


@dataclass(slots=True)
class Seldom:
    """The fields of a state that a move seldom changes: set at setup, or changed by a card
    drawn or traded, an elimination, a reshuffle or the end of the game. A state holds them
    in one object it shares with its clones, so that a clone copies the few fields most
    moves change and not these; a rule that changes one of them first gives its state a copy
    of its own (``NycState.own_seldom``)."""

    n_seats: int
    options: NycOptions
    first_player: int = -1
    order: tuple[int, ...] = ()  # turn order, starting with the first player
    to_place: tuple[int, ...] = ()  # per seat: setup cubes still to place
    hands: tuple[tuple[str, ...], ...] = ()  # per seat (secret)
    missions: tuple[str, ...] = ()  # per seat (secret); empty without the variant
    deck: tuple[str, ...] = ()  # draw pile, top first (secret)
    discard: tuple[str, ...] = ()  # traded sets (public)
    deck_shuffles: int = 0
    card_due: bool = False  # the active player is owed a card once the pile is reshuffled
    sets_traded: int = 0  # NY-5: global count
    eliminated: tuple[Elimination, ...] = ()
    winner: int | None = None
    win_reason: WinReason | None = None

    def copy(self) -> Seldom:
        """A copy whose fields a rule may set (every field by name, as ``NycState.clone``)."""
        new = _new(Seldom)
        new.n_seats = self.n_seats
        new.options = self.options
        new.first_player = self.first_player
        new.order = self.order
        new.to_place = self.to_place
        new.hands = self.hands
        new.missions = self.missions
        new.deck = self.deck
        new.discard = self.discard
        new.deck_shuffles = self.deck_shuffles
        new.card_due = self.card_due
        new.sets_traded = self.sets_traded
        new.eliminated = self.eliminated
        new.winner = self.winner
        new.win_reason = self.win_reason
        return new


@dataclass(slots=True, init=False)
class NycState:
    """The fields most moves change, and the others in ``seldom`` (each also read as the
    state's own attribute, e.g. ``state.hands``; the rules on the path of every move read
    ``state.seldom`` itself, without the property's call)."""

    phase: Phase
    owner: tuple[int, ...]  # per neighborhood index; -1 before the deal
    cubes: tuple[int, ...]  # per neighborhood index
    current: int  # the active (or setup-placing) seat
    turn: int  # 1 = the first player's first turn
    round: int  # NY-S1: 1 = the first orbit of turns in ``order``; +1 each time it wraps
    pool: int  # reinforcements still to place this turn
    attacks: int  # attack rolls this turn (labels)
    conquered: bool  # at least one neighborhood taken this turn (NY-4)
    battle: Battle | None
    move_in: MoveIn | None
    seldom: Seldom
    # derived from ``owner`` (``turns.held``), kept by clones while the owner tuple is theirs
    holdings: Holdings | None = field(init=False, compare=False, repr=False)

    def __init__(self, *, phase: Phase, owner: tuple[int, ...] = (),
                 cubes: tuple[int, ...] = (), current: int = -1, turn: int = 0,
                 round: int = 0, pool: int = 0, attacks: int = 0, conquered: bool = False,
                 battle: Battle | None = None, move_in: MoveIn | None = None,
                 seldom: Seldom | None = None, **seldom_fields: Any) -> None:
        """Every field by its name, ``Seldom``'s too: a whole state, or (``seldom`` given, as
        ``dataclasses.replace`` gives it) one with another's seldom fields, some changed."""
        self.phase = phase
        self.owner = owner
        self.cubes = cubes
        self.current = current
        self.turn = turn
        self.round = round
        self.pool = pool
        self.attacks = attacks
        self.conquered = conquered
        self.battle = battle
        self.move_in = move_in
        if seldom is None:
            seldom = Seldom(**seldom_fields)
        elif seldom_fields:
            seldom = replace(seldom, **seldom_fields)
        self.seldom = seldom
        self.holdings = None

    if TYPE_CHECKING:  # the seldom fields, read as the state's own (the properties below)
        n_seats: int
        options: NycOptions
        first_player: int
        order: tuple[int, ...]
        to_place: tuple[int, ...]
        hands: tuple[tuple[str, ...], ...]
        missions: tuple[str, ...]
        deck: tuple[str, ...]
        discard: tuple[str, ...]
        deck_shuffles: int
        card_due: bool
        sets_traded: int
        eliminated: tuple[Elimination, ...]
        winner: int | None
        win_reason: WinReason | None

    def alive(self, seat: int) -> bool:
        return all(e.seat != seat for e in self.seldom.eliminated)

    def own_seldom(self) -> Seldom:
        """The seldom fields, to change: a copy made this state's own (the one it held may be
        shared with the state it was cloned from)."""
        seldom = self.seldom = self.seldom.copy()
        return seldom

    def clone(self) -> NycState:
        """A copy whose fields the rules may set (the values themselves are shared): every
        field copied by name (``CLONED``, checked against the slots at import), cheaper than
        the constructor's call on the path of every move."""
        new = _new(NycState)
        new.phase = self.phase
        new.owner = self.owner
        new.cubes = self.cubes
        new.current = self.current
        new.turn = self.turn
        new.round = self.round
        new.pool = self.pool
        new.attacks = self.attacks
        new.conquered = self.conquered
        new.battle = self.battle
        new.move_in = self.move_in
        new.seldom = self.seldom
        new.holdings = self.holdings
        return new


_new = object.__new__
CLONED = ("phase", "owner", "cubes", "current", "turn", "round", "pool", "attacks", "conquered",
          "battle", "move_in", "seldom", "holdings")
assert set(CLONED) == set(NycState.__slots__), "clone copies every field"
SELDOM = ("n_seats", "options", "first_player", "order", "to_place", "hands", "missions", "deck",
          "discard", "deck_shuffles", "card_due", "sets_traded", "eliminated", "winner",
          "win_reason")
assert set(SELDOM) == set(Seldom.__slots__), "copy copies every field"
for _name in SELDOM:  # ``state.hands`` reads ``state.seldom.hands``; a rule sets it on its own
    setattr(NycState, _name, property(attrgetter(f"seldom.{_name}")))
