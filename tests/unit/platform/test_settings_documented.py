"""Every setting an operator can give (pydantic-settings, prefix ``EMPIRE_``) is named in
docs/operations.md: a setting added without its line there fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_settings import BaseSettings

from services.gateway.edge.limits import GatewayLimits
from shared.runtime.settings import Settings

pytestmark = pytest.mark.unit

OPERATIONS = Path(__file__).parents[3] / "docs" / "operations.md"


@pytest.mark.parametrize("settings", [Settings, GatewayLimits])
def test_every_setting_is_in_the_operations_guide(settings: type[BaseSettings]) -> None:
    prefix = settings.model_config.get("env_prefix") or ""
    assert prefix == "EMPIRE_"
    text = OPERATIONS.read_text()
    missing = [f"{prefix}{name.upper()}" for name in settings.model_fields
               if f"`{prefix}{name.upper()}`" not in text]
    assert not missing, f"not in docs/operations.md: {missing}"
