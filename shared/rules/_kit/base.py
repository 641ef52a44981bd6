"""A base class that gives a game the contract's boilerplate from two pydantic models."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from shared.rules.api import Json, RuleError, SealedSlot, default_check_choice

S = TypeVar("S", bound=BaseModel)
Opt = TypeVar("Opt", bound=BaseModel)


class GameBase(Generic[S, Opt]):
    """Implements options_schema, check_choice, encode, decode and option parsing.

    Subclasses set ``State`` and ``Options`` (frozen pydantic models) and the rule methods.
    """

    State: ClassVar[type[BaseModel]]
    Options: ClassVar[type[BaseModel]]

    def options_schema(self) -> dict[str, Json]:
        return self.Options.model_json_schema()

    def parse_options(self, options: dict[str, Json]) -> Opt:
        try:
            return self.Options.model_validate(options)  # type: ignore[return-value]
        except ValidationError as exc:
            raise RuleError(f"invalid options: {exc.errors(include_url=False)}") from exc

    def check_choice(self, slot: SealedSlot, choice: Json) -> bool:
        return default_check_choice(slot, choice)

    def encode(self, state: Any) -> dict[str, Json]:
        return state.model_dump(mode="json")  # type: ignore[no-any-return]

    def decode(self, data: dict[str, Json]) -> S:
        return self.State.model_validate(data)  # type: ignore[return-value]
