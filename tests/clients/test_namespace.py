"""The build step that namespaces the installed distributions (packaging/namespace.py):
absolute first-party imports and the module paths the code resolves at run time go
under the wheel's root package; everything else is left as it was."""

from __future__ import annotations

import ast
import importlib.util
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = [pytest.mark.unit, pytest.mark.clients]

ROOT = Path(__file__).resolve().parents[2]
KIDS = {"shared": {"rules", "fairness", "protocol"}, "services": {"gateway", "supervisor"},
        "clients": {"sdk", "tui"}}


def _load() -> ModuleType:
    # by path: the repository's packaging/ is not the PyPI ``packaging`` the tests import
    spec = importlib.util.spec_from_file_location("_namespace_under_test",
                                                  ROOT / "packaging" / "namespace.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ns = _load()


def rewrite(src: str) -> str:
    out: str = ns.rewrite_source(textwrap.dedent(src), "empire_hall", KIDS)
    ast.parse(out)  # still Python
    return out


def test_import_statements_go_under_the_root() -> None:
    out = rewrite("""\
        from shared.rules import registry
        from shared import a, b
        from services.gateway.app import (
            create_app,
            other,
        )
        import shared.fairness.verify as verify
        import shared
        import os, shared.rules.duel, clients.sdk as sdk
        if True:
            from clients.sdk import Client  # shared.rules in a comment stays
        """)
    several = ("import os; import empire_hall.shared.rules.duel; from empire_hall import shared; "
               "import empire_hall.clients.sdk as sdk")
    assert out == textwrap.dedent("""\
        from empire_hall.shared.rules import registry
        from empire_hall.shared import a, b
        from empire_hall.services.gateway.app import (
            create_app,
            other,
        )
        import empire_hall.shared.fairness.verify as verify
        from empire_hall import shared
        SEVERAL
        if True:
            from empire_hall.clients.sdk import Client  # shared.rules in a comment stays
        """).replace("SEVERAL", several)


def test_relative_and_foreign_imports_and_lookalike_names_stay() -> None:
    src = """\
        from . import shared
        from .shared import x
        from ..services import y
        from sharedlib import shared_key
        import shared_key, servicesx
        from typing import Any
        shared_key = services_url = clients_seen = 1
        x = shared_key.rules
        """
    assert rewrite(src) == textwrap.dedent(src)


def test_module_paths_in_strings_are_rewritten_and_other_text_is_not() -> None:
    out = rewrite('''\
        MODULES = {"duel": "shared.rules.duel", "e": 'shared.rules.empire'}
        argv = [sys.executable, "-m", f"services.{proc.service}"]
        app = "services.gateway.app:app"
        hint = f"python -m shared.fairness.verify {url} {gid}"
        doc = """see
           ``clients.sdk.bot_player`` for the loop"""
        untouched = ["shared", "services.yaml", "shared_key.rules", "my.shared.rules",
                     "shared.nothing", "shared/rules/duel", b"x"]
        ''')
    assert '"empire_hall.shared.rules.duel"' in out and "'empire_hall.shared.rules.empire'" in out
    assert 'f"empire_hall.services.{proc.service}"' in out
    assert '"empire_hall.services.gateway.app:app"' in out
    assert "python -m empire_hall.shared.fairness.verify {url}" in out
    assert "``empire_hall.clients.sdk.bot_player`` for the loop" in out
    assert ('untouched = ["shared", "services.yaml", "shared_key.rules", "my.shared.rules",\n'
            '             "shared.nothing", "shared/rules/duel", b"x"]') in out


def test_non_ascii_text_before_an_import_keeps_the_offsets_right() -> None:
    out = rewrite("""\
        x = "帝国 😀 é"; from shared.rules import registry
        y = "ü"; import shared.fairness as f
        """)
    assert 'x = "帝国 😀 é"; from empire_hall.shared.rules import registry' in out
    assert 'y = "ü"; import empire_hall.shared.fairness as f' in out


def test_staging_copies_the_tree_under_the_root(tmp_path: Path) -> None:
    written = ns.stage(tmp_path, "empire_hall_sdk",
                       ["shared/rules/registry.py", "shared/fairness"])
    base = tmp_path / "empire_hall_sdk"
    assert (base / "__init__.py") in written
    registry = (base / "shared" / "rules" / "registry.py").read_text()
    assert '"empire_hall_sdk.shared.rules.duel"' in registry
    assert "from shared" not in registry and "import shared" not in registry
    verify = (base / "shared" / "fairness" / "verify.py").read_text()
    assert "python -m empire_hall_sdk.shared.fairness.verify" in verify
    assert not list(base.rglob("__pycache__"))
    for f in base.rglob("*.py"):  # every staged module is still Python
        ast.parse(f.read_text())


def test_the_staged_server_tree_imports_nothing_outside_its_root(tmp_path: Path) -> None:
    """What the server wheel ships (the root pyproject's hook include): no absolute import of
    a top-level ``shared``/``services``/``clients`` and no string naming one of their modules
    is left anywhere in it."""
    import tomllib

    table = tomllib.loads((ROOT / "pyproject.toml").read_text())
    hook = table["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]
    assert hook["root"] == "empire_hall"
    ns.stage(tmp_path, "empire_hall", hook["include"])
    first_party = set(ns.FIRST_PARTY)
    module_path = ns._string_pattern(ns.children())
    left: list[str] = []
    files = sorted((tmp_path / "empire_hall").rglob("*.py"))
    assert len(files) > 200
    for f in files:
        where = f.relative_to(tmp_path).as_posix()
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                left += [f"{where}: import {a.name}" for a in node.names
                         if a.name.split(".")[0] in first_party]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.split(".")[0] in first_party:
                    left.append(f"{where}: from {node.module}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                left += [f"{where}: {node.value[m.start():m.start() + 40]!r}"
                         for m in module_path.finditer(node.value)
                         if not node.value[:m.start()].endswith("empire_hall.")]
    assert left == []
    # and the console scripts' targets are there
    for target in hook["scripts"].values():
        module, _, func = target.partition(":")
        path = tmp_path / (module.replace(".", "/") + ".py")
        assert f"def {func}(" in path.read_text(), target
