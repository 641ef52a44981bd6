"""The one frozen base model of the rules packages (STYLE.md principle 2).

Every state, option, action and contract value is a frozen pydantic model that refuses
unknown fields; ``Strict`` also refuses coercion (``"3"`` or ``true`` for an int), for action
unions whose games check types exactly. Update with ``model_copy(update=...)``.

Speed: the engines build and copy these models on every move, so the hot paths
skip pydantic's Python-level machinery where the values are already valid:

* ``Frozen.model_copy`` is pydantic's shallow copy (same ``__dict__``, fields set and
  private/extra slots) without ``copy.copy`` per slot; ``deep=True`` is pydantic's own.
* ``construct(cls, **fields)`` builds a model from values the engine made itself (exact field
  types: tuples for tuples, ints for ints), filling defaults like validation would, without
  validating. pydantic's own ``model_construct`` is slower than validation for small models.
* ``event(type=..., data=..., visible_to=...)`` builds an ``api.Event`` (a dataclass) from
  data the engine just built, checking its top level is JSON (``NotJson`` if not).

None of them changes a value: a model built or copied this way equals (and encodes like) the
validated one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic_core import PydanticUndefined

from shared.rules.api import Event, Seat

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
_set = object.__setattr__


class Frozen(BaseModel):
    """Immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        if deep or self.__pydantic_private__ is not None:
            return super().model_copy(update=update, deep=deep)
        m = _new(type(self))
        d = self.__dict__.copy()
        fields_set = self.__pydantic_fields_set__  # shared until it changes (never mutated)
        if update:
            d.update(update)
            if not fields_set.issuperset(update):
                fields_set = fields_set | update.keys()
        _set(m, "__dict__", d)
        _set(m, "__pydantic_fields_set__", fields_set)
        _set(m, "__pydantic_extra__", None)
        _set(m, "__pydantic_private__", None)
        return m


class Strict(Frozen):
    """``Frozen`` without type coercion."""

    model_config = ConfigDict(strict=True)


# -- non-validating construction ------------------------------------------------------------

_DEFAULTS: dict[type[BaseModel], tuple[dict[str, Any], tuple[tuple[str, Any], ...]]] = {}


def _defaults(cls: type[BaseModel]) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...]]:
    """(plain defaults, (name, factory) pairs) of ``cls``'s fields; required fields absent."""
    got = _DEFAULTS.get(cls)
    if got is None:
        plain: dict[str, Any] = {}
        factories: list[tuple[str, Any]] = []
        for name, info in cls.model_fields.items():
            if info.default_factory is not None:
                factories.append((name, info.default_factory))
            elif info.default is not PydanticUndefined:
                plain[name] = info.default
        got = _DEFAULTS[cls] = (plain, tuple(factories))
    return got


def construct(cls: type[M], /, **fields: Any) -> M:
    """``cls(**fields)`` for values that are already of the fields' exact types (no checks).

    Missing fields take their defaults; a required one missing is a bug (KeyError on use)."""
    plain, factories = _defaults(cls)
    d = plain.copy()
    for name, factory in factories:
        if name not in fields:
            d[name] = factory()
    d.update(fields)
    m = _new(cls)
    _set(m, "__dict__", d)
    _set(m, "__pydantic_fields_set__", set(fields))
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m


_JSON_TYPES = frozenset({str, int, float, bool, type(None), list, dict})
_type = type


def _not_json(type_: Any, data: Any, visible_to: Any) -> str | None:
    """What makes an event not one of JSON (top level: a str type, a dict of str keys and
    JSON-typed values, a tuple of int seats), or None."""
    if _type(type_) is not str:
        return f"event type {type_!r} is not a str"
    if visible_to is not None and not (
            _type(visible_to) is tuple and all(_type(s) is int for s in visible_to)):
        return f"visible_to {visible_to!r} is not a tuple of seats"
    if _type(data) is not dict:
        return f"event data {data!r} is not a dict"
    for k, v in data.items():
        if _type(k) is not str or _type(v) not in _JSON_TYPES:
            return f"event data {k!r}: {v!r} is not JSON"
    return None


class NotJson(ValueError):
    """An event built with values that are not JSON (a rules bug: the log and the wire carry
    events as JSON)."""


def event(*, type: str, data: dict[str, Any] | None = None,
          visible_to: tuple[Seat, ...] | None = None) -> Event:
    """``Event(type=..., data=..., visible_to=...)`` checked at its top level (``NotJson``):
    the engines build each event's data as a fresh dict of JSON values (lists, never tuples);
    nested values are taken as they are."""
    data = {} if data is None else data
    bad = _not_json(type, data, visible_to)
    if bad is not None:
        raise NotJson(bad)
    return Event(type=type, data=data, visible_to=visible_to)


class Events(list[tuple[str, dict[str, Any], tuple[Seat, ...] | None]]):
    """The events of one move, recorded as the rules run: the list of their (type, data,
    visible_to), one per ``add``. A plain public event is taken as the rules built it (a fresh
    dict of JSON values: the kit's tests check that every event of seeded games of every game
    round-trips through ``api.to_json`` / ``from_json`` unchanged), and so is a private one's
    (its ``visible_to`` checked to be a tuple of seats); data that is not a dict is refused
    (``NotJson``). ``out`` makes them the ``Event`` values their constructor makes; the kit's
    template hands the records to its ``Transition`` as they are, which makes the values only
    when its ``events`` are read. A list, made by the list's own constructor: the kit makes
    one for every move.

    ``QuietEvents()`` records none (a playout nobody reads the log of); a rule whose event
    data is costly to build checks ``keep`` first."""

    __slots__ = ()
    keep: ClassVar[bool] = True

    def add(self, type: str, data: dict[str, Any],
            visible_to: tuple[Seat, ...] | None = None) -> None:
        if _type(data) is not dict or (visible_to is not None and not (
                _type(visible_to) is tuple and (
                    _type(visible_to[0]) is int if len(visible_to) == 1
                    else all(_type(s) is int for s in visible_to)))):
            raise NotJson(_not_json(type, data, visible_to) or f"event data {data!r}")
        self.append((type, data, visible_to))

    @property
    def out(self) -> list[Event]:
        """The recorded events as ``Event`` values (made through their slots, as
        ``api.Transition.events`` makes them)."""
        made = []
        for type_, data, visible_to in self:
            event = _new(Event)
            _set_type(event, type_)
            _set_data(event, data)
            _set_visible_to(event, visible_to)
            made.append(event)
        return made


class QuietEvents(Events):
    """``Events`` that records nothing (``keep`` is False)."""

    __slots__ = ()
    keep: ClassVar[bool] = False

    def add(self, type: str, data: dict[str, Any],
            visible_to: tuple[Seat, ...] | None = None) -> None:
        return


_set_type, _set_data, _set_visible_to = (
    getattr(Event, f).__set__ for f in ("type", "data", "visible_to"))
