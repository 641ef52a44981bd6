"""The verifier's checks of play: the client seeds in the game key against the entropy round,
every draw recomputed from the dealer's revealed seed in the dealer's order, and the public
move log applying exactly the revealed rounds and the dealer's draws, in the record's order.
Standard library only."""

from __future__ import annotations

from typing import Any

from shared.fairness.checker import ENTROPY_ROUND, ROUND_TYPES, Checker
from shared.fairness.draws import draw, game_key
from shared.fairness.record_shapes import canon, is_int, same


class PlayChecks(Checker):
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
        want = 3 if self.created["client_entropy"] else 2
        # a seat handed to a bot takes a seq of its own, with no move (seat_handed_over)
        skips = sorted(e["seq"] for e in self.rec if e["type"] == "seat_handed_over")
        move_at: dict[int, dict[str, Any]] = {}
        for i, x in enumerate(self.log):
            if i:
                want += 1
            while skips and skips[0] <= want:
                skips.pop(0)
                want += 1
            if x["seq"] != want:
                self.add("log", f"log[{i}]", f"seq {x['seq']}, expected {want} (the log must "
                         "hold every applied move, in order)")
            m = x["move"]
            kind = m["kind"]
            if kind == "act":
                ok = x["by"] in ("seat", "timeout") and is_int(x.get("seat")) \
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

