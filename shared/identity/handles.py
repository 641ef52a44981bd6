"""Display handles: the pure checks behind sign-in (services/lobby/service.py).

A handle is NFKC-normalized and trimmed; one with a control, format (Cf: zero-width, bidi
embeddings and marks), separator other than the plain space, surrogate, private-use or
unassigned character, a letter or symbol that shows as blank (``INVISIBLE``: the Hangul
fillers, the blank Braille pattern, ...), more than ``MAX_MARKS`` combining marks on one
character (zalgo), or nothing visible (only spaces and marks), is refused
(``lobby/bad_name``). ``#`` is
reserved for the server's disambiguating suffix (``name#1234``) and refused in a chosen
name. A human may not take a bot-like name (``bot-…``, ``bot_…``, ``[bot]…``, ``…(bot)``,
``… bot 2``, the lobby's own bot names: digits as the skeleton spells them, 1 as l, 0 as o):
bots are always shown as bots.

Two handles are the same when their keys are equal: the Unicode TR39 confusable skeleton of
the case-folded handle, so "victim", "Victim", "vіctim" (Cyrillic і) and "victim\u200b"
(refused anyway) are one handle. The skeleton is built from the TR39 ``confusables.txt``
data shipped by ``confusable-homoglyphs`` (that package has no skeleton function): its JSON
lists each source ↔ prototype pair in both directions, so each confusable class is a star
around its prototype; the prototype is the class's multi-character member if any, else its
member with more than one neighbour, else (two members) the smaller one: equality of
skeletons, all that is used here, is the same either way.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources

MAX_LEN = 32
SUFFIX_SEP = "#"

_BIDI_MARKS = {"\u200e", "\u200f", "\u061c"}  # LRM, RLM, ALM (display wrappers in the data)
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
# letters, marks and symbols that render as nothing (or as blank space) though their category
# is not a control or a separator: the Hangul fillers (U+3164 and its compatibility and
# halfwidth forms), the blank Braille pattern, the combining grapheme joiner, the Khmer
# inherent vowels, the Mongolian variation selectors and the null notehead
INVISIBLE = frozenset({"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u034f", "\u17b4",
                       "\u17b5", "\u180b", "\u180c", "\u180d", "\u180f", "\U0001d159"})
MARKS = frozenset({"Mn", "Me"})  # combining marks (stacked on the character before them)
MAX_MARKS = 4  # per character: enough for any script's accents, far short of zalgo
_BOT_LIKE = re.compile(r"^\s*(?:bot\s*[-_:.#\s]|\[\s*bot\s*\]|\(\s*bot\s*\))|"
                       r"(?:\[\s*bot\s*\]|\(\s*bot\s*\)|[-_\s]bot(?:\s*[\dlo]+)?)\s*$|^\s*bot\s*$")


class BadName(ValueError):
    """A handle that cannot be used; ``str(exc)`` says why."""


def normalize(raw: str) -> str:
    """The handle as stored and shown: NFKC, whitespace runs to one space, trimmed. Raises
    BadName for what may not appear in a handle."""
    name = unicodedata.normalize("NFKC", raw)
    for ch in name:
        cat = unicodedata.category(ch)
        if cat in _REFUSED_CATEGORIES or ch in _BIDI_MARKS:
            raise BadName(f"a name may not contain U+{ord(ch):04X} "
                          f"({unicodedata.name(ch, 'unnamed')}, category {cat})")
        if unicodedata.bidirectional(ch) in ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI",
                                             "FSI", "PDI"):
            raise BadName(f"a name may not contain the bidi control U+{ord(ch):04X}")
        if ch in INVISIBLE:
            raise BadName(f"a name may not contain U+{ord(ch):04X} "
                          f"({unicodedata.name(ch, 'unnamed')}): it shows as blank")
    name = " ".join(name.split())
    if not visible(name):
        raise BadName("a name needs a visible character")
    if most_marks(name) > MAX_MARKS:
        raise BadName(f"a name has at most {MAX_MARKS} combining marks on one character")
    if len(name) > MAX_LEN:
        raise BadName(f"a name has at most {MAX_LEN} characters")
    return name


def visible(text: str) -> bool:
    """Whether ``text`` has a character that shows: not a space, a combining mark, an
    invisible one or a character a handle may not hold."""
    return any(not ch.isspace() and unicodedata.category(ch) not in MARKS
               and unicodedata.category(ch) not in _REFUSED_CATEGORIES
               and ch not in INVISIBLE and ch not in _BIDI_MARKS for ch in text)


def most_marks(text: str) -> int:
    """The longest run of combining marks in ``text`` (stacked on one character)."""
    most = run = 0
    for ch in text:
        run = run + 1 if unicodedata.category(ch) in MARKS else 0
        most = max(most, run)
    return most


def check_chosen(raw: str) -> str:
    """A human's chosen handle: normalized, not bot-like, without the reserved ``#``."""
    name = normalize(raw)
    if SUFFIX_SEP in name:
        raise BadName(f"{SUFFIX_SEP!r} is reserved for the server's suffix (name{SUFFIX_SEP}1234)")
    if is_bot_like(name):
        raise BadName("names like bot-… or […bot] are for bots only")
    return name


def is_bot_like(name: str) -> bool:
    """Whether a handle reads as a bot's, whatever look-alike letters it uses."""
    return bool(_BOT_LIKE.search(key(name)))


@functools.cache
def _prototypes() -> dict[str, str]:
    raw = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text(
        encoding="utf-8")
    pairs: dict[str, list[dict[str, str]]] = json.loads(raw)

    def clean(s: str) -> str:
        return "".join(c for c in s if c not in _BIDI_MARKS)

    nbrs: dict[str, set[str]] = {}
    for a, entries in pairs.items():
        for e in entries:
            x, y = clean(a), clean(e["c"])
            if x and y and x != y:
                nbrs.setdefault(x, set()).add(y)
                nbrs.setdefault(y, set()).add(x)
    out: dict[str, str] = {}
    seen: set[str] = set()
    for start in sorted(nbrs):
        if start in seen:
            continue
        comp, todo = set(), [start]
        while todo:
            n = todo.pop()
            if n not in comp:
                comp.add(n)
                todo.extend(nbrs[n] - comp)
        seen |= comp
        multi = sorted(n for n in comp if len(n) > 1)
        hubs = sorted(n for n in comp if len(nbrs[n]) > 1)
        proto = multi[0] if multi else hubs[0] if hubs else min(comp)
        for n in comp:
            if len(n) == 1 and n != proto:
                out[n] = proto
    return out


def skeleton(name: str) -> str:
    """TR39 skeleton: NFD, each character to its prototype, NFD again."""
    protos = _prototypes()
    mapped = "".join(protos.get(c, c) for c in unicodedata.normalize("NFD", name))
    return unicodedata.normalize("NFD", mapped)


def key(name: str) -> str:
    """Equal for handles that must not coexist: case-insensitive and confusable-equal."""
    return skeleton(skeleton(name.casefold()).casefold())


def with_suffix(name: str, n: int) -> str:
    """A guest's unique display when its name is held: ``name#1234`` (within MAX_LEN)."""
    tail = f"{SUFFIX_SEP}{n:04d}"
    return name[:MAX_LEN - len(tail)].rstrip() + tail
