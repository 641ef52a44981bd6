"""``build(cls, **fields)``: a frozen model from values the engine made itself, unvalidated.

Like ``_kit.model.construct`` (no checks: the values are already of the fields' exact types),
but its fields keep the model's declared order, as validation gives them, so that
``model_dump`` (stored states, nodes shown to the seats) writes the keys in the same order
as a validated model does.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
_set = object.__setattr__
# model -> (name, default, default factory) of each field, in declared order
_FIELDS: dict[type[BaseModel], tuple[tuple[str, Any, Any], ...]] = {}


def _fields(cls: type[BaseModel]) -> tuple[tuple[str, Any, Any], ...]:
    got = _FIELDS.get(cls)
    if got is None:
        got = _FIELDS[cls] = tuple((name, info.default, info.default_factory)
                                   for name, info in cls.model_fields.items())
    return got


def build(cls: type[M], /, **fields: Any) -> M:
    """``cls(**fields)`` without validation, the fields in declared order; a missing field
    takes its default (a required one missing is a bug: KeyError)."""
    d: dict[str, Any] = {}
    for name, default, factory in _fields(cls):
        if name in fields:
            d[name] = fields[name]
        elif factory is not None:
            d[name] = factory()
        elif default is PydanticUndefined:
            raise KeyError(f"{cls.__name__}.{name} is required")
        else:
            d[name] = default
    m = _new(cls)
    _set(m, "__dict__", d)
    _set(m, "__pydantic_fields_set__", set(fields))
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m
