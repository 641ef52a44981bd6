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
import sys
import urllib.request
from typing import Any

from shared.fairness import signing
from shared.fairness.checker import (
    AUDIT_VERSION,
    DEADLINE_SLACK_MS,
    ENTROPY_ROUND,
    PLAY_TYPES,
    ROUND_TYPES,
    SEED_SCHEME,
    Round,
)
from shared.fairness.draws import seed_commitment
from shared.fairness.play_checks import PlayChecks
from shared.fairness.problems import CLASSES, Problem, Report
from shared.fairness.record_shapes import (
    MAX_DRAW,
    MISSING,
    canon,
    check_shapes,
    same,
    short_hex,
    stream_order,
)
from shared.fairness.round_checks import RoundChecks
from shared.fairness.seat_checks import SeatChecks

# This module is the verifier's entry point and command line; its checks live beside it, one
# module per subject (record_shapes, round_checks, play_checks, seat_checks; their shared state
# in checker, the problem classes in problems), all standard library only.

__all__ = [
    "AUDIT_VERSION",
    "CLASSES",
    "DEADLINE_SLACK_MS",
    "ENTROPY_ROUND",
    "MAX_DRAW",
    "PLAY_TYPES",
    "ROUND_TYPES",
    "SEED_SCHEME",
    "Problem",
    "Report",
    "Round",
    "canon",
    "check",
    "load",
    "main",
    "same",
    "verify",
]


def verify(doc: dict[str, Any], receipts: Any = None, rules: bool = False
           ) -> tuple[list[str], dict[str, int]]:
    """(problems, counts). ``doc`` is the gateway's /api/matches/<id>/record answer;
    ``receipts`` a seat's receipts file (see the module docstring) or None."""
    report = check(doc, receipts, rules)
    return [str(p) for p in report.problems], report.counts


def check(doc: Any, receipts: Any = None, rules: bool = False) -> Report:
    r = Report()
    try:
        if not check_shapes(r, doc):
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


class _Checker(RoundChecks, PlayChecks, SeatChecks):
    """Every check, in order: the record's frame first (nothing else is checked without it),
    then the seed, the sealed rounds, the escrow key, the entropy, the draws, what was
    applied, the signatures, an audit bundle's copies and a seat's receipts."""

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
        if not same(doc.get("signatures", MISSING), signing.keys_by_seat(self.rec, self.log)):
            self.add("signature", "document", "the bundle's signatures (the session keys per "
                     "seat) are not the keys the record's signed commands use")
        if doc.get("escrow_key", MISSING) != self.key:
            self.add("seal", "document", f"the bundle's escrow key "
                     f"{short_hex(doc.get('escrow_key'))} is not the one the record's rounds "
                     f"publish ({short_hex(self.key)})")
        if not same(doc.get("options", MISSING), self.created["options"]):
            self.add("record", "document", "the bundle's options are not game_created's")
        if not same(doc.get("rules_version", MISSING), self.created["rules_version"]):
            self.add("record", "document", "the bundle's rules version is not game_created's")
        reveals = [e for e in self.rec if e["type"] in ("round_revealed", "seed_revealed")]
        if not same(doc.get("reveals", MISSING), reveals):
            self.add("record", "document", "the bundle's reveals are not the record's reveal "
                     "entries")

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
            cur = stream_order(e["id"])
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
