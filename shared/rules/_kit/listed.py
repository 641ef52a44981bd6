"""Listed values as the kit's template checks and builds them (``_kit.base``): an act or a
sealed choice is legal when it is one of the listed values as canonical JSON compares them
(type-strict: ``true`` is not ``1``), and a listed act whose model holds only scalars is built
from its JSON without validation.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel, TypeAdapter

from shared.fairness.lp import SAFE_INT, canonical_json
from shared.rules.api import Json


def in_legal(action: Any, legal: list[Json]) -> bool:
    """``action`` is one of ``legal`` as canonical JSON is (type-strict: ``true`` is not
    ``1``): found by ``list.index`` (in C; the very object listed, as a caller that picked
    from the list passes it, is found at once), then, unless it is that object, its types
    compared."""
    at = 0
    while True:
        try:
            at = legal.index(action, at)
        except ValueError:
            return False
        listed = legal[at]
        if listed is action:  # the listed object itself (picked from the list): found
            return True
        same = same_json(listed, action)
        if same is None:
            try:
                same = canonical_json(listed) == canonical_json(action)
            except ValueError:  # a float, or an integer beyond JSON's: never a listed act
                same = False
        if same:
            return True
        at += 1


def scalar_actions(adapter: TypeAdapter[Any]) -> dict[str, type[BaseModel]]:
    """The action models of a Literal-tagged union (``type`` tag -> model) whose fields are all
    plain scalars (str, int, bool, None, Literal of them) named as in the JSON (no alias) and
    that have no validators: a legal action of such a model is built from its JSON without
    validation (``construct``) and is what validation makes."""
    out: dict[str, type[BaseModel]] = {}
    scalar = (str, int, bool, type(None))
    for cls in union_members(adapter.core_schema):
        tags = typing.get_args(cls.model_fields["type"].annotation)
        decorators = cls.__pydantic_decorators__
        ok = len(tags) == 1 and not (decorators.field_validators or decorators.model_validators)
        tag = tags[0] if ok else None
        for name, info in cls.model_fields.items():
            if (info.alias or name) != name or info.validation_alias is not None:
                ok = False  # the JSON key is not the field's name
            ann = info.annotation
            args = typing.get_args(ann)
            origin = typing.get_origin(ann)
            if ann in scalar:
                continue
            if origin is typing.Literal and all(type(a) in scalar for a in args):
                continue
            if origin in (typing.Union, types.UnionType) and all(a in scalar for a in args):
                continue
            ok = False
        if ok and isinstance(tag, str):
            out[tag] = cls
    return out


def union_members(schema: Any) -> list[type[BaseModel]]:
    """The pydantic models of an adapter's (tagged) union schema."""
    found: list[type[BaseModel]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            cls = node.get("cls")
            if node.get("type") == "model" and isinstance(cls, type) and \
                    issubclass(cls, BaseModel) and cls not in found:
                found.append(cls)
                return
            for v in node.values():
                walk(v)
        elif isinstance(node, list | tuple):
            for v in node:
                walk(v)

    walk(schema)
    return [c for c in found if "type" in c.model_fields]


JSON_OK: dict[int, tuple[Any, bool | None]] = {}  # id -> (value, same_json(value, value))
JSON_OK_MAX = 4096  # values JSON_OK remembers at most


def json_ok(value: Any) -> bool | None:
    """``same_json(value, value)``: whether ``value`` is plain canonical JSON (True/False) or
    None (ask ``canonical_json``), remembered in ``JSON_OK`` by identity for a sealed choice
    picked from its slot's ``allowed`` (``check_choice``: a caller that picks from the list
    passes the listed object itself, and a game shares its allowed values between slots and
    states). A listed value is never changed, as a state is never changed. The memo holds
    each value it answers for, so an id there names that one object; it is emptied when it
    reaches ``JSON_OK_MAX`` values."""
    if len(JSON_OK) >= JSON_OK_MAX:
        JSON_OK.clear()
    ok = same_json(value, value)
    JSON_OK[id(value)] = (value, ok)
    return ok


def same_json(a: Any, b: Any) -> bool | None:
    """For ``a == b``: whether their canonical JSON texts are equal too (True/False), or None
    when the types are not plain JSON ones of the same kind (then ask ``canonical_json``)."""
    ta = type(a)
    if ta is not type(b):
        return None
    if ta is str or ta is bool or a is None:
        return True
    if ta is int:
        return bool(abs(a) <= SAFE_INT)  # beyond: canonical JSON refuses it
    if ta is float:
        return False  # canonical JSON refuses floats
    if ta is dict:
        result: bool | None = True
        for k, v in a.items():
            if type(k) is not str:
                return None
            w = b[k]
            tv = type(v)
            if tv is str and type(w) is str:  # the common flat cases, without a call
                continue
            if tv is int and type(w) is int:
                if abs(v) > SAFE_INT:
                    result = False
                continue
            r = same_json(v, w)
            if r is None:
                return None
            result = result and r
        return result
    if ta is list or ta is tuple:
        result = True
        for x, y in zip(a, b, strict=True):
            r = same_json(x, y)
            if r is None:
                return None
            result = result and r
        return result
    return None
