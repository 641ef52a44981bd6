"""The rules template: the kit does the guards, a game writes only its moves.

``GameBase.apply`` is the contract's ``apply`` for every game (boardgame.io's reducer checks
before any move runs; OpenSpiel's ``apply_action`` around each game's ``_apply_action``). It
asks the game's ``next`` once, refuses what does not answer the pending node with the one set
of codes (``shared.rules.api.RejectionCode``), and only then calls the game's hook:

===================  =================================================  ===================
move                 guards, in order                                   then
===================  =================================================  ===================
``ChanceOutcome``    a Chance is pending (wrong_phase); its label       ``on_chance``
                     (unknown_round); values of the requested draw:
                     a permutation of range(n) / ``count`` values in
                     [0, n) / ``count`` dice in 1..n (malformed)
``JointAction``      a Simultaneous is pending (wrong_phase); its       ``on_joint``
                     round id (unknown_round); choices for exactly its
                     slots, ``defaulted`` among them (malformed); each
                     choice passes ``check_choice`` (illegal)
``Act``              a Turn is pending (wrong_phase); the seat is       ``on_act``
                     awaited or ``open_to`` (not_your_turn); the
                     action parses with ``Actions`` (malformed); with
                     ``acts_enumerated``, it is one of
                     ``legal_actions`` (illegal)
===================  =================================================  ===================

A hook gets the pending node and the checked input and returns ``(new state, events)`` (or
their ``transition``) or a Rejection (``illegal``; ``malformed`` for an id that names nothing).
The template makes no copy of the state: one ``next`` call and the checks above per move. A
game whose state is a plain mutable object with ``clone()`` writes its moves in place instead
(OpenSpiel's ``DoApplyAction``): ``play_chance``, ``play_joint``, ``play_act`` change the state
they are given and add their events; the hooks' defaults clone the state and play the move on
the clone (OpenSpiel's ``child``), so the state they were given stays as it was. The kit's
rollout driver (``_kit.rollout.Rollout``) runs the same in-place moves on one clone.

An act listed by ``legal_actions`` for the state and seat it was last asked about (a caller
that picks from the list and applies its pick) is checked by membership in that list, type
for type as canonical JSON compares, and built from its JSON without a parse when its model
holds only scalars; any other act is parsed by ``Actions`` (malformed) and, with
``acts_enumerated``, refused as illegal. A game may also play such a listed act as its JSON
(``play_listed``): when the act is the very object listed, every guard above holds already,
and the game plays it on a clone with no model built. Likewise a game that knows its sealed
slots' listed values may check a joint action's choices itself (``check_joint``).

A state, once handed out, is never changed (frozen models, or plain objects by that rule), so
a game's ``next`` and ``legal_actions`` are pure functions of the state object: the template
remembers the last answer of each (by identity of the state, one entry per game object), and
the ``next`` or ``legal_actions`` a caller just asked for the state it then applies a move to
is not computed a second time (search and playouts ask both for every move).

Storage: ``encode``/``decode`` go through the game's ``State`` model, the schema of the
stored JSON. For a game whose state is that frozen model, ``to_stored``/``from_stored`` are
the identity; a game on a plain state converts there, at the edge only.
"""

from __future__ import annotations

import functools
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from shared.rules._kit.listed import JSON_OK, in_legal, json_ok, same_json, scalar_actions
from shared.rules._kit.model import Events
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    Event,
    JointAction,
    Json,
    Move,
    Node,
    Rejection,
    RuleError,
    SealedSlot,
    Seat,
    Simultaneous,
    Transition,
    Turn,
    default_check_choice,
    reject,
)

_new = object.__new__
_set = object.__setattr__

# a pydantic model's own slots, set through their descriptors (``_legal_action``)
_set_fields_set, _set_extra, _set_private = (
    getattr(BaseModel, f).__set__
    for f in ("__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))

S = TypeVar("S")
Opt = TypeVar("Opt", bound=BaseModel)
A = TypeVar("A")

# what a hook returns: the new state and its events (as ``Events`` recorded them, or made),
# or the ``Transition`` of them (``transition``: what the kit's own hooks return)
Step = tuple[S, Sequence[Event] | Events] | Transition


def transition(state: Any, events: Events) -> Transition:
    """``Transition(state, events.out)`` without the class call, its events made when read."""
    done: Transition = _new(Transition)
    done._state = state
    done._events = events  # the records (``Events`` is their list)
    return done


_AWAITS = {"turn": "a seat's action", "simultaneous": "a sealed round", "chance": "a draw",
           "terminal": "nothing: the game is over"}


def _not_pending(what: str, node: Node) -> Rejection:
    awaits = _AWAITS[node.kind]
    return reject("action/wrong_phase", f"no {what} is pending: the game awaits {awaits}")


def _memo_slot(kind: str, fn: Any) -> str:
    """The game object's attribute that remembers ``fn``'s last answer: one per function (a
    game's ``legal_actions`` may call its base class's, each remembering its own)."""
    return f"_kit_{kind}_" + re.sub(r"\W", "_", fn.__qualname__)


# The memo wrappers read and write their game attribute by its name in the code (an attribute
# lookup, with the class's None behind it until the first answer), not through ``__dict__``:
# search and playouts ask ``next`` and ``legal_actions`` for every move. An entry is one tuple,
# replaced whole, so a reader never sees a state with another state's answer.
_MEMO_NEXT = """
def next(self, state):
    memo = self.{slot}
    if memo is not None and memo[0] is state:
        return memo[1]
    node = fn(self, state)
    self.{slot} = (state, node)
    return node
"""

_MEMO_LEGAL = """
def legal_actions(self, state, seat):
    memo = self.{slot}
    if memo is not None and memo[0] is state and memo[1] == seat:
        return memo[2]
    acts = fn(self, state, seat)
    if type(acts) is not list:
        acts = list(acts)
    self.{slot} = (state, seat, acts)
    return acts
"""


def _memo(cls: type, kind: str, template: str, fn: Any) -> Any:
    """``fn`` remembering its last answer in the game attribute ``_memo_slot(kind, fn)``."""
    slot = _memo_slot(kind, fn)
    setattr(cls, slot, None)
    env: dict[str, Any] = {"fn": fn}
    exec(template.format(slot=slot), env)  # the templates above, with one name filled in
    return functools.wraps(fn)(env[kind if kind == "next" else "legal_actions"])


def _memoised_legal(game: Any, state: Any, seat: Seat) -> list[Json] | None:
    """The legal list the game last answered for (``state``, ``seat``), if that was the last
    question (a caller that picks from ``legal_actions`` then applies its pick), else None."""
    memo = getattr(game, game._kit_legal_slot)
    if memo is not None and memo[0] is state and memo[1] == seat:
        return memo[2]  # type: ignore[no-any-return]
    return None


# A listed action whose model is not built directly (an alias, a nested field: parsed by
# ``Actions``) is parsed once per listed object, for a game that lists the same action objects
# from state to state (tables built once): id -> (listed value, game class, its action model).
# A listed value is never changed, as a state is never changed, and the action models are
# frozen, so one model serves every move that picks that value. The memo holds each value it
# answers for, so an id there names that one object; it is emptied at ``_PARSED_MAX`` values.
_PARSED: dict[int, tuple[Any, type, Any]] = {}
_PARSED_MAX = 4096


def chance_fits(node: Chance, values: Sequence[int]) -> bool:
    """The values answer the request's draw (see ``api.Chance``)."""
    draw = node.draw
    if draw == "shuffle":
        return sorted(values) == list(range(node.n))
    if len(values) != node.count:
        return False
    low = 1 if draw == "dice" else 0
    high = node.n + low
    # a loop: all() over a generator, or min() and max(), cost more for a draw's few values
    for value in values:  # noqa: SIM110
        if not low <= value < high:
            return False
    return True


class GameBase(ABC, Generic[S, Opt, A]):
    """The contract's boilerplate and its ``apply`` template.

    A game sets ``State`` (the frozen model of its stored state) and ``Options`` (frozen
    models), ``Actions`` (the adapter of its Literal-tagged action union), overrides
    ``to_stored``/``from_stored`` when its state is not the ``State`` model itself, and
    implements ``setup``, ``next``, ``legal_actions``, ``default_action``, ``view``, ``score``
    and the hooks of the node kinds it uses: ``on_chance``, ``on_joint``, ``on_act``.
    ``check_choice`` defaults to membership in the slot's ``allowed``."""

    State: ClassVar[type[BaseModel]]
    Options: ClassVar[type[BaseModel]]
    Actions: ClassVar[TypeAdapter[Any]]
    acts_enumerated: ClassVar[bool] = False  # legal_actions lists every legal act exactly

    _kit_plays_listed: ClassVar[bool] = False  # the game defines play_listed
    _kit_plays_chance: ClassVar[bool] = False  # the game plays draws by the kit's on_chance
    _kit_legal_slot: ClassVar[str] = "_kit_legal_none"  # the memo of its legal_actions
    _kit_next_slot: ClassVar[str] = "_kit_legal_none"  # the memo of its next
    _kit_legal_none: ClassVar[None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._kit_plays_listed = cls.play_listed is not GameBase.play_listed
        cls._kit_plays_chance = cls.on_chance is GameBase.on_chance
        if "next" in cls.__dict__:
            cls._kit_next_slot = _memo_slot("next", cls.__dict__["next"])
            cls.next = _memo(cls, "next", _MEMO_NEXT,  # type: ignore[method-assign]
                             cls.__dict__["next"])
        if "legal_actions" in cls.__dict__:
            listing = cls.__dict__["legal_actions"]
            cls._kit_legal_slot = _memo_slot("legal", listing)
            cls.legal_actions = _memo(  # type: ignore[method-assign]
                cls, "legal", _MEMO_LEGAL, listing)

    # -- the game's rules ---------------------------------------------------------------

    @abstractmethod
    def next(self, state: S) -> Node: ...

    @abstractmethod
    def legal_actions(self, state: S, seat: Seat) -> Sequence[Json]: ...

    def on_chance(self, state: S, node: Chance, values: tuple[int, ...]) -> Step[S] | Rejection:
        new, events = state.clone(), Events()  # type: ignore[attr-defined]
        self.play_chance(new, node, values, events)
        return transition(new, events)

    def on_joint(self, state: S, node: Simultaneous, move: JointAction) -> Step[S] | Rejection:
        new, events = state.clone(), Events()  # type: ignore[attr-defined]
        self.play_joint(new, node, move, events)
        return transition(new, events)

    def on_act(self, state: S, node: Turn, seat: Seat, action: A) -> Step[S] | Rejection:
        new, events = state.clone(), Events()  # type: ignore[attr-defined]
        refused = self.play_act(new, node, seat, action, events)
        return refused if refused is not None else transition(new, events)

    # -- in place, on a clone (a plain mutable state: see the module's docstring) --------

    def play_chance(self, state: S, node: Chance, values: tuple[int, ...], events: Events
                    ) -> None:
        raise NotImplementedError(f"{type(self).__name__} asks for no draw")

    def play_joint(self, state: S, node: Simultaneous, move: JointAction, events: Events
                   ) -> None:
        raise NotImplementedError(f"{type(self).__name__} opens no sealed round")

    def play_act(self, state: S, node: Turn, seat: Seat, action: A, events: Events
                 ) -> Rejection | None:
        raise NotImplementedError(f"{type(self).__name__} opens no turn")

    def play_listed(self, state: S, seat: Seat, action: Json, events: Events) -> Rejection | None:
        """Optional, a game's short path for the act callers make most (search, bots,
        playouts): play, in place on a clone, an act that is the very object ``legal_actions``
        last listed for this state and seat, as that listed JSON. The kit has made every check
        by then (the seat is awaited and the act is legal), so it needs no parse. Without it
        the act is built as the game's action model and played by ``play_act``."""
        raise NotImplementedError

    def check_joint(self, node: Simultaneous, move: JointAction) -> bool:
        """Every choice of ``move`` is allowed in its slot (``check_choice``); the kit has
        checked the round and that the choices are exactly the slots'. A game that knows its
        slots' listed values may answer faster, the same way."""
        choices = move.choices
        return all(self.check_choice(slot, choices[slot.key]) for slot in node.slots)

    # -- the template -------------------------------------------------------------------

    def apply(self, state: S, move: Move) -> Transition | Rejection:
        new: Any = None
        if type(move) is Act and self._kit_plays_listed:
            # an act picked from the list ``legal_actions`` last answered for this state and
            # seat, the very object listed: every guard holds (see the module's docstring).
            # ``_memoised_legal`` written out: the one check every listed move pays
            memo = getattr(self, self._kit_legal_slot)
            action = move.action
            if memo is not None and memo[0] is state and memo[1] == move.seat:
                # by identity alone: ``list.index`` compares every equal-sized dict listed
                # before the act key by key, several times the cost of this loop on a long list
                for listed in memo[2]:
                    if listed is action:
                        break
                else:
                    listed = None
                if listed is not None:
                    new, events = state.clone(), Events()  # type: ignore[attr-defined]
                    refused = self.play_listed(new, move.seat, action, events)
                    if refused is not None:
                        return refused
        elif type(move) is ChanceOutcome and self._kit_plays_chance:
            # a draw answering the node ``next`` last answered (the memo, read as above), that
            # passes every guard of ``_kit_chance``: ``on_chance`` written out
            memo = getattr(self, self._kit_next_slot)
            node = memo[1] if memo is not None and memo[0] is state else self.next(state)
            values = move.values
            if type(node) is Chance and move.label == node.label and chance_fits(node, values):
                new, events = state.clone(), Events()  # type: ignore[attr-defined]
                self.play_chance(new, node, values, events)
        if new is not None:  # ``transition(new, events)`` written out: every move comes here
            done: Transition = _new(Transition)
            done._state, done._events = new, events
            return done
        node = self.next(state)
        step: Step[S] | Rejection
        if isinstance(move, Act):  # (the most common move first)
            step = self._kit_act(state, node, move)
        elif isinstance(move, ChanceOutcome):
            step = self._kit_chance(state, node, move)
        elif isinstance(move, JointAction):
            step = self._kit_joint(state, node, move)
        else:
            return reject("action/malformed", "not a move")
        if type(step) is Transition or isinstance(step, Rejection):
            return step
        new, made = step  # type: ignore[misc]
        return transition(new, made) if isinstance(made, Events) else Transition(new, made)

    def _kit_chance(self, state: S, node: Node, move: ChanceOutcome) -> Step[S] | Rejection:
        if not isinstance(node, Chance):
            return _not_pending("draw", node)
        if move.label != node.label:
            return reject("action/unknown_round", f"draw {move.label!r} is not the pending one")
        if not chance_fits(node, move.values):
            return reject("action/malformed", f"values do not fit the {node.draw} request "
                                              f"(n={node.n}, count={node.count})")
        return self.on_chance(state, node, move.values)

    def _kit_joint(self, state: S, node: Node, move: JointAction) -> Step[S] | Rejection:
        if not isinstance(node, Simultaneous):
            return _not_pending("sealed round", node)
        if move.round_id != node.round_id:
            return reject("action/unknown_round", f"round {move.round_id!r} is not the pending one")
        keys = {slot.key for slot in node.slots}
        if move.choices.keys() != keys or not keys.issuperset(move.defaulted):
            return reject("action/malformed", f"expected choices for exactly {sorted(keys)}")
        if not self.check_joint(node, move):
            bad = next((slot.key for slot in node.slots
                        if not self.check_choice(slot, move.choices[slot.key])), "?")
            return reject("action/illegal", f"the choice for {bad} is not allowed")
        return self.on_joint(state, node, move)

    def _kit_act(self, state: S, node: Node, move: Act) -> Step[S] | Rejection:
        if not isinstance(node, Turn):
            return _not_pending("turn", node)
        seat = move.seat
        if seat not in node.seats and seat not in node.open_to:
            return reject("action/not_your_turn", f"seat {seat} may not act now")
        raw = move.action
        legal = _memoised_legal(self, state, seat)  # the list the caller just asked for
        if legal is None and self.acts_enumerated:
            legal = self.legal_actions(state, seat)  # type: ignore[assignment]
        if legal is not None and in_legal(raw, legal):  # one of the listed legal actions
            return self.on_act(state, node, seat, self._legal_action(raw))
        try:
            action = self.Actions.validate_python(raw)
        except ValidationError as exc:
            return reject("action/malformed", str(exc.errors(include_url=False))[:300])
        if self.acts_enumerated:  # well-formed and not listed
            return reject("action/illegal", f"{raw!r} is not legal now"[:300])
        return self.on_act(state, node, seat, action)

    def _legal_action(self, raw: Any) -> A:
        """A listed legal action as the game's action model: built directly when its model
        holds only scalars (``scalar_actions``), else parsed by ``Actions`` once per listed
        object (``_PARSED``)."""
        cls = type(self)
        builders = cls.__dict__.get("_kit_builders")
        if builders is None:
            builders = {tag: (model, model.model_fields.keys(), set(model.model_fields))
                        for tag, model in scalar_actions(cls.Actions).items()}
            cls._kit_builders = builders  # type: ignore[attr-defined]
        got = builders.get(raw.get("type")) if type(raw) is dict else None
        if got is None or raw.keys() != got[1]:  # not such a model, or a field left default
            return self._parsed_action(cls, raw)
        built = _new(got[0])  # what validation makes of it: its fields, all set, as given
        _set(built, "__dict__", raw.copy())
        _set_fields_set(built, got[2])  # shared: a frozen model's never changes
        _set_extra(built, None)
        _set_private(built, None)
        return built  # type: ignore[no-any-return]

    def _parsed_action(self, cls: type, raw: Any) -> A:
        """``Actions.validate_python(raw)`` of a listed action, the one made for the very same
        listed object before if there is one (``_PARSED``)."""
        known = _PARSED.get(id(raw))
        if known is not None and known[0] is raw and known[1] is cls:
            return known[2]  # type: ignore[no-any-return]
        parsed: A = self.Actions.validate_python(raw)
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[id(raw)] = (raw, cls, parsed)
        return parsed

    # -- the rest of the boilerplate ----------------------------------------------------

    def options_schema(self) -> dict[str, Json]:
        return self.Options.model_json_schema()

    def parse_options(self, options: dict[str, Json]) -> Opt:
        try:
            return self.Options.model_validate(options)  # type: ignore[return-value]
        except ValidationError as exc:
            raise RuleError(f"invalid options: {exc.errors(include_url=False)}") from exc

    def check_choice(self, slot: SealedSlot, choice: Json) -> bool:
        """``api.default_check_choice`` (membership, type-strict as canonical JSON) without
        writing JSON per allowed value: exact types compare directly, anything else (a
        subclass, a mix of types) is left to ``default_check_choice`` itself."""
        allowed = slot.allowed
        if allowed is None:
            return False
        at = 0
        while True:  # each allowed value equal to the choice (found by tuple.index, in C)
            try:
                at = allowed.index(choice, at)
            except ValueError:
                return False
            listed = allowed[at]
            if listed is choice:  # the listed value itself (picked from the slot's list)
                known = JSON_OK.get(id(choice))
                same = known[1] if known is not None else json_ok(choice)
            else:
                same = same_json(listed, choice)
            if same is None:
                return default_check_choice(slot, choice)
            if same:
                return True
            at += 1

    # Earlier rules versions this engine still plays: version -> the options that
    # version's games had implicitly, i.e. the defaults of options added or changed since.
    # A game started under such a version keeps its rules: its stored state decodes with
    # them (an option missing from the stored state is the old one, not today's default),
    # and its log replays with them (``replay.transitions(..., rules_version=...)``).
    legacy_rules: ClassVar[dict[str, dict[str, Json]]] = {}
    legacy_version: ClassVar[str | None] = None  # the version of a state stored without them

    def options_for(self, options: dict[str, Json], rules_version: str | None) -> dict[str, Json]:
        """``options`` as a game started under ``rules_version`` had them."""
        legacy = self.legacy_rules.get(rules_version or "")
        return {**legacy, **options} if legacy else dict(options)

    # A state is stored as the JSON of the ``State`` model: the state itself for a game whose
    # state is that frozen model; a game with a plain state converts at this edge only.

    def to_stored(self, state: S) -> BaseModel:
        """The state as its ``State`` model (to encode)."""
        return state  # type: ignore[return-value]

    def from_stored(self, stored: Any) -> S:
        """The state from its validated ``State`` model (decoded)."""
        return stored  # type: ignore[no-any-return]

    def encode(self, state: Any) -> dict[str, Json]:
        return self.to_stored(state).model_dump(mode="json")

    def decode(self, data: dict[str, Json]) -> S:
        stored = data.get("options")
        if self.legacy_version is not None and isinstance(stored, dict):
            legacy = self.legacy_rules[self.legacy_version]
            if any(k not in stored for k in legacy):  # stored by the old release
                data = {**data, "options": {**legacy, **stored}}
        return self.from_stored(self.State.model_validate(data))
