"""Every single change a misbehaving server could make to a finished game's public document
(record, reveals, dealer's reveal, move log): each field replaced (another value of the same
field elsewhere in the document, so seats, slots, labels, round ids and public parts are
swapped for real ones; or a nearby value; or another type), each list element dropped,
duplicated or swapped with its neighbour, each record or log entry dropped, duplicated or moved
(stream ids then rewritten to stay increasing, as a server rewriting its stream would).

A change "keeps the meaning" only when it is a no-op on the canonical document or touches what
carries no claim the record can be held to (``trusted``: docs/fairness.md says why for each).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tests.support.tamper import fix_ids

Doc = dict[str, Any]
Path = tuple[Any, ...]


@dataclass
class Mutation:
    kind: str  # replace | drop | duplicate | swap | move
    path: Path  # where (the field, the element or the entry)
    apply: Callable[[Doc], None]
    note: str = ""

    @property
    def field(self) -> str:
        """A pattern of the path: record entries by type, indices as *."""
        return pattern(self.path, self.doc_types)

    doc_types: dict[int, str] | None = None


def pattern(path: Path, types: dict[int, str] | None) -> str:
    out = []
    for i, p in enumerate(path):
        if isinstance(p, int):
            if i == 1 and path[0] == "record" and types is not None:
                out.append(f"[{types.get(p, '?')}]")
            else:
                out.append("[*]")
        else:
            out.append(("." if out else "") + str(p))
    return "".join(out)


def get(doc: Any, path: Path) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def _set(path: Path, value: Any) -> Callable[[Doc], None]:
    def apply(d: Doc) -> None:
        get(d, path[:-1])[path[-1]] = copy.deepcopy(value)

    return apply


def leaves(x: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from leaves(v, (*path, i))
    else:
        yield path, x


def containers(x: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(x, dict | list):
        yield path, x
        for k, v in (x.items() if isinstance(x, dict) else enumerate(x)):
            yield from containers(v, (*path, k))


def _name(path: Path) -> str:
    return next((str(p) for p in reversed(path) if isinstance(p, str)), "")


def _other_values(doc: Doc) -> dict[str, list[Any]]:
    """Every value seen per field name (json text, deduplicated): swaps use real values."""
    seen: dict[str, dict[str, Any]] = {}
    for path, v in leaves(doc):
        seen.setdefault(_name(path), {})[json.dumps(v, sort_keys=True)] = v
    return {k: list(v.values()) for k, v in seen.items()}


def _nearby(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [v + 1, v - 1]
    if isinstance(v, str):
        if not v:
            return ["0"]
        last = v[-1]
        if last in "0123456789abcdef":
            alt = "0123456789abcdef"[("0123456789abcdef".index(last) + 1) % 16]
        else:
            alt = chr(ord(last) ^ 1)
        return [v[:-1] + alt]
    if v is None:
        return [0, "", {}]
    return []


def _type_change(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [int(v)]
    if isinstance(v, int):
        return [str(v), True if v == 1 else None]
    if isinstance(v, str):
        return [None]
    return []


def mutations(doc: Doc, swaps: int = 3) -> Iterator[Mutation]:
    """Every mutation of the document (see the module docstring). ``swaps``: how many other
    values of the same field name each field is replaced by (all of them when < 0)."""
    types = {i: e.get("type", "?") for i, e in enumerate(doc["record"])}
    values = _other_values(doc)
    for path, v in leaves(doc):
        if path[0] == "record" and len(path) == 3 and path[2] in ("id", "type"):
            continue  # ids: by moving entries (below); a type change is a different entry
        cands: list[Any] = []
        others = [o for o in values.get(_name(path), []) if json.dumps(o) != json.dumps(v)]
        cands += others if swaps < 0 else others[:swaps]
        cands += _nearby(v) + _type_change(v)
        seen = {json.dumps(v, sort_keys=True)}
        for c in cands:
            t = json.dumps(c, sort_keys=True)
            if t in seen:
                continue
            seen.add(t)
            yield Mutation("replace", path, _set(path, c), f"-> {t[:40]}", types)
    for path, x in containers(doc):
        if isinstance(x, dict) and path:
            for k in x:
                if path[0] == "record" and len(path) == 2 and k in ("id", "type"):
                    continue

                def drop_key(d: Doc, path: Path = path, k: Any = k) -> None:
                    del get(d, path)[k]

                yield Mutation("drop", (*path, k), drop_key, "key dropped", types)
        if not isinstance(x, list):
            continue
        entries = path in (("record",), ("log",))
        for i in range(len(x)):

            def drop(d: Doc, path: Path = path, i: int = i) -> None:
                del get(d, path)[i]
                fix_ids(d)

            def dup(d: Doc, path: Path = path, i: int = i) -> None:
                lst = get(d, path)
                lst.insert(i + 1, copy.deepcopy(lst[i]))
                fix_ids(d)

            yield Mutation("drop", (*path, i), drop, "element dropped", types)
            yield Mutation("duplicate", (*path, i), dup, "element duplicated", types)
            if i + 1 < len(x):

                def swap(d: Doc, path: Path = path, i: int = i) -> None:
                    lst = get(d, path)
                    lst[i], lst[i + 1] = lst[i + 1], lst[i]
                    if path == ("record",):  # the entries moved, not their ids
                        lst[i]["id"], lst[i + 1]["id"] = lst[i + 1]["id"], lst[i]["id"]
                    fix_ids(d)

                yield Mutation("swap", (*path, i), swap, "swapped with the next", types)
            if entries:
                for to in (0, len(x) - 1, (i + len(x) // 2) % len(x)):
                    if to in (i, i + 1):
                        continue

                    def move(d: Doc, path: Path = path, i: int = i, to: int = to) -> None:
                        lst = get(d, path)
                        item = lst.pop(i)
                        lst.insert(to, item)
                        if path == ("record",):
                            ids = sorted((e["id"] for e in lst), key=_sid)
                            for e, sid in zip(lst, ids, strict=True):
                                e["id"] = sid
                        fix_ids(d)

                    yield Mutation("move", (*path, i), move, f"moved to {to}", types)


def _sid(s: str) -> tuple[int, int]:
    a, b = s.split("-")
    return int(a), int(b)


def canonical(doc: Doc) -> str:
    return json.dumps(doc, sort_keys=True)


# What no public check can hold the server to (docs/fairness.md, "What stays trusted"):
# changing it changes a claim nobody but the server can confirm or refute from the record.
TRUSTED: dict[str, str] = {
    "log[*].cmd_id": "a client's command id: an idempotency key, no claim",
    "log[*].id": "the log stream's ids: the log's order is its seqs",
    "log[*].by": "who moved: seat or its turn timeout (the record has no clock of turns)",
    "record[round_opened].deadline_ms": "a round's deadline: checked only against a close "
                                         "with defaults",
    "record[round_opened].slot_timeout_ms": "a fixed-order slot's own time (P-S1): checked "
                                             "only against a slot_timed_out, within the same "
                                             "1 s of clock slack as a deadline",
    "record[round_opened].slots[*].default_commitment": "the default of a slot that did not "
                                                         "default: its salt is never revealed",
    "record[seed_committed].scheme": "a label of the scheme (checked, but not a claim)",
    "players": "identities: the lobby's, not the record's (both copies must agree)",
}


def trusted(m: Mutation) -> str | None:
    f = m.field
    return next((why for pat, why in TRUSTED.items() if _matches(f, pat)), None)


def _commit_order_free(doc: Doc) -> str:
    """The document without stream ids and with each unordered round's commits in slot order:
    the order of commits in a round without fixed order carries no claim (all stay hidden)."""
    d = copy.deepcopy(doc)
    unordered = {e["round_id"] for e in d["record"]
                 if e.get("type") == "round_opened" and not e.get("ordered")}
    rec = d["record"]
    for e in rec:
        e.pop("id", None)
    i = 0
    while i < len(rec):
        j = i
        while j < len(rec) and rec[j].get("type") == "committed" \
                and rec[j].get("round_id") == rec[i].get("round_id") \
                and rec[i].get("round_id") in unordered:
            j += 1
        if j > i + 1:
            rec[i:j] = sorted(rec[i:j], key=lambda e: json.dumps(e, sort_keys=True))
        i = max(j, i + 1)
    return canonical(d)


def _states(doc: Doc) -> list[str] | None:
    from shared.rules import registry
    from shared.rules.replay import ReplayError, states

    created = next(e for e in doc["record"] if e.get("type") == "game_created")
    try:
        game = registry.get(doc["game"])
        return [canonical(game.encode(s)) for s in states(
            doc["game"], created["options"], len(doc["players"]), doc["log"] or [])]
    except (ReplayError, KeyError, TypeError, ValueError):
        return None


def equivalent(original: Doc, mutated: Doc, m: Mutation) -> str | None:
    """Why the mutated document means what the original means, or None."""
    if _commit_order_free(mutated) == _commit_order_free(original):
        return "only the order of commits in a round without fixed order"
    f = m.field
    if _expired(original) and f.startswith("record[game_created].options") \
            and _states(mutated) is not None:
        return "options of a game ended by its lifetime, as far as it was played (the " \
               "engine replays the log alike and no placings depend on them)"
    if f.startswith(("record[game_created].options", "log[*].move.action")):
        a = _states(original)
        if a is not None and a == _states(mutated):
            return "the engine reads both the same (every state of the replay is equal)"
    return None


# Game logic the stdlib verifier cannot judge (it has no rules): what happened in the game
# (events, the outcome, the options, the actions) and which parts of a choice the rules make
# public or whether a round has a fixed order. ``verify --rules`` (the engine replay) does.
RULES_ONLY: dict[str, frozenset[str] | None] = {
    "record[event]": None,
    "record[game_ended].outcome": None,
    "record[game_created].options": None,
    "log[*].move.action": None,
    "record[committed].public": frozenset({"drop"}),  # a key left out of the public part
    "record[slot_timed_out].public": frozenset({"drop"}),  # the same, for a time-out (P-S1)
    "record[round_opened].ordered": frozenset({"replace"}),
}


def _matches(f: str, pat: str) -> bool:
    return f == pat or f.startswith(pat + ".") or f.startswith(pat + "[")


def rules_only(m: Mutation) -> bool:
    f = m.field
    return any(_matches(f, pat) and (kinds is None or m.kind in kinds)
               for pat, kinds in RULES_ONLY.items())


def _open_at_end(doc: Doc, m: Mutation) -> dict[str, Any] | None:
    """The record entry the mutation touches when it belongs to a round still open when the
    game ended by its lifetime (never closed, revealed nor applied), else None."""
    rec = doc["record"]
    ended = next((e for e in rec if e.get("type") == "game_ended"), None)
    if ended is None or ended.get("outcome", {}).get("status") != "expired":
        return None
    if m.path[0] != "record" or len(m.path) < 2 or not isinstance(m.path[1], int):
        return None
    e = rec[m.path[1]]
    revealed = {x.get("round_id") for x in rec if x.get("type") == "round_revealed"}
    if e.get("type") in ("round_opened", "committed") and e.get("round_id") not in revealed:
        return e  # type: ignore[no-any-return]
    return None


def _expired(doc: Doc) -> bool:
    ended = next((e for e in doc["record"] if e.get("type") == "game_ended"), None)
    return ended is not None and ended.get("outcome", {}).get("status") == "expired"


def receipts_only(doc: Doc, m: Mutation) -> str | None:
    """Why nothing public holds this change (of a game ended by its lifetime, or the escrow key
    of a game's only sealed round), or None."""
    e = _open_at_end(doc, m)
    if e is not None and e["type"] == "committed" and (
            m.path[2:] == ("commitment",) or (m.kind == "drop" and len(m.path) == 2)):
        return ("a commitment of a round still open when the game ended by its lifetime: "
                "never opened nor applied, only its seat's receipt holds it")
    opened = [e for e in doc["record"] if e.get("type") == "round_opened"]
    if m.field == "record[round_opened].escrow_key" and len(opened) == 1:
        return ("the escrow key of a game's only sealed round: no other round to agree with; "
                "the seats' receipts (and the audit bundle, or any copy from elsewhere) hold it")
    if _expired(doc) and m.field.startswith(("record[game_ended].outcome.reason",
                                             "record[game_ended].outcome.tiebreak")):
        return "the wording of an expired outcome: no claim beyond its status and no placings"
    return None


def open_round_spec(doc: Doc, m: Mutation) -> bool:
    """A change to the slots of a round still open at an expired end: only the engine knows
    what that round was (verify --rules compares it with the round the engine awaited)."""
    e = _open_at_end(doc, m)
    return e is not None and e["type"] == "round_opened" and m.path[2:3] == ("slots",)
