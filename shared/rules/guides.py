"""Each game's rules page for players: how to play (``shared/rules/<game>/guide.md``, written
in the project's own words, with its pictures in ``shared/rules/<game>/images/``), then the
rulings this server follows and what of its data is reconstructed (``rulings.md``).

The guide and the rulings ship with the engine, so the running server reads nothing outside
the code. The rulings are rewritten for players on the way out: the research notes on where
facts were found (sections marked FOUND, with their source addresses) and the file
paths meant for developers are left out, and a ``#<n>`` number becomes ``no. <n>`` so it is
never read as a tracker reference.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path

from shared.rules import components, registry

RULINGS_HEADING = "Rulings and reconstructed data"
# what a picture's file name may be: one plain name in the game's images folder
IMAGE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,60}\.svg$")
_IMAGE_LINK = re.compile(r"\]\(images/")
_HEADING = re.compile(r"^(#{1,5})(\s)")
_NUMBER_SIGN = re.compile(r"#(\d)")
_DEV_PATHS = re.compile(r"\s*\((?:`?docs/[\w./-]+`?|RULINGS\.md §[\d.]+)\)")


def game_dir(game: str) -> Path:
    """The folder of the game's engine. Raises ``registry.UnknownGame``."""
    try:
        module_name = registry._MODULES[game]
    except KeyError as exc:
        raise registry.UnknownGame(game) from exc
    module = importlib.import_module(module_name)
    return Path(str(module.__file__)).parent


@cache
def guide(game: str) -> str:
    """The game's how-to-play guide (markdown), "" when it has none."""
    doc = game_dir(game) / "guide.md"
    return doc.read_text(encoding="utf-8") if doc.is_file() else ""


def image(game: str, name: str) -> Path | None:
    """The guide's picture ``name`` (an SVG in the game's images folder), or None for a name
    that is not one of them (no paths, no other kinds of file)."""
    if not IMAGE_NAME.fullmatch(name):
        return None
    path = game_dir(game) / "images" / name
    return path if path.is_file() else None


def _found_section(heading: str) -> bool:
    return "FOUND" in heading or "Public material" in heading


def player_rulings(md: str) -> str:
    """The rulings markdown as players read it, one level below the page's rulings heading:
    no title or developer preamble, no sections of research notes and their sources, no
    developer paths, no ``#<n>`` numbers."""
    out: list[str] = []
    skipping_level = 0  # inside a left-out section: its heading level
    started = False
    for line in md.splitlines():
        m = _HEADING.match(line)
        if m:
            level = len(m.group(1))
            if level == 1:
                continue
            started = True
            if skipping_level and level > skipping_level:
                continue
            skipping_level = level if _found_section(line) else 0
            if skipping_level:
                continue
            line = "#" + _DEV_PATHS.sub("", line)
        elif not started or skipping_level:
            continue
        out.append(_NUMBER_SIGN.sub(r"no. \1", _DEV_PATHS.sub("", line)))
    return "\n".join(out).strip() + "\n"


@cache
def rules_markdown(game: str) -> str:
    """The page ``GET /api/games/{game}/rules`` serves: the guide, then the rulings and the
    reconstructed data under their own heading. Pictures point at the gateway's route."""
    body = _IMAGE_LINK.sub(f"](/api/games/{game}/images/", guide(game)).rstrip()
    parts = [body, "", f"## {RULINGS_HEADING}", ""]
    reconstructed = components.components(game).get("reconstructed") or []
    if isinstance(reconstructed, list) and reconstructed:
        parts.append("Not printed publicly, so this server uses its own reconstruction of:")
        parts.append("")
        parts += [f"- {_DEV_PATHS.sub('', str(x))}" for x in reconstructed]
    else:
        parts.append("Nothing in this game is reconstructed: all its data is printed.")
    parts.append("")
    rulings = components.rulings(game)
    if rulings:
        parts.append(player_rulings(rulings))
    return "\n".join(parts).strip() + "\n"
