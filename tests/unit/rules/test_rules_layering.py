"""The rules never import the players: every module under shared/rules imports neither
``shared.ai`` (bots, search, determinization) nor the services, bench or clients. The AI
reads the games; the games know nothing of it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]
RULES = ROOT / "shared" / "rules"
FORBIDDEN = ("shared.ai", "services", "bench", "clients")


def _module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path, root: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports (relative imports resolved against its package), with
    the line, and every module named by a string literal it passes to ``import_module``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    module = _module_of(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            out.append((node.lineno, name))
            out += [(node.lineno, f"{name}.{alias.name}") for alias in node.names]
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id in ("import_module",
                                                                            "__import__")))):
            out.append((node.lineno, node.args[0].value))
    return out


def forbidden_imports(rules: Path, root: Path) -> list[str]:
    """``file:line imports module`` for every import of ``FORBIDDEN`` under ``rules``."""
    bad = []
    for path in sorted(rules.rglob("*.py")):
        for line, name in imported(path, root):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN):
                bad.append(f"{path.relative_to(root)}:{line} imports {name}")
    return bad


def test_no_rules_module_imports_the_ai_services_bench_or_clients() -> None:
    modules = list(RULES.rglob("*.py"))
    assert len(modules) > 50  # the walk found the engines
    assert forbidden_imports(RULES, ROOT) == []


@pytest.mark.parametrize("source", [
    "from shared.ai.search import SearchBot\n",
    "import shared.ai.registry\n",
    "def f():\n    from shared.ai import registry\n",
    "from ...ai.empire import bot\n",
    "import importlib\nimportlib.import_module('shared.ai.empire.bot')\n",
    "from services.bots import search\n",
    "import bench.ladder\n",
    "from clients.sdk import bot_player\n",
])
def test_the_check_finds_each_kind_of_import_of_the_ai(tmp_path: Path, source: str) -> None:
    rules = tmp_path / "shared" / "rules" / "game"
    rules.mkdir(parents=True)
    (rules / "ok.py").write_text("from shared.rules.api import Game\nfrom . import ok\n")
    (rules / "engine.py").write_text(source)
    found = forbidden_imports(tmp_path / "shared" / "rules", tmp_path)
    assert found and all(f.startswith("shared/rules/game/engine.py:") for f in found), found
