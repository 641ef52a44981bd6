"""``verify --rules``: re-apply a finished game's public move log with the game's own engine and
compare every step with the public record. Not stdlib: it needs this project's rules package
(pydantic); ``shared.fairness.verify`` imports it only when asked.

What it adds to the stdlib checks (docs/fairness.md): every sealed round is the one the rules
asked for (its slots, seats, order, and which parts of a choice are public), every revealed
choice is allowed and a defaulted slot got the rules' default; every draw request (kind, n,
count, secret) is the rules'; every act is by a seat the rules awaited and is legal; the public
events of every step and the final outcome are the engine's.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from shared.fairness.problems import Problem
from shared.rules import registry
from shared.rules.api import (
    MOVE,
    Chance,
    Rejection,
    SealedSlot,
    Simultaneous,
    Terminal,
    Turn,
    from_json,
    to_json,
)


def _norm(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def replay(doc: dict[str, Any]) -> list[Problem]:
    out: list[Problem] = []

    def add(where: str, text: str) -> None:
        out.append(Problem("rules", where, text))

    rec: list[dict[str, Any]] = doc["record"]
    log: list[dict[str, Any]] = doc.get("log") or []
    created = next(e for e in rec if e["type"] == "game_created")
    try:
        game = registry.get(doc["game"])
    except KeyError:
        add("game_created", f"no rules for the game {doc['game']} in this checkout")
        return out
    if game.rules_version != created["rules_version"]:
        add("game_created", f"rules version {created['rules_version']}, this checkout has "
            f"{game.rules_version}: the engine replay does not apply")
        return out
    try:
        state = game.setup(created["options"], len(doc["players"]))
    except Exception as exc:  # a setup the rules refuse (options, seats)
        add("game_created", f"the engine refuses the setup: {exc}")
        return out
    opened = {e["round_id"]: e for e in rec if e["type"] == "round_opened"}
    commits = {(e["round_id"], e["slot"]): e for e in rec
               if e["type"] in ("committed", "slot_timed_out")}
    reveals = {e["round_id"]: e for e in rec if e["type"] == "round_revealed"}
    draws = {e["label"]: e for e in rec if e["type"] == "draw"}
    events: dict[int, list[str]] = {}
    for e in rec:
        if e["type"] == "event":
            events.setdefault(e["seq"], []).append(_norm([e["event"], e["data"]]))
    for x in log:
        m, where = x["move"], f"log seq {x['seq']}"
        node = game.next(state)
        if isinstance(node, Terminal):
            add(where, "the engine says the game was over before this move")
            return out
        if isinstance(node, Turn):
            if m["kind"] != "act" or (m["seat"] not in node.seats
                                      and m["seat"] not in node.open_to):
                add(where, f"the engine awaits a turn of seats {list(node.seats)}, the log "
                    f"applies {m['kind']}" + (f" by seat {m['seat']}" if m["kind"] == "act"
                                              else ""))
                return out
        elif isinstance(node, Simultaneous):
            if m["kind"] != "joint" or m["round_id"] != node.round_id:
                add(where, f"the engine awaits the sealed round {node.round_id}, the log "
                    f"applies {m['kind']} {m.get('round_id', m.get('label', ''))}")
                return out
            _round(node, opened.get(node.round_id), commits, reveals.get(node.round_id),
                   game, add)
        elif isinstance(node, Chance):
            if m["kind"] != "chance_outcome" or m["label"] != node.label:
                add(where, f"the engine awaits the draw {node.label}, the log applies "
                    f"{m['kind']} {m.get('label', m.get('round_id', ''))}")
                return out
            d = draws.get(node.label)
            want = [node.draw, node.n, node.count, node.secret]
            got = [d["draw"], d["n"], d["count"], d["secret"]] if d is not None else want
            if got != want:
                add(f"draw {node.label}", f"the record's request {_norm(got)} is not the "
                    f"engine's {_norm(want)} (kind, n, count, secret)")
        try:
            move = MOVE.validate_python(m)
        except ValidationError:
            add(where, "not a move of the engine")
            return out
        result = game.apply(state, move)
        if isinstance(result, Rejection):
            add(where, f"the engine refuses this move ({result.code}: {result.message})")
            return out
        public = [_norm([ev.type, json.loads(_norm(ev.data))]) for ev in result.events
                  if ev.visible_to is None]
        if public != events.get(x["seq"], []):
            add(where, "the record's public events of this step are not the engine's")
        state = result.state
    ended = next(e for e in rec if e["type"] == "game_ended")
    if ended["outcome"].get("status") == "expired":  # ended by its lifetime:
        node = game.next(state)  # wherever play stood, but not at its end
        if isinstance(node, Terminal):
            add("game_ended", "an expired outcome for a game the engine had ended: it must "
                "be scored")
        for rid, e in opened.items():  # a round still open is the one the engine awaited
            if rid in reveals or rid == "entropy":
                continue
            if not isinstance(node, Simultaneous) or node.round_id != rid:
                add(f"round {rid}", "open at the end, but not the round the engine awaited")
            else:
                _spec(node, e, commits, add)
        return out
    if not isinstance(game.next(state), Terminal):
        add("log", "the log ends before the engine's end of the game")
        return out
    if _norm(ended["outcome"]) != _norm(game.score(state).model_dump(mode="json")):
        add("game_ended", "the outcome is not the engine's score of the final state")
    return out


def _round(node: Simultaneous, opened: dict[str, Any] | None,
           commits: dict[tuple[str, str], dict[str, Any]], reveal: dict[str, Any] | None,
           game: Any, add: Any) -> None:
    rid = node.round_id
    if opened is None or reveal is None:
        add(f"round {rid}", "the engine's sealed round is not opened and revealed in the record")
        return
    _spec(node, opened, commits, add)
    openings = {o["slot"]: o for o in reveal["openings"]}
    for s in node.slots:
        o = openings.get(s.key)
        if o is None:
            continue
        slot = from_json(SealedSlot, to_json(s))
        if o["defaulted"] and _norm(o["choice"]) != _norm(s.default):
            add(f"{rid}/{s.key} opening", "the default applied is not the rules' default")
        elif not game.check_choice(slot, o["choice"]):
            add(f"{rid}/{s.key} opening", "the revealed choice is not allowed for the slot")


def _spec(node: Simultaneous, opened: dict[str, Any],
          commits: dict[tuple[str, str], dict[str, Any]], add: Any) -> None:
    """The opened round is the engine's: its slots (seat, key, order), whether the order is
    fixed, and which parts of each choice are shown to later seats."""
    rid = node.round_id
    where = f"round {rid}"
    want = [[s.seat, s.key] for s in node.slots]
    if [[s["seat"], s["key"]] for s in opened["slots"]] != want:
        add(where, f"the opened slots are not the engine's {_norm(want)} (seat, key, order)")
    if opened["ordered"] != node.ordered:
        add(where, f"ordered is {_norm(opened['ordered'])}, the engine's round "
            f"{'has' if node.ordered else 'has no'} fixed order")
    for s in node.slots:
        c = commits.get((rid, s.key))
        if c is not None:
            keys = sorted(c["public"]) if isinstance(c["public"], dict) else None
            if keys != (sorted(s.public_keys) if s.public_keys else None):
                add(f"{rid}/{s.key} committed", f"public part keys {_norm(keys)}, the "
                    f"engine's slot shows {_norm(sorted(s.public_keys) or None)}")
