"""Base class for wire messages."""

from pydantic import BaseModel, ConfigDict

from shared.protocol.versions import PROTOCOL_VERSION


class Wire(BaseModel):
    """Every wire message: frozen, unknown fields refused, schema version ``v``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = PROTOCOL_VERSION
