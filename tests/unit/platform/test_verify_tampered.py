"""The verifier (shared/fairness/verify.py) on real finished games and on each lie a server could
tell built from them (tests/support/tamper.py): the honest records pass (with their seat's receipts
and with the engine replay too), each lie is reported with its class and where, the receipts expose
a choice rewritten in every public trace, and the command line says so."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from shared.fairness.signing import keys_by_seat
from shared.fairness.verify import CLASSES, check, main, verify
from tests.support import tamper

pytestmark = pytest.mark.unit
CASES = tamper.cases()
ISSUE_CLASSES = {"seat", "seed-late", "entropy", "log", "applied", "default", "public", "secret",
                 "receipt", "signature"}


@pytest.mark.parametrize("case", tamper.honest(), ids=lambda c: c.game)
def test_real_games_verify(case: tamper.Case) -> None:
    assert case.receipts is not None
    for receipts in (None, case.receipts):
        problems, counts = verify(case.doc, receipts)
        assert problems == [], problems
        assert counts["draws"] >= 1 and counts["applied"] >= 2
        assert counts["receipts"] == (len(case.receipts["receipts"]) if receipts else 0)
    with_rules = check(case.doc, case.receipts, rules=True)
    if tamper.rules_apply(case.game):
        assert with_rules.ok, [str(p) for p in with_rules.problems]
    else:  # the engine changed since the fixture was played: said, not guessed
        assert [p.where for p in with_rules.problems] == ["game_created"]


def test_the_fixtures_cover_what_the_issue_needs() -> None:
    docs = {c.game: c.doc for c in tamper.honest()}
    rec = {g: d["record"] for g, d in docs.items()}
    assert any(e["type"] == "round_closed" and e["defaulted"] and e["round_id"] != "entropy"
               for e in rec["duel-defaults"])
    assert not next(e for e in rec["duel-no-entropy"] if e["type"] == "game_created")[
        "client_entropy"]
    assert any(e["type"] == "round_opened" and e["ordered"] for e in rec["empire-engine"])
    assert any(e["type"] == "committed" and e["public"] for e in rec["empire-engine"])
    assert any(e["type"] == "draw" and e["secret"] for e in rec["empire-cards"])
    ended = next(e for e in rec["duel-expired"] if e["type"] == "game_ended")
    assert ended["outcome"]["status"] == "expired"
    opened = {e["round_id"] for e in rec["duel-expired"] if e["type"] == "round_opened"}
    revealed = {e["round_id"] for e in rec["duel-expired"] if e["type"] == "round_revealed"}
    assert opened - revealed == {"pick:2"}  # open at the end, and so it stays


def test_every_class_of_the_issue_has_a_tampered_real_record() -> None:
    assert {c.issue for c in CASES if c.issue} == ISSUE_CLASSES
    assert {c.cls for c in CASES} <= set(CLASSES) | {"rules"}


@pytest.mark.parametrize("case", [c for c in CASES if not c.rules_only], ids=lambda c: c.name)
def test_each_lie_is_reported_with_its_class_and_where(case: tamper.Case) -> None:
    report = check(case.doc, case.receipts)
    assert case.cls in report.classes, [str(p) for p in report.problems]
    for p in report.problems:
        assert p.cls in CLASSES and p.where and p.text
        assert str(p) == f"{p.cls}: {p.where}: {p.text}"
    if case.receipts is not None:
        # rewritten in every public trace: nothing but the seat's own receipts shows it
        assert check(case.doc).ok


def test_the_messages_name_the_place() -> None:
    got = {c.name: [str(p) for p in check(c.doc, c.receipts).problems] for c in CASES}
    assert "seat: pick:1/s0 committed: seat 1, but the round opened the slot for seat 0" in got[
        "seat of a published commitment"]
    assert "seat: pick:2/s0 opening: seat 1, but the round opened the slot for seat 0" in got[
        "seat of a defaulted opening"]
    assert any(p.startswith("seed: seed_committed: published after record[1] (round_opened "
                            "entropy)") for p in got["seed committed after the entropy reveal"])
    assert got["client seeds without an entropy round"] == [
        "entropy: seed_revealed: the game key uses client seeds, but the table had no entropy "
        "round (the dealer chose them)"]
    assert got["move log not public"] == [
        "log: document: the move log is not public: nothing the server applied can be checked "
        "(it must be published once the game has ended)"]
    assert got["revealed round never applied"] == [
        "applied: round pick:1: revealed but never applied (no joint move in the log)"]
    assert any(re.match(r"default: pick:2/s0 opening: shown as defaulted although its "
                        r"commitment [0-9a-f]{16} stands in the record", p)
               for p in got["committed slot shown as defaulted"])
    assert any(p.startswith("public: plan:2/s0:1 committed: the public part shown to later seats")
               for p in got["public part is not the choice's"])
    assert got["secret draw's faces published"] == [
        "secret: draw hand:1:deal: the faces of a secret draw were published during play"]
    assert any(p.startswith("receipt: pick:1/s0 receipt: my choice ")
               for p in got["choice rewritten everywhere (duel-defaults)"])
    # signed commands
    assert [p.split(": ")[0] for p in got["forged signature on an act"]] == ["signature"]
    assert got["forged signature on an act"][0].startswith(
        "signature: log seq 5: the signature does not verify under key ")
    other = got["act attributed to another seat"]
    assert other[0].startswith("signature: log seq 6: key ") and other[0].endswith(
        "signs for seat 0 and for seat 1: a session key is one player's"), other
    assert other[1].startswith("signature: log seq 5: the signature does not verify"), other
    assert len(other) == 2, other
    assert got["act without a signature"] == [
        "signature: log seq 5: a seat's command without its session key's signature (key, sig, "
        "cmd_id and the signed fields)"]
    assert {p.split(": ")[0] for p in got["commit signatures swapped between seats"]} == {
        "signature"}
    assert got["commit without a signature"] == [
        "signature: round pick:1 slot s0 committed: a seat's command without its session "
        "key's signature (key, sig, cmd_id and the signed fields)"]


def test_only_the_engine_replay_sees_a_secret_draw_marked_public() -> None:
    case = next(c for c in CASES if c.rules_only)
    assert check(case.doc).ok  # the stdlib cannot know which draws the rules keep secret
    if not tamper.rules_apply(case.game):
        pytest.skip(f"the {case.game} engine changed since the fixture was played")
    report = check(case.doc, rules=True)
    assert [str(p) for p in report.problems] == [
        'rules: draw hand:1:deal: the record\'s request ["shuffle",108,1,false] is not the '
        'engine\'s ["shuffle",108,1,true] (kind, n, count, secret)']


def test_a_damaged_or_foreign_receipt_is_reported() -> None:
    case = tamper.honest()[0]
    assert case.receipts is not None
    receipts = json.loads(json.dumps(case.receipts))
    receipts["receipts"][0]["choice"] = 3 if receipts["receipts"][0]["choice"] != 3 else 4
    assert "receipt" in check(case.doc, receipts).classes
    assert "receipt" in check(case.doc, {**case.receipts, "game_id": "g-other"}).classes
    assert "receipt" in check(case.doc, {"receipts": [{"round_id": "pick:1"}]}).classes
    assert "receipt" in check(case.doc, {**case.receipts, "seat": 1}).classes


def test_a_receipt_sealed_to_a_substituted_key_is_reported() -> None:
    """A gateway that showed the seat its own key (to read the seat's openings and seal them
    again to the escrow's): the seat's receipts name the key it sealed to."""
    doc, receipts = tamper.load("duel-defaults"), tamper.load_receipts("duel-defaults")
    key = tamper.one(doc, "round_opened")["escrow_key"]
    assert {x["escrow_key"] for x in receipts["receipts"]} == {key}
    assert verify(doc, receipts)[0] == []
    swapped = copy.deepcopy(receipts)
    swapped["receipts"][-1]["escrow_key"] = "ab" * 32
    problems, _ = verify(doc, swapped)
    assert len(problems) == 1 and problems[0].startswith("seal: "), problems
    assert "my opening was sealed to abababababababab" in problems[0]
    # a bundle naming another key than its rounds'
    bundle = {**doc, "audit": 1, "options": tamper.one(doc, "game_created")["options"],
              "rules_version": tamper.one(doc, "game_created")["rules_version"],
              "reveals": [e for e in doc["record"] if e["type"] in ("round_revealed",
                                                                     "seed_revealed")],
              "signatures": keys_by_seat(doc["record"], doc["log"])}
    assert verify({**bundle, "escrow_key": key})[0] == []
    assert verify({**bundle, "escrow_key": "cd" * 32})[0][0].startswith("seal: document: ")
    assert verify({**bundle, "escrow_key": None})[0][0].startswith("seal: document: ")


def test_malformed_documents_are_reported_not_raised() -> None:
    doc = tamper.load("duel-defaults")
    bad: Any
    for bad in ({}, [], {**doc, "record": "x"}, {**doc, "log": 3},
                {**doc, "record": [*doc["record"], {"type": "what"}]}):
        assert check(bad).classes == {"shape"}
    broken = json.loads(json.dumps(doc))
    broken["record"][1]["commitment"] = 1.5
    assert [str(p) for p in check(broken).problems] == [
        "shape: record[1] seed_committed: field commitment must be 64 lowercase hex digits"]


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    honest = tamper.honest()[0]
    lie = next(c for c in CASES if c.receipts is not None)
    paths = {}
    for name, data in (("doc", honest.doc), ("lie", lie.doc), ("receipts", lie.receipts),
                       ("foreign", tamper.load_receipts("empire-engine"))):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(data))
    assert main([str(paths["doc"]), "--receipts", str(paths["foreign"])]) == 1
    assert main([str(paths["doc"]), "--rules"]) == 0
    out = capsys.readouterr().out
    assert "FAIL receipt: " in out and "the engine agrees with every step" in out
    assert main([str(paths["lie"])]) == 0  # consistent everywhere in public
    assert main([str(paths["lie"]), "--receipts", str(paths["receipts"])]) == 1
    out = capsys.readouterr().out
    assert out.startswith("OK ") and "FAIL receipt: pick:1/s0 receipt: " in out
    assert main([str(paths["doc"]), "--receipts"]) == 2


def test_a_record_from_before_signed_commands_is_not_checked_and_says_so(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A game recorded before signed commands (the upgrade fixtures) carries no signature at
    all: the class is not checked, and the command line's OK says who acted is the server's
    word. One unsigned command among signed ones is a forgery (class signature)."""
    doc = tamper.load("duel-defaults")
    for e in [*doc["record"], *doc["log"]]:
        for k in ("key", "sig", "cmd_id", "sealed_sha256", "expected_seq"):
            if e.get("type") == "committed" or e.get("by") == "seat":
                e.pop(k, None)
    report = check(doc)
    assert report.ok and report.counts["signatures"] == 0, report.problems
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    assert main([str(path)]) == 0
    assert "no command is signed" in capsys.readouterr().out
    assert main([str(tamper.RECORDS / "duel-defaults.json")]) == 0
    assert "no command is signed" not in capsys.readouterr().out
