"""The game contract: one small surface that every game implements.

A game is a pure, deterministic value transformer (no I/O, no clock, no global random):

    state = game.setup(options, n_seats)
    while not isinstance(node := game.next(state), Terminal):
        match node:
            Turn          -> a seat in node.seats (or node.open_to) submits Act(seat, action)
            Simultaneous  -> the escrow collects one sealed choice per slot, then JointAction
            Chance        -> the dealer answers with ChanceOutcome(label, values)
        result = game.apply(state, move)        # Transition(state, events) | Rejection
    outcome = game.score(state)

Randomness enters only as a ``ChanceOutcome`` for a ``Chance`` request with a semantic label;
simultaneous secret choices enter only as one ``JointAction`` after every slot is revealed
(OpenSpiel's chance and simultaneous nodes, Pgx's randomness-as-input). ``encode``/``decode``
round-trip a state through JSON losslessly.

Actions and choices cross the boundary as JSON values (dicts with a ``"type"`` tag for
actions); each game validates them with its own Literal-tagged pydantic union.

The contract's values (nodes, moves, events, results) are slotted frozen dataclasses: the
engines make and read several per move, and a dataclass costs a fraction of a validated model.
pydantic checks them only at the wire and storage edge, where JSON enters or leaves:
``to_json(value)`` and ``from_json(cls, data)`` (a ``TypeAdapter`` per class; the field types
and bounds below are what it checks, unknown keys refused), and ``MOVE`` for a logged move.
Their JSON is the field order below, every field present.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from operator import attrgetter
from typing import (
    Annotated,
    Any,
    Literal,
    Protocol,
    TypeAlias,
    TypeVar,
    runtime_checkable,
)

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter

from shared.fairness.lp import canonical_json

Json: TypeAlias = JsonValue
Seat: TypeAlias = int

_EDGE = ConfigDict(extra="forbid")  # what ``from_json`` refuses besides the field types
V = TypeVar("V")


def _kw_init(cls: type[V]) -> type[V]:
    """Give a slotted frozen dataclass an ``__init__`` that sets each field through its slot
    (the same keyword-only signature, defaults and default factories): a frozen dataclass's own
    ``__init__`` goes through ``object.__setattr__`` per field, a large part of the cost of the
    values the engines make per move (each ``Act``, node, event)."""
    params: list[str] = []
    body: list[str] = []
    env: dict[str, Any] = {"_MISSING": MISSING}
    for f in fields(cls):  # type: ignore[arg-type]
        env[f"_set_{f.name}"] = getattr(cls, f.name).__set__
        if f.default is not MISSING:
            env[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
            body.append(f"    _set_{f.name}(self, {f.name})")
        elif f.default_factory is not MISSING:
            env[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            body.append(f"    _set_{f.name}(self, _factory_{f.name}() if {f.name} is _MISSING "
                        f"else {f.name})")
        else:
            params.append(f.name)
            body.append(f"    _set_{f.name}(self, {f.name})")
    code = f"def __init__(self, *, {', '.join(params)}) -> None:\n" + "\n".join(body)
    exec(code, env)  # the code made above from the class's own fields
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc,method-assign]
    return cls


# ----------------------------------------------------------------------------------------
# What happens next: exactly one of these nodes.
# ----------------------------------------------------------------------------------------


@_kw_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """The game waits for the seats in ``seats``; each has at least one legal action.

    ``seats`` are awaited: their deadline timer applies the game's ``default_action`` on
    expiry (repeatedly while the seat is still awaited). ``open_to`` are seats that *may* act
    now but are not waited for (e.g. trade offers from anyone while one seat is bidding); the
    two never overlap. ``legal_actions`` is authoritative for who may do what. Which seats
    are awaited is public: a game must not let it reveal hidden information.
    """

    kind: Literal["turn"] = "turn"
    seats: tuple[Seat, ...]
    open_to: tuple[Seat, ...] = ()


@_kw_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SealedSlot:
    """One sealed choice to be made by ``seat`` in a simultaneous round.

    ``key`` is unique within the round (e.g. ``"s2"`` or ``"s2:engine:1"``).
    ``allowed`` enumerates the legal choices when practical; when ``None`` the game's
    ``check_choice`` decides (the escrow calls it with this slot). ``default`` is fixed at
    open, before any commit, and is used when the seat times out.
    ``public_keys``: for dict-valued choices in an ordered round, the keys whose values are
    shown publicly as the seat commits (The Empire Engine: which engine, not the gear value).
    A slot's spec (allowed, default, context) is shown only to its own seat and the escrow;
    the public record carries only a salted commitment to the default.
    """

    seat: Seat
    key: str
    allowed: tuple[Json, ...] | None = None
    default: Json
    public_keys: tuple[str, ...] = ()
    context: Json = None


@_kw_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Simultaneous:
    """Seats choose in secret at the same time (or in a fixed order with public parts).

    ``round_id`` is a semantic, game-unique label (``"claim:1"``, ``"commerce:3"``).
    ``ordered``: slots must be committed in tuple order; each slot's public part is published
    as it is committed, and every choice stays hidden until all slots are committed.
    """

    kind: Literal["simultaneous"] = "simultaneous"
    round_id: str
    slots: tuple[SealedSlot, ...]
    ordered: bool = False


@_kw_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Chance:
    """A request for randomness, answered by the dealer with a ``ChanceOutcome``.

    draw = "shuffle": a permutation of range(n) (Fisher–Yates), values = that permutation.
    draw = "below":   ``count`` integers uniform in [0, n), values = those integers.
    draw = "dice":    ``count`` dice with ``n`` sides, values in 1..n.
    ``label`` is semantic and unique within the game (``"deck:auction:shuffle:0"``,
    ``"dice:turn:12:attack:3"``): the same label always yields the same outcome.
    ``secret``: the outcome must not be published before the rules reveal it (deals).
    """

    kind: Literal["chance"] = "chance"
    label: str
    draw: Literal["shuffle", "below", "dice"]
    n: Annotated[int, Field(ge=1)]
    count: Annotated[int, Field(ge=1)] = 1
    secret: bool = False


@_kw_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Terminal:
    kind: Literal["terminal"] = "terminal"


Node: TypeAlias = Turn | Simultaneous | Chance | Terminal


# ----------------------------------------------------------------------------------------
# Moves: the three things that can be applied to a state.
# ----------------------------------------------------------------------------------------


@_kw_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Act:
    """One seat's action during a ``Turn``."""

    kind: Literal["act"] = "act"
    seat: Seat
    action: Json


@_kw_init
@dataclass(frozen=True, slots=True, kw_only=True)
class JointAction:
    """All revealed choices of one simultaneous round, keyed by slot key."""

    kind: Literal["joint"] = "joint"
    round_id: str
    choices: dict[str, Json]
    defaulted: tuple[str, ...] = ()


@_kw_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ChanceOutcome:
    kind: Literal["chance_outcome"] = "chance_outcome"
    label: str
    values: tuple[int, ...]


Move: TypeAlias = Act | JointAction | ChanceOutcome


# ----------------------------------------------------------------------------------------
# Results of applying a move.
# ----------------------------------------------------------------------------------------


@_kw_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """A fact for the action log. ``visible_to`` None = public; else only those seats.

    Spectators see only public events. Event data must never carry information hidden from
    a seat that can see the event.
    """

    type: str
    data: dict[str, Json] = field(default_factory=dict)
    visible_to: tuple[Seat, ...] | None = None

    def visible(self, seat: Seat | None) -> bool:
        return self.visible_to is None or (seat is not None and seat in self.visible_to)


def client_events(events: Sequence[Event], seat: Seat | None) -> list[dict[str, Json]]:
    """The events as ``seat``'s client receives them in its view messages (the adjudicator's
    ``render_views``): the ones it may see, private ones marked."""
    return [{"type": e.type, "data": e.data, **({"private": True} if e.visible_to is not None
                                                 else {})}
            for e in events if e.visible(seat)]


# The one set of codes of every game. The kit's template (shared/rules/_kit/base.py) checks,
# before any move runs and in this order: the move's kind against the pending node
# (wrong_phase), a draw's label or a round's id (unknown_round), a draw's values, a round's
# slots or an act's seat (malformed, not_your_turn), the act's shape and each sealed choice
# (malformed, illegal). A game's moves return only malformed (an id that names nothing) and
# illegal (what the rules forbid now).
RejectionCode = Literal[
    "action/wrong_phase",  # the move's kind is not the pending node's (or the game is over)
    "action/unknown_round",  # a draw label / round id that is not the pending one
    "action/malformed",  # values, slots or action not of the pending node's / game's shape
    "action/not_your_turn",  # the act's seat is neither awaited nor open_to
    "action/illegal",  # well-formed, the seat may act, but the rules forbid this now
]


@_kw_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Rejection:
    code: RejectionCode
    message: str


def _read_only(self: Any, value: Any) -> None:
    raise FrozenInstanceError("cannot assign to a field of a Transition")


class Transition:
    """A legal move's result: the new state and the events it produced.

    ``Transition(state, events=())``, frozen, compared and hashed by (state, events) as a
    frozen dataclass is. The kit's template hands its events over as they were recorded
    (``_kit.model.Events``: a list of (type, data, visible_to)) and ``events`` makes the
    ``Event`` values on first read: a playout or a search that never reads the log makes none.

    Its fields are read-only properties over two private slots, set once where a Transition
    is made (here and in ``_kit.base.transition``, one per move): a slot of a class without
    its own ``__setattr__`` is set by plain assignment, a fraction of the cost of a frozen
    dataclass's field. ``_events`` holds the events made (a tuple) or their records (a list)."""

    __slots__ = ("_events", "_state")
    __match_args__ = ("state", "events")

    _state: Any
    _events: tuple[Event, ...] | list[tuple[str, dict[str, Json], tuple[Seat, ...] | None]]

    def __init__(self, state: Any, events: Sequence[Event] = ()) -> None:
        self._state = state
        self._events = tuple(events)

    state = property(attrgetter("_state"), _read_only, doc="The state after the move.")

    @property
    def events(self) -> tuple[Event, ...]:
        made = self._events
        if isinstance(made, list):  # the records, made into events on this first read
            made = self._events = tuple(_recorded_event(*rec) for rec in made)
        return made

    @events.setter
    def events(self, value: Any) -> None:
        _read_only(self, value)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.state, self.events) == (other.state, other.events)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.state, self.events))

    def __repr__(self) -> str:
        return f"Transition(state={self.state!r}, events={self.events!r})"

    def __getstate__(self) -> tuple[Any, tuple[Event, ...]]:  # pickle and copy, as frozen
        return self.state, self.events

    def __setstate__(self, stored: tuple[Any, tuple[Event, ...]]) -> None:
        self._state, self._events = stored


_set_event_type, _set_event_data, _set_event_visible_to = (
    getattr(Event, f).__set__ for f in ("type", "data", "visible_to"))


def _recorded_event(type: str, data: dict[str, Json], visible_to: tuple[Seat, ...] | None
                    ) -> Event:
    """``Event(type=..., data=..., visible_to=...)`` through its slots (fields checked when
    recorded: ``_kit.model.Events``)."""
    made = object.__new__(Event)
    _set_event_type(made, type)
    _set_event_data(made, data)
    _set_event_visible_to(made, visible_to)
    return made


class EventLog:
    """The events of a run of transitions, made when first read.

    ``add(transition)`` keeps a move's records (or its events, when they were made) without
    its state, in one flat list: a playout that kept every state would hand the collector a
    game's worth of live objects, one that kept each move's list would allocate (and free) two
    objects a move for nothing, and one that made every ``Event`` would pay for a log nobody
    reads."""

    __slots__ = ("_kept", "_made")

    def __init__(self) -> None:
        self._kept: list[Any] = []  # each an Event or its (type, data, visible_to) record
        self._made: list[Event] | None = None

    def add(self, transition: Transition) -> None:
        part: Sequence[Any] = transition._events  # the events made, or their records
        if part:
            self._kept += part
            self._made = None

    def events(self) -> list[Event]:
        made = self._made
        if made is None:
            made = self._made = [
                item if type(item) is Event else _recorded_event(*item) for item in self._kept]
        return made


_VALUES: tuple[type, ...] = (Turn, SealedSlot, Simultaneous, Chance, Terminal, Act, JointAction,
                              ChanceOutcome, Event, Rejection)
for _cls in _VALUES:
    _cls.__pydantic_config__ = _EDGE  # type: ignore[attr-defined]

_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def _adapter(cls: type) -> TypeAdapter[Any]:
    got = _ADAPTERS.get(cls)
    if got is None:
        got = _ADAPTERS[cls] = TypeAdapter(cls)
    return got


def to_json(value: Any) -> dict[str, Json]:
    """A contract value (a node, slot, move, event, rejection or outcome) as its JSON: the
    wire's, the logs' and the digests' form (tuples as lists, every field in order)."""
    out: dict[str, Json] = _adapter(type(value)).dump_python(value, mode="json")
    return out


def from_json(cls: type[V], data: Any) -> V:
    """A contract value of class ``cls`` from its JSON, checked at the edge (pydantic's
    ``ValidationError``, a ValueError, when it does not fit: a wrong type, a bound, an unknown
    key)."""
    value: V = _adapter(cls).validate_python(data)
    return value


# A logged or received move, by its ``kind``.
MOVE: TypeAdapter[Move] = TypeAdapter(Annotated[Move, Field(discriminator="kind")])


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SeatResult(_Result):
    seat: Seat
    place: int  # 1 = first; tied seats share a place
    figures: dict[str, Json]  # e.g. {"support": 4, "gold": 31}


class Outcome(_Result):
    """Final ranking with the game's tie-breaks applied."""

    results: tuple[SeatResult, ...]  # one per seat, in seat order
    tiebreak: str  # human-readable description of the tie-break chain used

    @property
    def winners(self) -> tuple[Seat, ...]:
        return tuple(r.seat for r in self.results if r.place == 1)


class RuleError(ValueError):
    """Raised by ``setup`` for invalid options or seat counts (never by ``apply``)."""


# ----------------------------------------------------------------------------------------
# The contract.
# ----------------------------------------------------------------------------------------


@runtime_checkable
class Game(Protocol):
    """What every game module exports as ``GAME``."""

    name: str  # registry key, e.g. "empire"
    title: str  # display name
    rules_version: str  # bumps when rules or data change; bound into the dealer's game key
    min_seats: int
    max_seats: int

    def options_schema(self) -> dict[str, Json]:
        """JSON Schema of the variant options (with defaults)."""
        ...

    def setup(self, options: dict[str, Json], n_seats: int) -> Any:
        """Initial state. Raises RuleError for bad options or seat count."""
        ...

    def next(self, state: Any) -> Node:
        """What happens next."""
        ...

    def legal_actions(self, state: Any, seat: Seat) -> Sequence[Json]:
        """Legal actions for ``seat`` at a Turn (empty when it may not act).

        Open-ended negotiation actions (e.g. trade offers with arbitrary bundles) may be
        described by the game's view instead of enumerated; they are still validated by
        ``apply``.
        """
        ...

    def apply(self, state: Any, move: Move) -> Transition | Rejection:
        """Apply one move. Never raises for bad input: returns a Rejection."""
        ...

    def check_choice(self, slot: SealedSlot, choice: Json) -> bool:
        """Whether ``choice`` is legal for ``slot`` (default: membership in slot.allowed)."""
        ...

    def default_action(self, state: Any, seat: Seat) -> Json:
        """The action applied for an awaited seat whose turn deadline expired."""
        ...

    def view(self, state: Any, seat: Seat | None) -> dict[str, Json]:
        """What ``seat`` may see (None = spectator). Never contains others' secrets."""
        ...

    def score(self, state: Any) -> Outcome:
        """Final ranking (only meaningful at Terminal)."""
        ...

    def encode(self, state: Any) -> dict[str, Json]:
        """State -> JSON (lossless)."""
        ...

    def decode(self, data: dict[str, Json]) -> Any:
        """JSON -> State."""
        ...


def default_check_choice(slot: SealedSlot, choice: Json) -> bool:
    """The standard ``check_choice``: the choice is one of the enumerated allowed values,
    compared as canonical JSON (type-strict: ``true`` and ``1.0`` are not ``1``)."""
    if slot.allowed is None:
        return False
    equal = [a for a in slot.allowed if a == choice]  # Python equality: a superset (1 == True)
    if not equal:
        return False
    try:
        text = canonical_json(choice)
    except ValueError:  # a float: never one of the (integer) allowed values
        return False
    return any(canonical_json(a) == text for a in equal)


def reject(code: RejectionCode, message: str) -> Rejection:
    return Rejection(code=code, message=message)


class Bot(Protocol):
    """A player that sees only what a client sees: its own view and its legal options."""

    def act(self, view: dict[str, Json], legal: Sequence[Json], seat: Seat) -> Json:
        """Pick one of ``legal`` (or an open-ended action the view allows)."""
        ...

    def choose(
        self, view: dict[str, Json], slot: SealedSlot, seat: Seat, public_parts: dict[str, Json]
    ) -> Json:
        """Pick a sealed choice for ``slot`` (must satisfy the game's check_choice).

        ``public_parts``: slot key -> public part of the choices already committed in this
        round (ordered rounds only; empty otherwise).
        """
        ...
