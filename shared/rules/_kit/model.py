"""The one frozen base model of the rules packages (STYLE.md principle 2).

Every state, option, action and contract value is a frozen pydantic model that refuses
unknown fields; ``Strict`` also refuses coercion (``"3"`` or ``true`` for an int), for action
unions whose games check types exactly. Update with ``model_copy(update=...)``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """Immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Strict(Frozen):
    """``Frozen`` without type coercion."""

    model_config = ConfigDict(strict=True)
