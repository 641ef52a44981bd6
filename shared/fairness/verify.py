"""Verify a finished game from its public record. Standard library only.

    python -m shared.fairness.verify http://127.0.0.1:8000 <game_id>
    python -m shared.fairness.verify record.json

Checks (FAIRNESS.md): the dealer committed to its seed before any draw and the revealed seed
matches; the client seeds bound into the game key are the ones revealed by the entropy round;
every draw recomputes from the game key and its label; every outcome the adjudicator applied
is the dealer's; every sealed choice matches the commitment published before the round
closed, the commitments root matches, defaulted slots got the default fixed at open, and the
adjudicator applied exactly the revealed choices. Prints OK or each difference; exit 1 on any.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from typing import Any

from shared.fairness.commitments import commitment, commitments_root, default_commitment
from shared.fairness.draws import draw, game_key, seed_commitment


def verify(doc: dict[str, Any]) -> tuple[list[str], dict[str, int]]:
    """(problems, counts). ``doc`` is the gateway's /api/matches/<id>/record answer."""
    game_id: str = doc["game_id"]
    record = doc["record"]
    problems: list[str] = []
    counts = {"draws": 0, "commitments": 0, "rounds": 0, "applied": 0}
    types = [e.get("type") for e in record]
    created = next((e for e in record if e.get("type") == "game_created"), None)
    committed = next((i for i, t in enumerate(types) if t == "seed_committed"), None)
    revealed = next((e for e in record if e.get("type") == "seed_revealed"), None)
    if created is None or committed is None:
        return ["no game_created / seed_committed in the record"], counts
    if revealed is None:
        return ["the dealer has not revealed its seed (game not over?)"], counts
    first_draw = next((i for i, t in enumerate(types) if t == "draw"), None)
    if first_draw is not None and first_draw < committed:
        problems.append("a draw happened before the seed commitment")
    seed = bytes.fromhex(revealed["server_seed"])
    if seed_commitment(game_id, seed) != record[committed]["commitment"]:
        problems.append("the revealed server seed does not match its commitment")
    if revealed["rules_version"] != created["rules_version"]:
        problems.append("rules version differs between creation and reveal")

    # escrow rounds
    opened: dict[str, dict[str, Any]] = {}
    seen: dict[str, str] = {}
    closed: dict[str, dict[str, Any]] = {}
    joint: dict[str, dict[str, Any]] = {}
    for e in record:
        t = e.get("type")
        if t == "round_opened":
            opened[e["round_id"]] = e
        elif t == "committed":
            if e["round_id"] in closed:
                problems.append(f"commit after close in {e['round_id']}")
            seen[f"{e['round_id']}/{e['slot']}"] = e["commitment"]
        elif t == "round_closed":
            closed[e["round_id"]] = e
        elif t == "round_revealed":
            rid = e["round_id"]
            counts["rounds"] += 1
            defaults = {s["key"]: s["default_commitment"]
                        for s in opened.get(rid, {}).get("slots", [])}
            pairs = []
            choices = {}
            for o in e["openings"]:
                key = f"{rid}/{o['slot']}"
                choices[o["slot"]] = o["choice"]
                if o["slot"] not in defaults:
                    problems.append(f"{key}: revealed a slot that was never opened")
                if o["defaulted"]:
                    salt = o.get("default_salt") or ""
                    if default_commitment(game_id, rid, o["slot"], o["choice"], salt) != \
                            defaults.get(o["slot"]):
                        problems.append(f"{key}: defaulted slot did not get the default "
                                        "fixed at open")
                    continue
                c = commitment(game_id, rid, o["slot"], o["seat"], o["choice"], o["nonce"])
                counts["commitments"] += 1
                if c != o["commitment"] or c != seen.get(key):
                    problems.append(f"{key}: the revealed choice does not match its commitment")
                pairs.append((o["slot"], c))
            if rid in closed and commitments_root(pairs) != closed[rid]["root"]:
                problems.append(f"{rid}: commitments root mismatch")
            joint[rid] = choices

    # the dealer's draws
    client_seeds = revealed.get("client_seeds", [])
    if created.get("client_entropy"):
        ent = joint.get("entropy")
        expected = [str(ent.get(f"s{i}", "")) for i in range(len(created["players"]))] \
            if ent is not None else None
        if expected != client_seeds:
            problems.append("client seeds in the game key differ from the entropy reveal")
    gkey = game_key(seed, game_id, revealed["rules_version"],
                    [bytes.fromhex(s) for s in client_seeds])
    dealt: dict[str, list[int]] = {}
    requests: dict[str, tuple[Any, Any, Any]] = {}
    for d in revealed["draws"]:
        values = draw(gkey, d["label"], d["draw"], d["n"], d["count"])
        counts["draws"] += 1
        if values != d["values"]:
            problems.append(f"draw {d['label']}: recomputed {values} != dealt {d['values']}")
        if d["label"] in dealt:
            problems.append(f"draw {d['label']}: the dealer dealt this label twice")
        dealt[d["label"]] = d["values"]
        requests[d["label"]] = (d["draw"], d["n"], d["count"])
    # labels are bound by their order too: the public record's draws, in order, are the
    # dealer's first draws, in order (a draw asked for when the game ended may follow them)
    dealer_order = [d["label"] for d in revealed["draws"]]
    record_order = [e["label"] for e in record if e.get("type") == "draw"]
    if dealer_order[:len(record_order)] != record_order:
        problems.append("the record's draws are not the dealer's draws in the dealer's order")
    for e in record:
        if e.get("type") == "draw":
            if e["label"] not in dealt:
                problems.append(f"draw {e['label']} is missing from the dealer's reveal")
                continue
            if (e["draw"], e["n"], e["count"]) != requests[e["label"]]:
                problems.append(f"draw {e['label']}: the public request differs from the "
                                "dealer's")
            if "values" in e and e["values"] != dealt[e["label"]]:
                problems.append(f"draw {e['label']}: public values differ from the dealer's")

    # what the adjudicator applied (the log is public once the game is over): the record's
    # draws, in the same order
    log = doc.get("log")
    if log is not None:
        applied_order = [entry.get("move", {}).get("label") for entry in log
                         if entry.get("move", {}).get("kind") == "chance_outcome"]
        if applied_order != record_order:
            problems.append("the applied outcomes are not the record's draws in order")
    for entry in log or []:
        move = entry.get("move", {})
        if move.get("kind") == "chance_outcome":
            counts["applied"] += 1
            if dealt.get(move["label"]) != list(move["values"]):
                problems.append(f"applied outcome for {move['label']} is not the dealer's")
        elif move.get("kind") == "joint":
            counts["applied"] += 1
            if joint.get(move["round_id"]) != move["choices"]:
                problems.append(f"applied choices for {move['round_id']} differ from reveal")
    return problems, counts


def load(target: str, game_id: str | None) -> dict[str, Any]:
    if target.startswith(("http://", "https://")):
        if not game_id:
            raise SystemExit("usage: verify <base-url> <game_id>")
        url = f"{target.rstrip('/')}/api/matches/{game_id}/record"
        with urllib.request.urlopen(url, timeout=30) as r:
            return json.loads(r.read())  # type: ignore[no-any-return]
    with open(target) as f:
        return json.load(f)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(__doc__)
        return 2
    doc = load(args[0], args[1] if len(args) > 1 else None)
    problems, counts = verify(doc)
    if problems:
        for p in problems:
            print("FAIL", p)
        return 1
    print(f"OK {doc['game_id']}: {counts['draws']} draws recomputed, "
          f"{counts['commitments']} commitments in {counts['rounds']} sealed rounds verified, "
          f"{counts['applied']} applied moves match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
