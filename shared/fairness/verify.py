"""Verify a finished game from its public record and move log. Standard library only.

    python -m shared.fairness.verify http://127.0.0.1:8000 <game_id> [--receipts FILE] [--rules]
    python -m shared.fairness.verify record.json [--receipts FILE] [--rules]
    python -m shared.fairness.verify bundle.json [--receipts FILE] [--rules]

Every check, what it proves and what stays trusted is in docs/fairness.md; in short: the
dealer committed to its seed before anything else happened and the revealed seed matches; the
game key uses exactly the entropy round's client seeds (none without an entropy round); every
draw recomputes, in the dealer's order, each label once, and a secret draw shows no faces in
the record; every seat and slot of a round agrees with the round's opening (slot keys name
their seat), every commitment published before the close is opened and matches, no committed
slot is shown as defaulted, defaults match those fixed at open and are used only at the
deadline; in an ordered round the commits follow the fixed order and every public part shown
to later seats is the public part of the seat's revealed choice; the move log is public and
applies every revealed round exactly once with exactly the revealed choices, and every draw
with the dealer's outcome, in the record's order. ``--receipts FILE`` (a seat's own receipts:
``{"game_id", "seat", "receipts": [{round_id, slot, choice, nonce, commitment,
escrow_key}]}``) also proves that seat's choices reached the record unchanged, which no public
trace can show, and that its openings were sealed to the escrow key the record publishes.
``--rules`` (needs this project's rules package, not stdlib) re-applies the log with the game's
engine and compares every round, draw request, public event and the outcome. An audit bundle
(GET /api/matches/<id>/audit: the record document plus ``audit``, ``options``,
``rules_version``, ``reveals``, ``escrow_key`` and ``signatures``) is verified as its record,
and its copies must agree with the record (``escrow_key``: the key every round_opened
publishes, null for a game without one; ``signatures``: the session keys each seat's signed
commands use, ``{"<seat>": [key, ...]}``). Every seat's act in the log and every commitment in
the record must carry a valid signature by that seat's session key (class ``signature``,
shared/fairness/signing.py); the server's own moves (timeouts, defaults) are unsigned.

Each problem is printed as ``FAIL <class>: <where>: <what>``; exit status 1 on any, else OK.
The browser and the Node client run the same checks (clients/web/
fairness-core.mjs) with the same problem texts.
"""

from __future__ import annotations

import json
import re
import sys
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from shared.fairness import signing
from shared.fairness.commitments import commitment, commitments_root, default_commitment
from shared.fairness.draws import draw, game_key, seed_commitment
from shared.fairness.lp import SAFE_INT, canonical_json

ENTROPY_ROUND = "entropy"
SEED_SCHEME = "sha256(lp('empire-hall/dealer/seed/v1')|lp(game)|seed)"
# a round closed with defaults must not close before its deadline; the record's stream ids
# are the storage server's clock, the deadline the adjudicator's: this much skew is tolerated
DEADLINE_SLACK_MS = 1000
AUDIT_VERSION = 1  # the audit bundle's format (GET /api/matches/<id>/audit)
MAX_DRAW = 1 << 16  # a larger shuffle or count is refused, not recomputed (honest games: < 300)
PLAY_TYPES = ("round_opened", "committed", "slot_timed_out", "round_closed", "round_revealed",
              "draw", "event",
              "game_ended")
ROUND_TYPES = ("round_opened", "committed", "slot_timed_out", "round_closed", "round_revealed")

# problem classes (docs/fairness.md has one section per class)
CLASSES = {
    "shape": "a field is missing or of the wrong type",
    "record": "an entry the verification needs is missing or repeated, or the game is not over",
    "order": "entries are out of order (stream ids, events, the end)",
    "seed": "the dealer's seed commitment (match, scheme, published before anything else)",
    "entropy": "the client seeds in the game key versus the entropy round",
    "draw": "a draw does not recompute, is repeated or is not the dealer's",
    "secret": "something secret was published during play",
    "round": "a sealed round's life: opened, commits, closed, revealed, once each, in order",
    "slot": "a slot that was not opened, or opened, committed or revealed twice",
    "seat": "the seat of a slot, a commitment or an opening differs from the round's",
    "commitment": "an opening does not match the commitment published before the close",
    "root": "the commitments root is not the published commitments'",
    "default": "a default that is not the one fixed at open, or shown for a committed slot",
    "deadline": "a round closed with defaults before its deadline",
    "public": "a public part shown to later seats is not the seat's revealed choice's",
    "ordered": "a fixed-order round's commits are out of its order",
    "log": "the move log is missing or its seqs or origins are wrong",
    "applied": "the log does not apply exactly the revealed rounds and the dealer's draws",
    "receipt": "a seat's own receipt disagrees with the record",
    "seal": "the escrow key openings were sealed to differs between rounds, the bundle or a "
            "seat's receipt (a substituted key)",
    "signature": "a seat's act or commitment is not signed by that seat's session key, or a "
                 "key signs for two seats",
    "rules": "the game's engine disagrees with the record (--rules)",
}


@dataclass(frozen=True)
class Problem:
    cls: str
    where: str
    text: str

    def __str__(self) -> str:
        return f"{self.cls}: {self.where}: {self.text}"


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {
        "draws": 0, "commitments": 0, "rounds": 0, "applied": 0, "receipts": 0,
        "signatures": 0})

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def classes(self) -> set[str]:
        return {p.cls for p in self.problems}

    def add(self, cls: str, where: str, text: str) -> None:
        self.problems.append(Problem(cls, where, text))


def verify(doc: dict[str, Any], receipts: Any = None, rules: bool = False
           ) -> tuple[list[str], dict[str, int]]:
    """(problems, counts). ``doc`` is the gateway's /api/matches/<id>/record answer;
    ``receipts`` a seat's receipts file (see the module docstring) or None."""
    report = check(doc, receipts, rules)
    return [str(p) for p in report.problems], report.counts


# -- values ---------------------------------------------------------------------------------

# (fullmatch: Python's $ would also match before a trailing newline)
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX = re.compile(r"(?:[0-9a-f]{2})*")
_STREAM_ID = re.compile(r"(0|[1-9][0-9]*)-(0|[1-9][0-9]*)")
_SLOT_KEY = re.compile(r"s(0|[1-9][0-9]*)(?::.*)?", re.S)
_MISSING = object()


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


def _is_int(v: Any) -> bool:
    """An integer JavaScript holds exactly (as the browser's and Node's verifier must)."""
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) <= SAFE_INT


def _kind_ok(kind: str, v: Any) -> bool:
    if kind == "str":
        return isinstance(v, str)
    if kind == "int":
        return _is_int(v)
    if kind == "pos":
        return _is_int(v) and v >= 1
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
        return isinstance(v, list) and all(_is_int(x) for x in v)
    if kind == "seedlist":
        return isinstance(v, list) and all(_kind_ok("seed", x) for x in v)
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


def _shape(r: Report, obj: Any, shape: dict[str, str], where: str) -> bool:
    if not isinstance(obj, dict):
        r.add("shape", where, "not an object")
        return False
    ok = True
    for name, kind in shape.items():
        v = obj.get(name, _MISSING)
        if v is _MISSING:
            r.add("shape", where, f"field {name} is missing")
            ok = False
        elif not _kind_ok(kind, v):
            r.add("shape", where, f"field {name} must be {KIND_TEXT[kind]}")
            ok = False
    return ok


def _draw_size(r: Report, d: dict[str, Any], where: str) -> bool:
    if d["count"] > MAX_DRAW or (d["draw"] == "shuffle" and d["n"] > MAX_DRAW):
        r.add("shape", where, f"a draw larger than {MAX_DRAW} is not recomputed")
        return False
    return True


def _check_shapes(r: Report, doc: Any) -> bool:
    if not _shape(r, doc, DOC_SHAPE, "document"):
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
        ok = _shape(r, e, ENTRY_SHAPES[t], where) and ok
        if t == "round_opened" and "escrow_key" in e and not _kind_ok("hex64", e["escrow_key"]):
            r.add("shape", where, f"field escrow_key must be {KIND_TEXT['hex64']}")
            ok = False
        if t == "round_opened" and isinstance(e.get("slots"), list):
            for j, s in enumerate(e["slots"]):
                ok = _shape(r, s, SLOT_SHAPE, f"{where} slots[{j}]") and ok
        elif t == "round_revealed" and isinstance(e.get("openings"), list):
            for j, o in enumerate(e["openings"]):
                ok = _shape(r, o, OPENING_SHAPE, f"{where} openings[{j}]") and ok
                if isinstance(o, dict) and not _kind_ok("hex|null", o.get("default_salt")):
                    r.add("shape", f"{where} openings[{j}]",
                          f"field default_salt must be {KIND_TEXT['hex|null']}")
                    ok = False
        elif t == "seed_revealed" and isinstance(e.get("draws"), list):
            for j, d in enumerate(e["draws"]):
                good = _shape(r, d, DEALT_SHAPE, f"{where} draws[{j}]")
                ok = good and _draw_size(r, d, f"{where} draws[{j}]") and ok
        elif t == "draw" and "values" in e and not _kind_ok("intlist", e["values"]):
            r.add("shape", where, f"field values must be {KIND_TEXT['intlist']}")
            ok = False
    log = doc.get("log")
    if log is not None and not isinstance(log, list):
        r.add("shape", "document", "field log must be a list or null")
        return False
    for i, x in enumerate(log or []):
        where = f"log[{i}]"
        if not _shape(r, x, LOG_SHAPE, where):
            ok = False
            continue
        move = x["move"]
        if not _kind_ok("movekind", move.get("kind")):
            r.add("shape", where, f"field move.kind must be {KIND_TEXT['movekind']}")
            ok = False
            continue
        ok = _shape(r, move, MOVE_SHAPES[move["kind"]], f"{where} move") and ok
    return ok


def _ms(stream_id: str) -> int:
    return int(stream_id.split("-")[0])


def _sid(stream_id: str) -> tuple[int, int]:
    a, b = stream_id.split("-")
    return int(a), int(b)


def _short(c: Any) -> str:
    return c[:16] if isinstance(c, str) else "none"


# -- the checks -----------------------------------------------------------------------------


@dataclass
class Round:
    rid: str
    opened: int = -1
    spec: dict[str, Any] = field(default_factory=dict)
    commits: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    closed: int = -1
    close: dict[str, Any] = field(default_factory=dict)
    revealed: int = -1
    reveal: dict[str, Any] = field(default_factory=dict)


def check(doc: Any, receipts: Any = None, rules: bool = False) -> Report:
    r = Report()
    try:
        if not _check_shapes(r, doc):
            return r
        _Checker(doc, r).run(receipts)
    except Exception as exc:  # a record no check foresaw: reported, never a crash
        r.add("shape", "document", f"cannot be verified: {exc}")
        return r
    if rules and r.ok:
        from shared.fairness.rules_check import replay  # not stdlib: the rules package

        for p in replay(doc):
            r.problems.append(p)
    return r


class _Checker:
    def __init__(self, doc: dict[str, Any], report: Report) -> None:
        self.doc = doc
        self.r = report
        self.gid: str = doc["game_id"]
        self.rec: list[dict[str, Any]] = doc["record"]
        self.log: list[dict[str, Any]] | None = doc.get("log")
        self.rounds: dict[str, Round] = {}
        self.joint: dict[str, dict[str, Any]] = {}  # rid -> slot -> revealed choice
        self.joint_defaulted: dict[str, list[str]] = {}
        self.dealt: dict[str, dict[str, Any]] = {}
        self.key: str | None = None  # the escrow key the rounds' openings were sealed to

    def add(self, cls: str, where: str, text: str) -> None:
        self.r.add(cls, where, text)

    def first(self, t: str) -> int:
        return next((i for i, e in enumerate(self.rec) if e["type"] == t), -1)

    def expired(self) -> bool:
        """The game ended by its lifetime (issue #28: outcome status "expired", nobody placed)
        or an admin ended it (issue #19: "aborted", likewise): a round or the entropy round
        may have been open then; it stays open in the record (the escrow writes nothing after
        game_ended) and is not applied."""
        end = self.first("game_ended")
        outcome = self.rec[end].get("outcome") if end >= 0 else None
        return isinstance(outcome, dict) and outcome.get("status") in ("expired", "aborted")

    def run(self, receipts: Any) -> None:
        if not self.structure():
            return
        self.seed()
        self.sealed_rounds()
        self.escrow_key()
        self.entropy()
        self.draws()
        self.applied()
        self.signatures()
        if "audit" in self.doc:
            self.bundle()
        if receipts is not None:
            self.receipts(receipts)

    # an audit bundle: the record document plus copies, which must agree with the record
    def bundle(self) -> None:
        doc = self.doc
        if not same(doc["audit"], AUDIT_VERSION):
            self.add("shape", "document", f"audit bundle version {canon(doc['audit'])}, this "
                     f"verifier reads version {AUDIT_VERSION}")
            return
        if not same(doc.get("signatures", _MISSING), signing.keys_by_seat(self.rec, self.log)):
            self.add("signature", "document", "the bundle's signatures (the session keys per "
                     "seat) are not the keys the record's signed commands use")
        if doc.get("escrow_key", _MISSING) != self.key:
            self.add("seal", "document", f"the bundle's escrow key "
                     f"{_short(doc.get('escrow_key'))} is not the one the record's rounds "
                     f"publish ({_short(self.key)})")
        if not same(doc.get("options", _MISSING), self.created["options"]):
            self.add("record", "document", "the bundle's options are not game_created's")
        if not same(doc.get("rules_version", _MISSING), self.created["rules_version"]):
            self.add("record", "document", "the bundle's rules version is not game_created's")
        reveals = [e for e in self.rec if e["type"] in ("round_revealed", "seed_revealed")]
        if not same(doc.get("reveals", _MISSING), reveals):
            self.add("record", "document", "the bundle's reveals are not the record's reveal "
                     "entries")

    # signed commands (issue 20 item 4): every seat's act in the log and every commitment in
    # the record carries its session key's signature over exactly what was applied, and no
    # key signs for two seats (shared/fairness/signing.py; the key registry is the lobby's)
    def signatures(self) -> None:
        self.keys: dict[str, int] = {}  # session key -> the seat it signs for
        self.shared: set[str] = set()  # keys found signing for two seats
        signed: list[tuple[str, Any, Any, bytes | None]] = []  # (where, key, sig, message)
        for x in self.log or []:
            if x["by"] != "seat" or x["move"]["kind"] != "act":
                continue  # the server's moves (timeouts, rounds, draws) are not signed
            m, where = x["move"], f"log seq {x['seq']}"
            msg = None
            if isinstance(x.get("cmd_id"), str) and (x.get("expected_seq") is None
                                                     or _is_int(x.get("expected_seq"))):
                msg = signing.message(self.gid, m["seat"], x["cmd_id"], "act",
                                      signing.act_body(m["action"], x.get("expected_seq")))
            signed.append((where, x.get("key"), x.get("sig"), msg))
            self.seat_key(where, m["seat"], x.get("key"))
        for e in self.rec:
            if e["type"] != "committed":
                continue
            where = f"round {e['round_id']} slot {e['slot']} committed"
            msg = None
            if isinstance(e.get("cmd_id"), str) and _kind_ok("hex64", e.get("sealed_sha256")):
                msg = signing.message(self.gid, e["seat"], e["cmd_id"], "commit",
                                      signing.commit_body(e["round_id"], e["slot"],
                                                          e["commitment"], e["sealed_sha256"],
                                                          e["public"]))
            signed.append((where, e.get("key"), e.get("sig"), msg))
            self.seat_key(where, e["seat"], e.get("key"))
        if all(key is None and sig is None for _, key, sig, _ in signed):
            return  # a game recorded before signed commands: who acted is the server's word
        for where, key, sig, msg in signed:
            if not signing.well_formed(key, sig) or msg is None:
                self.add("signature", where, "a seat's command without its session key's "
                         "signature (key, sig, cmd_id and the signed fields)")
            elif not signing.verify(key, sig, msg):
                self.add("signature", where, f"the signature does not verify under key "
                         f"{_short(key)} for this game, seat, command and body")
            else:
                self.r.counts["signatures"] += 1

    def seat_key(self, where: str, seat: int, key: Any) -> None:
        if not isinstance(key, str):
            return
        first = self.keys.setdefault(key, seat)
        if first != seat and key not in self.shared:  # (said once per key)
            self.shared.add(key)
            self.add("signature", where, f"key {_short(key)} signs for seat {seat} and for "
                     f"seat {first}: a session key is one player's")

    # the record's frame: one of each singleton, the end, ids in order, the log public
    def structure(self) -> bool:
        doc, rec = self.doc, self.rec
        if doc["ended"] is not True:
            self.add("record", "document", "the game has not ended: nothing can be verified "
                     "before the dealer's reveal and the public move log")
        if self.log is None:
            self.add("log", "document", "the move log is not public: nothing the server "
                     "applied can be checked (it must be published once the game has ended)")
        complete = True
        for t in ("game_created", "seed_committed", "game_ended", "seed_revealed"):
            n = sum(1 for e in rec if e["type"] == t)
            if n != 1:
                self.add("record", t, f"{n} entries of this type, the record needs exactly one")
                complete = False
        if not complete:
            return False
        prev: tuple[int, int] | None = None
        for i, e in enumerate(rec):
            cur = _sid(e["id"])
            if prev is not None and cur <= prev:
                self.add("order", f"record[{i}] {e['type']}",
                         f"stream id {e['id']} does not follow the previous entry's")
            prev = cur
        self.created = rec[self.first("game_created")]
        self.revealed = rec[self.first("seed_revealed")]
        if self.first("game_created") != 0:
            self.add("order", "game_created", "the record does not begin with the game's creation")
        if self.created["game"] != doc["game"]:
            self.add("record", "game_created", f"game {self.created['game']} differs from the "
                     f"document's {doc['game']}")
        if not same(self.created["players"], doc["players"]):
            self.add("record", "game_created", "players differ from the document's players")
        if self.revealed["rules_version"] != self.created["rules_version"]:
            self.add("seed", "seed_revealed", "rules version differs between creation and reveal")
        end = self.first("game_ended")
        for i, e in enumerate(rec):  # (a round open at the end stays open in the record)
            if i > end and e["type"] != "seed_revealed":
                self.add("order", f"record[{i}] {e['type']}", "after the end of the game")
        if self.expired() and rec[end]["outcome"].get("results") != []:
            self.add("record", "game_ended", "an expired game places nobody, but its outcome "
                     "has results")
        if self.first("seed_revealed") < end:
            self.add("secret", "seed_revealed", "the dealer revealed its seed and draws before "
                     "the game ended")
        return True

    def seed(self) -> None:
        at = self.first("seed_committed")
        entry = self.rec[at]
        seed = bytes.fromhex(self.revealed["server_seed"])
        if seed_commitment(self.gid, seed) != entry["commitment"]:
            self.add("seed", "seed_committed", "the revealed server seed does not match its "
                     "commitment")
        if entry["scheme"] != SEED_SCHEME:
            self.add("seed", "seed_committed", f"unknown scheme {entry['scheme']}")
        before = next((i for i, e in enumerate(self.rec[:at]) if e["type"] in PLAY_TYPES), -1)
        if before >= 0:
            e = self.rec[before]
            what = e.get("round_id", e.get("label", e.get("seq", "")))
            self.add("seed", "seed_committed", f"published after record[{before}] "
                     f"({e['type']} {what}): the dealer could choose its seed after seeing "
                     "play or the seats' entropy")

    # the escrow key: every round's openings were sealed to the same one (issue 20 item 3)
    def escrow_key(self) -> None:
        opened = [e for e in self.rec if e["type"] == "round_opened"]
        self.key = next((e["escrow_key"] for e in opened if "escrow_key" in e), None)
        if self.key is None:
            return  # a game of protocol v1: its openings were not sealed
        for e in opened:
            k = e.get("escrow_key")
            if k is None:
                self.add("seal", f"round {e['round_id']} round_opened", "publishes no escrow "
                         "key, though the game's other rounds do")
            elif k != self.key:
                self.add("seal", f"round {e['round_id']} round_opened", f"escrow key "
                         f"{_short(k)} is not the game's ({_short(self.key)}): its openings "
                         "were sealed to another key")

    # sealed rounds: every seat and slot against the round's opening
    def sealed_rounds(self) -> None:
        n_seats = len(self.doc["players"])
        for i, e in enumerate(self.rec):
            t = e["type"]
            if t not in ROUND_TYPES:
                continue
            rid = e["round_id"]
            rd = self.rounds.get(rid)
            if t == "round_opened":
                if rd is not None:
                    self.add("round", f"round {rid}", "opened twice")
                    continue
                self.rounds[rid] = Round(rid, opened=i, spec=e)
                continue
            if rd is None:
                self.add("round", f"round {rid}", f"{t} for a round that was never opened "
                         "before it")
                continue
            if t in ("committed", "slot_timed_out"):
                if rd.closed >= 0:
                    self.add("round", f"{rid}/{e['slot']} {t}", "after the round closed")
                rd.commits.append((i, e))
            elif t == "round_closed":
                if rd.closed >= 0:
                    self.add("round", f"round {rid}", "closed twice")
                    continue
                rd.closed, rd.close = i, e
            else:
                if rd.revealed >= 0:
                    self.add("round", f"round {rid}", "revealed twice")
                    continue
                if rd.closed < 0:
                    self.add("round", f"round {rid}", "revealed before it closed")
                rd.revealed, rd.reveal = i, e
        for rd in self.rounds.values():
            self.one_round(rd, n_seats)

    def one_round(self, rd: Round, n_seats: int) -> None:
        rid = rd.rid
        slots: dict[str, int] = {}
        order: list[str] = []
        for s in rd.spec["slots"]:
            key, seat = s["key"], s["seat"]
            where = f"{rid}/{key} round_opened"
            if key in slots:
                self.add("slot", where, "slot opened twice in the round")
                continue
            slots[key] = seat
            order.append(key)
            m = _SLOT_KEY.fullmatch(key)
            if seat < 0 or seat >= n_seats:
                self.add("seat", where, f"seat {seat} is not a seat of this game")
            elif m is None or int(m.group(1)) != seat:
                self.add("seat", where, f"the slot is opened for seat {seat}, but slot keys "
                         "name their seat (s<seat>[:...])")
        if rid == ENTROPY_ROUND and (rd.spec["ordered"] or order != [
                f"s{i}" for i in range(n_seats)]):
            self.add("entropy", "round entropy", "the entropy round must have one unordered "
                     "slot per seat, s0, s1, ...")
        published: dict[str, str] = {}
        public: dict[str, Any] = {}
        timed_out: set[str] = set()
        slot_ms = rd.spec.get("slot_timeout_ms")
        if slot_ms is not None and (not _is_int(slot_ms) or slot_ms < 1
                                    or not rd.spec["ordered"]):
            self.add("shape", f"round {rid} round_opened", "slot_timeout_ms must be an integer "
                     ">= 1, in a fixed-order round only")
            slot_ms = None
        turn_from = _ms(rd.spec["id"])  # when the slot whose turn it is began its turn
        for k, (_i, c) in enumerate(rd.commits):
            key = c["slot"]
            where = f"{rid}/{key} {c['type']}"
            if key not in slots:
                self.add("slot", where, "not a slot of the round")
                continue
            if key in published or key in timed_out:
                self.add("slot", where, "committed or timed out twice")
                continue
            if c["seat"] != slots[key]:
                self.add("seat", where, f"seat {c['seat']}, but the round opened the slot for "
                         f"seat {slots[key]}")
            public[key] = c["public"]
            at = _ms(c["id"])
            if c["type"] == "slot_timed_out":
                timed_out.add(key)
                if slot_ms is None:
                    self.add("deadline", where, "a slot timed out in a round without a time "
                             "per slot")
                elif at + DEADLINE_SLACK_MS < turn_from + slot_ms:
                    self.add("deadline", where, f"timed out at {at}, before its own time ran "
                             f"out at {turn_from + slot_ms} (P-S1)")
            else:
                published[key] = c["commitment"]
            turn_from = at
            if rd.spec["ordered"]:
                if k >= len(order) or order[k] != key:
                    want = order[k] if k < len(order) else "none"
                    self.add("ordered", where, f"committed in place {k + 1}, but the round's "
                             f"fixed order puts {want} there")
            elif c["public"] is not None:
                self.add("public", where, "a public part in a round without a fixed order")
        if rd.closed < 0 or rd.revealed < 0:
            if not self.expired():  # a game ended by its lifetime leaves its round open
                self.add("round", f"round {rid}", "opened but never closed and revealed")
            return
        self.r.counts["rounds"] += 1
        where = f"round {rid} round_closed"
        without = [k for k in order if k not in published]
        if rd.close["defaulted"] != without:
            self.add("default", where, f"defaulted {canon(rd.close['defaulted'])}, but the "
                     f"slots without a published commitment are {canon(without)}")
        if commitments_root(sorted(published.items())) != rd.close["root"]:
            self.add("root", where, "the commitments root is not the root of the commitments "
                     "published before the close")
        # defaults before the round's deadline only when every defaulted slot timed out on
        # its own time (P-S1: a fixed-order round times each seat separately)
        early_ok = bool(without) and all(k in timed_out for k in without)
        if without and not early_ok \
                and _ms(rd.close["id"]) + DEADLINE_SLACK_MS < rd.spec["deadline_ms"]:
            self.add("deadline", where, f"closed with defaults at {_ms(rd.close['id'])}, "
                     f"before the deadline {rd.spec['deadline_ms']} fixed at open")
        openings = rd.reveal["openings"]
        if [o["slot"] for o in openings] != order:
            self.add("slot", f"round {rid} round_revealed", f"openings for "
                     f"{canon([o['slot'] for o in openings])}, but the round opened "
                     f"{canon(order)}")
        defaults = {s["key"]: s["default_commitment"] for s in rd.spec["slots"]}
        choices: dict[str, Any] = {}
        defaulted: list[str] = []
        for o in openings:
            key = o["slot"]
            where = f"{rid}/{key} opening"
            if key not in slots or key in choices:
                continue  # reported above (the openings are not the opened slots)
            choices[key] = o["choice"]
            if o["seat"] != slots[key]:
                self.add("seat", where, f"seat {o['seat']}, but the round opened the slot for "
                         f"seat {slots[key]}")
            if o["defaulted"]:
                defaulted.append(key)
            if key in published:
                if o["defaulted"]:
                    self.add("default", where, "shown as defaulted although its commitment "
                             f"{_short(published[key])} stands in the record (published "
                             "before the close)")
                    continue
                self.r.counts["commitments"] += 1
                computed = commitment(self.gid, rid, key, o["seat"], o["choice"], o["nonce"]) \
                    if o["nonce"] is not None else None
                if computed is None or computed != o["commitment"]:
                    self.add("commitment", where, "the revealed choice and nonce do not hash "
                             "to the opening's commitment")
                if o["commitment"] != published[key]:
                    self.add("commitment", where, "the opening's commitment "
                             f"{_short(o['commitment'])} is not the one published before the "
                             f"close ({_short(published[key])})")
                if public[key] is not None:
                    ch = o["choice"]
                    part = {k: ch.get(k) for k in public[key]} if isinstance(ch, dict) else {}
                    if not same(part, public[key]):
                        self.add("public", f"{rid}/{key} committed", f"the public part shown "
                                 f"to later seats, {canon(public[key])}, is not the revealed "
                                 f"choice's, {canon(part)}")
            elif not o["defaulted"]:
                self.add("commitment", where, "revealed as a committed choice, but no "
                         "commitment was published before the close")
            else:
                if key in timed_out and public[key] is not None:
                    ch = o["choice"]
                    part = {k: ch.get(k) for k in public[key]} if isinstance(ch, dict) else {}
                    if not same(part, public[key]):
                        self.add("public", f"{rid}/{key} slot_timed_out", "the public part "
                                 f"shown to later seats, {canon(public[key])}, is not the "
                                 f"default's, {canon(part)}")
                if o["nonce"] is not None or o["commitment"] is not None:
                    self.add("default", where, "a defaulted opening carries a nonce or a "
                             "commitment")
                salt = o.get("default_salt")
                dc = default_commitment(self.gid, rid, key, o["choice"], salt) \
                    if isinstance(salt, str) else None
                if dc != defaults[key]:
                    self.add("default", where, "the default shown is not the one fixed at open")
            if rid == ENTROPY_ROUND and not _kind_ok("seed", o["choice"]):
                self.add("entropy", where, "a client seed must be 64 lowercase hex digits "
                         "or empty")
        self.joint[rid] = choices
        self.joint_defaulted[rid] = defaulted

    # the client seeds in the game key
    def entropy(self) -> None:
        seeds = self.revealed["client_seeds"]
        rd = self.rounds.get(ENTROPY_ROUND)
        n = len(self.doc["players"])
        if not self.created["client_entropy"]:
            if rd is not None:
                self.add("entropy", "round entropy", "an entropy round in a game whose table "
                         "has no client entropy")
            if seeds:
                self.add("entropy", "seed_revealed", "the game key uses client seeds, but the "
                         "table had no entropy round (the dealer chose them)")
            return
        if rd is None or ENTROPY_ROUND not in self.joint:
            if self.expired() and seeds == [] and self.revealed["draws"] == []:
                return  # ended by its lifetime before the round closed: nothing was drawn
            self.add("entropy", "round entropy", "the table has client entropy but the record "
                     "has no revealed entropy round")
            return
        expected = [self.joint[ENTROPY_ROUND].get(f"s{i}", "") for i in range(n)]
        dealer = self.revealed["draws"]
        if not same(seeds, expected) and not (seeds == [] and dealer == []):
            self.add("entropy", "seed_revealed", "the client seeds in the game key are not the "
                     "entropy round's reveal")
        later = next((i for i, e in enumerate(self.rec) if i < rd.revealed and (
            e["type"] in ("draw", "event") or (
                e["type"] == "round_opened" and e["round_id"] != ENTROPY_ROUND))), -1)
        if later >= 0:
            self.add("entropy", "round entropy", f"play began (record[{later}] "
                     f"{self.rec[later]['type']}) before the entropy round was revealed")

    # the dealer's draws against the record
    def draws(self) -> None:
        rv = self.revealed
        seed = bytes.fromhex(rv["server_seed"])
        key = game_key(seed, self.gid, rv["rules_version"],
                       [bytes.fromhex(s) for s in rv["client_seeds"]])
        for d in rv["draws"]:
            where = f"draw {d['label']}"
            values = draw(key, d["label"], d["draw"], d["n"], d["count"])
            self.r.counts["draws"] += 1
            if not same(values, d["values"]):
                self.add("draw", where, f"recomputed {canon(values)} != dealt "
                         f"{canon(d['values'])}")
            if d["label"] in self.dealt:
                self.add("draw", where, "the dealer dealt this label twice")
                continue
            self.dealt[d["label"]] = d
        dealer_order = [d["label"] for d in rv["draws"]]
        record_order = [e["label"] for e in self.rec if e["type"] == "draw"]
        if dealer_order[:len(record_order)] != record_order:
            self.add("draw", "record", "the record's draws are not the dealer's draws in the "
                     "dealer's order")
        seen: set[str] = set()
        for e in self.rec:
            if e["type"] != "draw":
                continue
            where = f"draw {e['label']}"
            if e["label"] in seen:
                self.add("draw", where, "in the record twice")
            seen.add(e["label"])
            d = self.dealt.get(e["label"])
            if d is None:
                self.add("draw", where, "missing from the dealer's reveal")
                continue
            if (e["draw"], e["n"], e["count"]) != (d["draw"], d["n"], d["count"]):
                self.add("draw", where, "the public request differs from the dealer's")
            if e["secret"]:
                if "values" in e:
                    self.add("secret", where, "the faces of a secret draw were published "
                             "during play")
            elif "values" not in e:
                self.add("draw", where, "a public draw without its values")
            elif not same(e["values"], d["values"]):
                self.add("draw", where, "public values differ from the dealer's")

    # what the adjudicator applied: the public move log after the end
    def applied(self) -> None:
        if self.log is None:
            return
        first_seq = 3 if self.created["client_entropy"] else 2
        move_at: dict[int, dict[str, Any]] = {}
        for i, x in enumerate(self.log):
            want = first_seq + i
            if x["seq"] != want:
                self.add("log", f"log[{i}]", f"seq {x['seq']}, expected {want} (the log must "
                         "hold every applied move, in order)")
            m = x["move"]
            kind = m["kind"]
            if kind == "act":
                ok = x["by"] in ("seat", "timeout") and _is_int(x.get("seat")) \
                    and x.get("seat") == m["seat"]
            elif kind == "joint":
                ok = x["by"] == "escrow" and isinstance(x.get("round_id"), str) \
                    and x.get("round_id") == m["round_id"]
            else:
                ok = x["by"] == "dealer" and isinstance(x.get("label"), str) \
                    and x.get("label") == m["label"]
            if not ok:
                self.add("log", f"log seq {x['seq']}", "the move's origin does not match it")
            move_at.setdefault(x["seq"], m)
        # the record's revealed rounds and draws, in order, are the log's joint moves and
        # chance outcomes, in order: each exactly once
        rec_steps = [("joint", e["round_id"]) if e["type"] == "round_revealed"
                     else ("chance", e["label"]) for e in self.rec
                     if (e["type"] == "round_revealed" and e["round_id"] != ENTROPY_ROUND)
                     or e["type"] == "draw"]
        log_steps: list[tuple[str, str, int]] = []
        for x in self.log:
            m = x["move"]
            if m["kind"] == "joint":
                log_steps.append(("joint", m["round_id"], x["seq"]))
            elif m["kind"] == "chance_outcome":
                log_steps.append(("chance", m["label"], x["seq"]))
        applied_n: dict[tuple[str, str], int] = {}
        for kind, name, _seq in log_steps:
            applied_n[(kind, name)] = applied_n.get((kind, name), 0) + 1
        in_record = set(rec_steps)
        for kind, name in rec_steps:
            n = applied_n.get((kind, name), 0)
            what = f"round {name}" if kind == "joint" else f"draw {name}"
            if n == 0:
                self.add("applied", what, "revealed but never applied (no joint move in the "
                         "log)" if kind == "joint" else "in the record but never applied")
            elif n > 1:
                self.add("applied", what, f"applied {n} times")
        for kind, name, seq in log_steps:
            if (kind, name) not in in_record:
                self.add("applied", f"log seq {seq}", f"applies round {name}, which was never "
                         "revealed" if kind == "joint" else f"applies draw {name}, which is not "
                         "in the record")
        applied_steps = [(k, n) for k, n, _s in log_steps]
        if applied_steps != rec_steps and sorted(applied_steps) == sorted(rec_steps):
            self.add("applied", "log", "the log applies the revealed rounds and draws in "
                     "another order than the record's")
        for x in self.log:
            m = x["move"]
            where = f"log seq {x['seq']}"
            if m["kind"] == "joint":
                self.r.counts["applied"] += 1
                rid = m["round_id"]
                if rid in self.joint:
                    if not same(m["choices"], self.joint[rid]):
                        self.add("applied", where, f"the choices applied for {rid} are not the "
                                 "revealed ones")
                    if m["defaulted"] != self.joint_defaulted[rid]:
                        self.add("applied", where, f"the defaulted slots applied for {rid} are "
                                 "not the revealed ones")
            elif m["kind"] == "chance_outcome":
                self.r.counts["applied"] += 1
                d = self.dealt.get(m["label"])
                if d is not None and not same(m["values"], d["values"]):
                    self.add("applied", where, f"the outcome applied for {m['label']} is not "
                             "the dealer's")
        self.event_order(move_at)

    def event_order(self, move_at: dict[int, dict[str, Any]]) -> None:
        """The record in the order of the moves: a round's entries lie after every event of
        the moves before the one that applies it, its reveal and a draw right before the
        events of the move that applies it; events in seq order, each of a move of the log;
        the end after every event."""
        rounds_at: dict[str, int] = {}
        draws_at: dict[str, int] = {}
        for x in self.log or []:
            m = x["move"]
            if m["kind"] == "joint":
                rounds_at.setdefault(m["round_id"], x["seq"])
            elif m["kind"] == "chance_outcome":
                draws_at.setdefault(m["label"], x["seq"])
        last_seq = self.log[-1]["seq"] if self.log else None
        expired = self.expired()
        last: tuple[int, int] = (-1, 0)
        for i, e in enumerate(self.rec):
            t = e["type"]
            if t == "event":
                if e["seq"] not in move_at:
                    self.add("order", f"record[{i}] event", f"seq {e['seq']} is not a move of "
                             "the log")
                    continue
                pos = (e["seq"], 1)
            elif t == "draw" and e["label"] in draws_at:
                pos = (draws_at[e["label"]], 0)
            elif t in ROUND_TYPES and e["round_id"] in rounds_at:
                seq = rounds_at[e["round_id"]]
                pos = (seq, 0) if t == "round_revealed" else (seq - 1, 2)
            elif t in ("round_opened", "committed", "slot_timed_out") and expired \
                    and last_seq is not None and e["round_id"] != ENTROPY_ROUND:
                pos = (last_seq, 2)  # the round still open at the end: after the last move
            elif t == "game_ended" and last_seq is not None:
                pos = (last_seq, 3)
            else:
                continue
            if pos < last:
                self.add("order", f"record[{i}] {t}", f"belongs to step {pos[0]} but follows "
                         f"an entry of step {last[0]}: the record is not in the order of the "
                         "moves")
            last = max(last, pos)

    # a seat's own receipts: its choices reached the record unchanged
    def receipts(self, data: Any) -> None:
        items = data.get("receipts") if isinstance(data, dict) else data
        if not isinstance(items, list):
            self.add("receipt", "receipts", "not a list of receipts")
            return
        if isinstance(data, dict) and data.get("game_id", self.gid) != self.gid:
            self.add("receipt", "receipts", f"receipts of game {data.get('game_id')}, not of "
                     "this one")
            return
        seat: Any = data.get("seat") if isinstance(data, dict) else None
        for j, x in enumerate(items):
            rr = Report()
            if not _shape(rr, x, RECEIPT_SHAPE, f"receipts[{j}]"):
                self.r.problems += [Problem("receipt", p.where, p.text) for p in rr.problems]
                continue
            rid, key = x["round_id"], x["slot"]
            where = f"{rid}/{key} receipt"
            self.r.counts["receipts"] += 1
            rd = self.rounds.get(rid)
            spec = next((s for s in rd.spec["slots"] if s["key"] == key), None) \
                if rd is not None else None
            if rd is None or spec is None:
                self.add("receipt", where, "the record has no such round and slot")
                continue
            mine = seat if _is_int(seat) else spec["seat"]
            sealed_to = x.get("escrow_key")
            if sealed_to is not None and sealed_to != rd.spec.get("escrow_key"):
                self.add("seal", where, f"my opening was sealed to {_short(sealed_to)}, not to "
                         f"the escrow key the record publishes for the round "
                         f"({_short(rd.spec.get('escrow_key'))}): the key I was shown was "
                         "substituted")
            if spec["seat"] != mine:
                self.add("receipt", where, f"the record opens my slot for seat {spec['seat']}, "
                         f"not mine ({mine})")
            if commitment(self.gid, rid, key, mine, x["choice"], x["nonce"]) != x["commitment"]:
                self.add("receipt", where, "the receipt does not hash to its own commitment "
                         "(not a receipt of this game, seat and slot)")
                continue
            pub = next((c for _i, c in rd.commits if c["slot"] == key), None)
            if pub is None or pub["commitment"] != x["commitment"]:
                self.add("receipt", where, f"my commitment {_short(x['commitment'])} is not the "
                         "one published for my slot "
                         f"({_short(pub['commitment']) if pub else 'none'})")
            if rd.revealed < 0 and self.expired():
                continue  # open when the game ended by its lifetime: never revealed nor applied
            o = next((o for o in rd.reveal.get("openings", []) if o["slot"] == key), None)
            if o is None or o["defaulted"] or not same(o["choice"], x["choice"]) or \
                    o["nonce"] != x["nonce"] or o["commitment"] != x["commitment"]:
                shown = canon(o["choice"]) if o is not None else "nothing"
                self.add("receipt", where, f"my choice {canon(x['choice'])} was revealed as "
                         f"{shown}" + (" (defaulted)" if o is not None and o["defaulted"] else ""))
            if rid == ENTROPY_ROUND:
                seeds = self.revealed["client_seeds"]
                if _is_int(mine) and (mine < 0 or mine >= len(seeds)
                                      or seeds[mine] != x["choice"]) and \
                        self.revealed["draws"]:
                    self.add("receipt", where, "my client seed is not the one in the game key")
                continue
            if self.log is not None:
                applied = [m["move"] for m in self.log if m["move"]["kind"] == "joint"
                           and m["move"]["round_id"] == rid]
                if not applied or not same(applied[0]["choices"].get(key, _MISSING),
                                           x["choice"]):
                    self.add("receipt", where, "my choice is not the one the log applied")


# -- command line ---------------------------------------------------------------------------


def load(target: str, game_id: str | None) -> dict[str, Any]:
    if target.startswith(("http://", "https://")):
        if not game_id:
            raise SystemExit("usage: verify <base-url> <game_id>")
        url = f"{target.rstrip('/')}/api/matches/{game_id}/record"
        with urllib.request.urlopen(url, timeout=30) as r:
            return json.loads(r.read())  # type: ignore[no-any-return]
    with open(target, encoding="utf-8") as f:
        return json.load(f)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if {"-h", "--help"} & set(args):
        print(__doc__)
        return 0
    receipts_path: str | None = None
    rules = False
    if "--rules" in args:
        args.remove("--rules")
        rules = True
    if "--receipts" in args:
        i = args.index("--receipts")
        if i + 1 >= len(args):
            print("--receipts needs a file")
            return 2
        receipts_path = args[i + 1]
        del args[i:i + 2]
    if not args:
        print(__doc__)
        return 2
    doc = load(args[0], args[1] if len(args) > 1 else None)
    receipts = None
    if receipts_path is not None:
        with open(receipts_path, encoding="utf-8") as f:
            receipts = json.load(f)
    report = check(doc, receipts, rules)
    unsigned = report.counts["signatures"] == 0 and (any(
        x.get("by") == "seat" for x in doc.get("log") or [] if isinstance(x, dict)) or any(
        e.get("type") == "committed" for e in doc.get("record") or [] if isinstance(e, dict)))
    if report.problems:
        for p in report.problems:
            print("FAIL", p)
        return 1
    c = report.counts
    print(f"OK {doc['game_id']}: {c['draws']} draws recomputed, {c['commitments']} "
          f"commitments in {c['rounds']} sealed rounds verified, {c['applied']} applied moves "
          f"match, {c['signatures']} seat signatures hold"
          + (" (no command is signed: a game recorded before signed commands, who acted is "
             "the server's word)" if unsigned else "")
          + (f", {c['receipts']} receipts hold" if receipts is not None else "")
          + (", the engine agrees with every step" if rules else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
