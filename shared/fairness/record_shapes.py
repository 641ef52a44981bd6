"""The values and shapes of a record document the verifier reads: canonical JSON equality, the
field kinds, the shape of every entry, slot, opening, draw, log move and receipt, and stream
ids. A document that fails its shape is not checked further. Standard library only."""

from __future__ import annotations

import re
from typing import Any

from shared.fairness.lp import SAFE_INT, canonical_json
from shared.fairness.problems import Report

MAX_DRAW = 1 << 16  # a larger shuffle or count is refused, not recomputed (honest games: < 300)

# (fullmatch: Python's $ would also match before a trailing newline)
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX = re.compile(r"(?:[0-9a-f]{2})*")
_STREAM_ID = re.compile(r"(0|[1-9][0-9]*)-(0|[1-9][0-9]*)")
SLOT_KEY = re.compile(r"s(0|[1-9][0-9]*)(?::.*)?", re.S)
MISSING = object()


def canon(value: Any) -> str:
    """The canonical text of a value (integers only); "?" for what has none (never equal to
    a real value's text)."""
    try:
        return canonical_json(value)
    except (ValueError, TypeError):
        return "?"


def same(a: Any, b: Any) -> bool:
    """JSON equality by canonical text: 1, 1.0 and true are three different values."""
    ta, tb = canon(a), canon(b)
    return ta != "?" and ta == tb


def is_int(v: Any) -> bool:
    """An integer JavaScript holds exactly (as the browser's and Node's verifier must)."""
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) <= SAFE_INT


def kind_ok(kind: str, v: Any) -> bool:
    if kind == "str":
        return isinstance(v, str)
    if kind == "int":
        return is_int(v)
    if kind == "pos":
        return is_int(v) and v >= 1
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "hex64":
        return isinstance(v, str) and bool(_HEX64.fullmatch(v))
    if kind == "hex64|null":
        return v is None or (isinstance(v, str) and bool(_HEX64.fullmatch(v)))
    if kind == "hex|null":
        return v is None or (isinstance(v, str) and bool(_HEX.fullmatch(v)))
    if kind == "seed":
        return isinstance(v, str) and (v == "" or bool(_HEX64.fullmatch(v)))
    if kind == "list":
        return isinstance(v, list)
    if kind == "dict":
        return isinstance(v, dict)
    if kind == "dict|null":
        return v is None or isinstance(v, dict)
    if kind == "strlist":
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    if kind == "intlist":
        return isinstance(v, list) and all(is_int(x) for x in v)
    if kind == "seedlist":
        return isinstance(v, list) and all(kind_ok("seed", x) for x in v)
    if kind == "drawkind":
        return v in ("shuffle", "below", "dice")
    if kind == "movekind":
        return v in ("act", "joint", "chance_outcome")
    if kind == "json":
        return canon(v) != "?"
    raise AssertionError(kind)


KIND_TEXT = {
    "str": "a string", "int": "an integer", "pos": "an integer >= 1", "bool": "true or false",
    "hex64": "64 lowercase hex digits", "hex64|null": "64 lowercase hex digits or null",
    "hex|null": "lowercase hex or null", "seed": "64 lowercase hex digits or empty",
    "list": "a list", "dict": "an object", "dict|null": "an object or null",
    "strlist": "a list of strings", "intlist": "a list of integers",
    "seedlist": "a list of client seeds (64 lowercase hex digits or empty)",
    "drawkind": "shuffle, below or dice", "movekind": "act, joint or chance_outcome",
    "json": "a JSON value of integers, strings, booleans, null, lists and objects",
}

DOC_SHAPE = {"game_id": "str", "game": "str", "players": "list", "ended": "bool",
             "record": "list"}
ENTRY_SHAPES: dict[str, dict[str, str]] = {
    "game_created": {"game": "str", "options": "dict", "rules_version": "str",
                     "players": "list", "client_entropy": "bool"},
    "seed_committed": {"commitment": "hex64", "scheme": "str"},
    "round_opened": {"round_id": "str", "ordered": "bool", "deadline_ms": "int",
                     "slots": "list"},
    "committed": {"round_id": "str", "slot": "str", "seat": "int", "commitment": "hex64",
                  "public": "dict|null"},
    # a fixed-order round's seat that let its own time pass (P-S1): its default stands, and the
    # default's public part is shown to the seats after it
    "slot_timed_out": {"round_id": "str", "slot": "str", "seat": "int", "public": "dict|null"},
    "round_closed": {"round_id": "str", "root": "hex64", "defaulted": "strlist"},
    "round_revealed": {"round_id": "str", "openings": "list"},
    "draw": {"label": "str", "draw": "drawkind", "n": "pos", "count": "pos", "secret": "bool"},
    "event": {"seq": "int", "event": "str", "data": "json"},
    "game_ended": {"outcome": "dict"},
    # a seat handed to a bot for the rest of the game (its player resigned, or its clock ran
    # out at an on_expiry "bot" table): its later acts and commits are the bot's, signed by
    # the bot's own session key
    "seat_handed_over": {"seq": "int", "seat": "int", "reason": "str", "from": "dict",
                         "to": "dict"},
    "seed_revealed": {"server_seed": "hex64", "rules_version": "str",
                      "client_seeds": "seedlist", "draws": "list"},
}
SLOT_SHAPE = {"seat": "int", "key": "str", "default_commitment": "hex64"}
OPENING_SHAPE = {"slot": "str", "seat": "int", "choice": "json", "nonce": "hex64|null",
                 "commitment": "hex64|null", "defaulted": "bool"}
DEALT_SHAPE = {"label": "str", "draw": "drawkind", "n": "pos", "count": "pos",
               "values": "intlist"}
LOG_SHAPE = {"seq": "int", "move": "dict", "by": "str"}
MOVE_SHAPES = {"act": {"seat": "int", "action": "json"},
               "joint": {"round_id": "str", "choices": "dict", "defaulted": "strlist"},
               "chance_outcome": {"label": "str", "values": "intlist"}}
RECEIPT_SHAPE = {"round_id": "str", "slot": "str", "choice": "json", "nonce": "hex64",
                 "commitment": "hex64"}


def shape_ok(r: Report, obj: Any, shape: dict[str, str], where: str) -> bool:
    if not isinstance(obj, dict):
        r.add("shape", where, "not an object")
        return False
    ok = True
    for name, kind in shape.items():
        v = obj.get(name, MISSING)
        if v is MISSING:
            r.add("shape", where, f"field {name} is missing")
            ok = False
        elif not kind_ok(kind, v):
            r.add("shape", where, f"field {name} must be {KIND_TEXT[kind]}")
            ok = False
    return ok


def _draw_size(r: Report, d: dict[str, Any], where: str) -> bool:
    if d["count"] > MAX_DRAW or (d["draw"] == "shuffle" and d["n"] > MAX_DRAW):
        r.add("shape", where, f"a draw larger than {MAX_DRAW} is not recomputed")
        return False
    return True


def check_shapes(r: Report, doc: Any) -> bool:
    if not shape_ok(r, doc, DOC_SHAPE, "document"):
        return False
    ok = True
    for i, e in enumerate(doc["record"]):
        where = f"record[{i}]"
        if not isinstance(e, dict) or e.get("type") not in ENTRY_SHAPES:
            r.add("shape", where, "not an entry of a known type")
            ok = False
            continue
        t = e["type"]
        where = f"record[{i}] {t}"
        if not isinstance(e.get("id"), str) or not _STREAM_ID.fullmatch(e["id"]):
            r.add("shape", where, "field id must be a stream id <ms>-<n>")
            ok = False
        ok = shape_ok(r, e, ENTRY_SHAPES[t], where) and ok
        if t == "round_opened" and "escrow_key" in e and not kind_ok("hex64", e["escrow_key"]):
            r.add("shape", where, f"field escrow_key must be {KIND_TEXT['hex64']}")
            ok = False
        if t == "round_opened" and isinstance(e.get("slots"), list):
            for j, s in enumerate(e["slots"]):
                ok = shape_ok(r, s, SLOT_SHAPE, f"{where} slots[{j}]") and ok
        elif t == "round_revealed" and isinstance(e.get("openings"), list):
            for j, o in enumerate(e["openings"]):
                ok = shape_ok(r, o, OPENING_SHAPE, f"{where} openings[{j}]") and ok
                if isinstance(o, dict) and not kind_ok("hex|null", o.get("default_salt")):
                    r.add("shape", f"{where} openings[{j}]",
                          f"field default_salt must be {KIND_TEXT['hex|null']}")
                    ok = False
        elif t == "seed_revealed" and isinstance(e.get("draws"), list):
            for j, d in enumerate(e["draws"]):
                good = shape_ok(r, d, DEALT_SHAPE, f"{where} draws[{j}]")
                ok = good and _draw_size(r, d, f"{where} draws[{j}]") and ok
        elif t == "draw" and "values" in e and not kind_ok("intlist", e["values"]):
            r.add("shape", where, f"field values must be {KIND_TEXT['intlist']}")
            ok = False
    log = doc.get("log")
    if log is not None and not isinstance(log, list):
        r.add("shape", "document", "field log must be a list or null")
        return False
    for i, x in enumerate(log or []):
        where = f"log[{i}]"
        if not shape_ok(r, x, LOG_SHAPE, where):
            ok = False
            continue
        move = x["move"]
        if not kind_ok("movekind", move.get("kind")):
            r.add("shape", where, f"field move.kind must be {KIND_TEXT['movekind']}")
            ok = False
            continue
        ok = shape_ok(r, move, MOVE_SHAPES[move["kind"]], f"{where} move") and ok
    return ok


def stream_ms(stream_id: str) -> int:
    return int(stream_id.split("-")[0])


def stream_order(stream_id: str) -> tuple[int, int]:
    a, b = stream_id.split("-")
    return int(a), int(b)


def short_hex(c: Any) -> str:
    return c[:16] if isinstance(c, str) else "none"
