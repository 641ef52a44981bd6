"""One sentence per log entry, for every game: the web page and the terminal client show
these (the gateway adds them as ``text``), so the wording lives here once.

Each game's ``<package>.narrate`` has ``NARRATORS: dict[event type, (data, names) -> str]``.
A narrator reads only the entry it is given and public component data: it never knows more
than the seat that receives the entry (see ``shared.rules._kit.text``).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from shared.rules import registry
from shared.rules._kit.text import Names, Narrator, generic, sentence

# stdlib logging, not structlog: the rules stay free of server packages (the SDK ships them);
# the services' ProcessorFormatter (shared/runtime/logging.py) renders ``extra`` as JSON fields
log = logging.getLogger(__name__)


@cache
def narrators(game: str) -> Mapping[str, Narrator]:
    """The game's narrators (empty for an unknown game or one without a narrate module)."""
    module_name = registry._MODULES.get(game)
    if module_name is None:
        return {}
    try:
        module = importlib.import_module(module_name + ".narrate")
    except ModuleNotFoundError:
        return {}
    table: Mapping[str, Narrator] = module.NARRATORS
    return table


def narrate(game: str, event_type: str, data: Mapping[str, Any] | None,
            names: Sequence[str] | None = None) -> str:
    """The sentence for one event; a generic but complete sentence when the game has no
    wording for it (or the entry does not have the expected shape)."""
    fn = narrators(game).get(event_type)
    data = data or {}
    if fn is not None:
        try:
            return sentence(fn(data, Names(names)))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            log.warning("narrate.failed",
                        extra={"game": game, "event_type": event_type, "error": str(exc)})
    return generic(event_type, data)
