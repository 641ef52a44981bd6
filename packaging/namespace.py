"""Namespace the installed distributions at build time, the way pip vendors
its dependencies: the repository keeps its top-level packages (``shared``, ``services``,
``clients``: the guide mandates them, and ``python -m services.X`` runs from the tree), and a
wheel ships copies of them under one root package (``empire_hall``, ``empire_hall_sdk``) with
their absolute imports rewritten, so nothing generic lands in site-packages and the server and
the SDK install side by side.

Stdlib only (the hatch build hook, ``packaging/hatch_namespace.py``, runs it in uv's isolated
build environment). What it rewrites, in ``.py`` files only (every other file is copied as is):

- import statements, from the syntax tree: ``from shared.x import a`` -> ``from ROOT.shared.x
  import a``; ``import shared.x as y`` -> ``import ROOT.shared.x as y``; ``import shared.x``
  (which binds ``shared``) -> ``import ROOT.shared.x; from ROOT import shared``. Relative
  imports and other packages are left alone;
- module paths inside string literals (f-strings too), the ones the code resolves at run time:
  ``"shared.rules.empire"`` (the game registry), ``f"services.{name}"`` (the supervisor's
  ``-m`` argv), ``"services.gateway.app"``. Only a first-party package name followed by a dot
  and one of that package's own children (or an f-string field) counts, so ``shared_key``,
  ``"shared"`` alone, ``"services.yaml"`` and comments stay as they are.

    python packaging/namespace.py STAGING ROOT PATH...   # PATHs relative to the repository
"""

from __future__ import annotations

import ast
import io
import re
import shutil
import sys
import tokenize
from collections.abc import Iterable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIRST_PARTY = ("shared", "services", "clients")
_SKIP = {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def children(repo: Path = REPO, packages: Iterable[str] = FIRST_PARTY) -> dict[str, set[str]]:
    """Each first-party package's direct children (subpackages and modules), from the tree."""
    out: dict[str, set[str]] = {}
    for pkg in packages:
        base = repo / pkg
        names = {p.name for p in base.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
        names |= {p.stem for p in base.glob("*.py") if p.stem != "__init__"}
        out[pkg] = names
    return out


def _string_pattern(kids: Mapping[str, set[str]]) -> re.Pattern[str]:
    alts = "|".join(
        f"{re.escape(pkg)}(?=\\.(?:\\{{|(?:{'|'.join(map(re.escape, sorted(names)))})\\b))"
        for pkg, names in sorted(kids.items()) if names)
    return re.compile(f"(?<![\\w.]){'(?:' + alts + ')' if alts else '(?!)'}")


def _offsets(source: str) -> list[int]:
    starts, pos = [0], 0
    for line in io.StringIO(source, newline="").readlines():  # \n, \r\n, \r as tokenize
        pos += len(line)
        starts.append(pos)
    return starts


def _import_text(node: ast.Import, root: str, top: set[str]) -> str | None:
    if not any(a.name.split(".")[0] in top for a in node.names):
        return None
    parts: list[str] = []
    for alias in node.names:
        head = alias.name.split(".")[0]
        if head not in top:
            parts.append(f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else ""))
        elif alias.asname:
            parts.append(f"import {root}.{alias.name} as {alias.asname}")
        elif "." in alias.name:  # binds the top name: bind it to the namespaced package
            parts += [f"import {root}.{alias.name}", f"from {root} import {head}"]
        else:
            parts.append(f"from {root} import {alias.name}")
    return "; ".join(parts)


def rewrite_source(source: str, root: str, kids: Mapping[str, set[str]] | None = None) -> str:
    """``source`` with its first-party absolute imports and module-path strings under ``root``."""
    kids = children() if kids is None else kids
    top = set(kids)
    pattern = _string_pattern(kids)
    starts = _offsets(source)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), character offsets

    def at(line: int, col: int) -> int:
        # ast and tokenize columns: ast's are UTF-8 byte offsets, converted by the caller
        return starts[line - 1] + col

    lines = io.StringIO(source, newline="").readlines()

    def char_col(line: int, byte_col: int) -> int:
        return len(lines[line - 1].encode()[:byte_col].decode())

    tree = ast.parse(source)
    from_lines: set[tuple[int, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            text = _import_text(node, root, top)
            if text is not None:
                assert node.end_lineno is not None and node.end_col_offset is not None
                edits.append((at(node.lineno, char_col(node.lineno, node.col_offset)),
                              at(node.end_lineno, char_col(node.end_lineno,
                                                           node.end_col_offset)), text))
        elif (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
              and node.module.split(".")[0] in top):
            from_lines.add((node.lineno, char_col(node.lineno, node.col_offset)))

    # the module name of a `from X import` is the first NAME after its `from` keyword; strings
    tokens = list(tokenize.generate_tokens(io.StringIO(source, newline="").readline))
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.NAME and tok.string == "from" and tok.start in from_lines:
            name = tokens[i + 1]
            assert name.type == tokenize.NAME and name.string in top, name
            pos = at(*name.start)
            edits.append((pos, pos, f"{root}."))
        elif tok.type == tokenize.STRING or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            for m in pattern.finditer(tok.string):
                pos = at(*tok.start) + m.start()
                if tok.start[0] != tok.end[0]:  # a string over several lines: locate the match
                    before = tok.string[:m.start()]
                    line = tok.start[0] + before.count("\n")
                    col = len(before) - before.rfind("\n") - 1 if "\n" in before else (
                        tok.start[1] + len(before))
                    pos = at(line, col)
                edits.append((pos, pos, f"{root}."))

    out = source
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end:]
    return out


def stage(dest: Path, root: str, paths: Iterable[str], repo: Path = REPO) -> list[Path]:
    """Copy ``paths`` (files or package directories, relative to ``repo``) to ``dest/root/``
    with every ``.py`` file rewritten; adds ``root/__init__.py``. Returns the files written."""
    kids = children(repo)
    base = dest / root
    if base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True)
    written = [base / "__init__.py"]
    written[0].write_text(f'"""Empire Hall, namespaced for installation: {root}.shared, '
                          f'{root}.services, {root}.clients (packaging/namespace.py)."""\n')
    for rel in paths:
        src = repo / rel
        files = ([p for p in sorted(src.rglob("*")) if p.is_file()
                  and not _SKIP & set(p.relative_to(repo).parts) and p.suffix != ".pyc"]
                 if src.is_dir() else [src])
        for f in files:
            out = base / f.relative_to(repo)
            out.parent.mkdir(parents=True, exist_ok=True)
            if f.suffix == ".py":
                out.write_text(rewrite_source(f.read_text(encoding="utf-8"), root, kids),
                               encoding="utf-8")
                shutil.copymode(f, out)
            else:
                shutil.copy2(f, out)
            written.append(out)
    return written


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    done = stage(Path(sys.argv[1]), sys.argv[2], sys.argv[3:])
    print(f"{len(done)} files staged under {Path(sys.argv[1]) / sys.argv[2]}")
