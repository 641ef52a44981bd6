"""Chat text: the pure cleaning behind table talk (services/gateway/chat/table_talk.py).

A message is NFC-normalised; every character a display handle may not contain
(shared/identity/handles.py: controls, format characters such as bidi embeddings, overrides,
isolates and marks, zero-width spaces, surrogates, private-use and unassigned code points,
line and paragraph separators, and the characters that show as blank: handles.INVISIBLE)
is removed, except the zero-width joiner inside emoji sequences; tabs, newlines and other
separators become a plain space, whitespace runs collapse to one space and the ends are
trimmed. What is left is shown as text only (the web page sets
``textContent``; nothing is ever parsed as HTML), so ``<b>`` stays the four characters typed.

Refusals (``BadText.code``): ``chat/empty`` when nothing visible is left (only spaces,
combining marks and blank characters), ``chat/too_long`` past the cap (counted in characters
after cleaning), ``chat/bad_request`` for more than ``handles.MAX_MARKS`` combining marks
stacked on one character (zalgo text, which spills over the lines around it).
"""

from __future__ import annotations

import unicodedata

from shared.identity.handles import (
    _BIDI_MARKS,
    _REFUSED_CATEGORIES,
    INVISIBLE,
    MAX_MARKS,
    most_marks,
    visible,
)

ZWJ = "\u200d"  # kept between two visible characters (emoji sequences: 👩‍💻)
_BIDI_CLASSES = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}


class BadText(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _dropped(ch: str) -> bool:
    return (unicodedata.category(ch) in _REFUSED_CATEGORIES or ch in _BIDI_MARKS
            or ch in INVISIBLE or unicodedata.bidirectional(ch) in _BIDI_CLASSES)


def clean(raw: str, max_chars: int) -> str:
    """The message as stored and shown, or BadText."""
    if len(raw) > 4 * max_chars:  # far over the cap: refused before any work on it
        raise BadText("chat/too_long", f"a message has at most {max_chars} characters")
    text = unicodedata.normalize("NFC", raw)
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch in "\t\n\r\v\f" or unicodedata.category(ch) in ("Zs", "Zl", "Zp"):
            out.append(" ")
        elif ch == ZWJ:
            if out and out[-1] not in " " + ZWJ and i + 1 < len(text) \
                    and not _dropped(text[i + 1]) and not text[i + 1].isspace():
                out.append(ch)
        elif not _dropped(ch):
            out.append(ch)
    cleaned = " ".join("".join(out).split())
    if not visible(cleaned):
        raise BadText("chat/empty", "a message needs a visible character")
    if most_marks(cleaned) > MAX_MARKS:
        raise BadText("chat/bad_request", f"at most {MAX_MARKS} combining marks on one "
                      "character")
    if len(cleaned) > max_chars:
        raise BadText("chat/too_long", f"a message has at most {max_chars} characters")
    return cleaned
