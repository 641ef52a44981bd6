"""Per-address limits exempt nobody on a deployment: a proxy on the same host reaching the
gateway over loopback would otherwise exempt every client behind it. Only the development
system (``make run``: services/supervisor.py) exempts loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.gateway.edge.limits import GatewayLimits
from services.supervisor import Proc, Supervisor

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[3]


def test_the_shipped_configuration_exempts_no_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EMPIRE_RATE_EXEMPT_IPS", raising=False)
    assert GatewayLimits(_env_file=None).exempt == ()  # type: ignore[call-arg]
    shipped = [ROOT / "docker-compose.yml", *sorted((ROOT / "deploy").rglob("*"))]
    setting = [p for p in shipped if p.is_file() and p.suffix in ("", ".env", ".yml", ".yaml")
               and "EMPIRE_RATE_EXEMPT_IPS" in p.read_text(errors="replace")]
    assert setting == []


def test_development_exempts_loopback_unless_told_otherwise(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EMPIRE_RATE_EXEMPT_IPS", raising=False)
    dev = Supervisor(redis_url="redis://127.0.0.1:1/0").env(Proc("gateway", 0))
    assert dev["EMPIRE_RATE_EXEMPT_IPS"] == "127.0.0.0/8,::1/128"
    told = Supervisor(redis_url="redis://127.0.0.1:1/0",
                      env_extra={"EMPIRE_RATE_EXEMPT_IPS": ""}).env(Proc("gateway", 0))
    assert told["EMPIRE_RATE_EXEMPT_IPS"] == ""
