"""The layers, read from each module's syntax tree. shared/ sits below the services: nothing
under it imports ``services`` (the contract package, the rules and the runtime helpers are what
the services build on, never the other way); an import inside a function or under
``if TYPE_CHECKING`` counts too, and so does ``importlib.import_module("services...")``. And a
service's ports (services/<service>/ports.py) never import its adapters or shell: the store
implements the port, not the other way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT / "shared"


def _is_service(module: str) -> bool:
    return module == "services" or module.startswith("services.")


def service_imports(source: str, filename: str = "<source>") -> list[str]:
    """The ``services`` modules ``source`` imports, as ``line: module``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: {a.name}" for a in node.names if _is_service(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if _is_service(node.module):
                found.append(f"{node.lineno}: {node.module}")
        elif isinstance(node, ast.Call) and _imports_by_name(node):
            name = _literal_head(node.args[0])
            if name is not None and _is_service(name):
                found.append(f"{node.lineno}: {name}")
    return sorted(found, key=lambda hit: int(hit.split(":")[0]))


def _imports_by_name(call: ast.Call) -> bool:
    f = call.func
    return bool(call.args) and ((isinstance(f, ast.Attribute) and f.attr == "import_module")
                                or (isinstance(f, ast.Name)
                                    and f.id in ("import_module", "__import__")))


def _literal_head(arg: ast.expr) -> str | None:
    """A string argument's literal text, or an f-string's literal start ("services.")."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if (isinstance(arg, ast.JoinedStr) and arg.values
            and isinstance(arg.values[0], ast.Constant) and isinstance(arg.values[0].value, str)):
        return arg.values[0].value
    return None


def test_the_checker_sees_every_form_of_import() -> None:
    src = "\n".join([
        "import services",
        "import os, services.lobby.app as app",
        "from services.adjudicator import core",
        "from typing import TYPE_CHECKING",
        "if TYPE_CHECKING:",
        "    from services.escrow.store import Step",
        "def f():",
        "    import importlib",
        "    return importlib.import_module('services.gateway.app')",
        "svc = 'lobby'",
        "app = importlib.import_module(f'services.{svc}.app')",
        "from shared.protocol import keys",      # not a service
        "import servicesx",                      # not a service either
        "from . import services",  # relative: this package's own module
    ])
    assert service_imports(src) == ["1: services", "2: services.lobby.app",
                                    "3: services.adjudicator", "6: services.escrow.store",
                                    "9: services.gateway.app", "11: services."]


def test_the_check_fails_on_a_module_that_imports_a_service(tmp_path: Path) -> None:
    bad = tmp_path / "shared" / "protocol" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("from services.lobby.app import create_app\n")
    assert offenders(tmp_path / "shared") == {"shared/protocol/bad.py": ["1: services.lobby.app"]}


def offenders(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        if found := service_imports(path.read_text(), str(path)):
            out[str(path.relative_to(root.parent))] = found
    return out


def test_nothing_under_shared_imports_a_service() -> None:
    assert len(list(SHARED.rglob("*.py"))) > 50  # the walk reads the real tree
    assert offenders(SHARED) == {}


ADAPTERS = ("store", "app", "service", "rpc")  # a service's adapters and shells


def adapter_imports(source: str, filename: str = "<source>") -> list[str]:
    """The service adapter or shell modules (``services.<x>.store`` and the like) ``source``
    imports."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module] if isinstance(node, ast.ImportFrom) and node.module
                 else [])
        if isinstance(node, ast.ImportFrom) and node.module:
            names += [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "services" and any(p in ADAPTERS for p in parts[2:3]):
                found.append(f"{node.lineno}: {name}")
    return sorted(set(found))


def test_the_port_check_sees_an_adapter_import() -> None:
    assert adapter_imports("from services.escrow.store import Step\n") == [
        "1: services.escrow.store", "1: services.escrow.store.Step"]
    assert adapter_imports("from services.lobby import store\n") == ["1: services.lobby.store"]
    assert adapter_imports("from services.lobby import tables\n"
                           "from services.adjudicator.core import GameDoc\n") == []


def test_no_port_imports_an_adapter() -> None:
    ports = sorted((ROOT / "services").glob("*/ports.py"))
    assert len(ports) >= 6  # every service but the gateway has one
    bad = {str(p.relative_to(ROOT)): found for p in ports
           if (found := adapter_imports(p.read_text(), str(p)))}
    assert bad == {}
