"""The verifier's checks of sealed rounds: every round's life (opened, commits, closed,
revealed, once each, in order), every seat and slot against the round's opening, every
commitment against its opening, the commitments root, the defaults and their deadlines, the
fixed order and the public parts shown to later seats, and the one escrow key the openings
were sealed to. Standard library only."""

from __future__ import annotations

from typing import Any

from shared.fairness.checker import DEADLINE_SLACK_MS, ENTROPY_ROUND, ROUND_TYPES, Checker, Round
from shared.fairness.commitments import commitment, commitments_root, default_commitment
from shared.fairness.record_shapes import (
    SLOT_KEY,
    canon,
    is_int,
    kind_ok,
    same,
    short_hex,
    stream_ms,
)


class RoundChecks(Checker):
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
            m = SLOT_KEY.fullmatch(key)
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
        if slot_ms is not None and (not is_int(slot_ms) or slot_ms < 1
                                    or not rd.spec["ordered"]):
            self.add("shape", f"round {rid} round_opened", "slot_timeout_ms must be an integer "
                     ">= 1, in a fixed-order round only")
            slot_ms = None
        turn_from = stream_ms(rd.spec["id"])  # when the slot whose turn it is began its turn
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
            at = stream_ms(c["id"])
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
                and stream_ms(rd.close["id"]) + DEADLINE_SLACK_MS < rd.spec["deadline_ms"]:
            self.add("deadline", where, f"closed with defaults at {stream_ms(rd.close['id'])}, "
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
                             f"{short_hex(published[key])} stands in the record (published "
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
                             f"{short_hex(o['commitment'])} is not the one published before the "
                             f"close ({short_hex(published[key])})")
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
            if rid == ENTROPY_ROUND and not kind_ok("seed", o["choice"]):
                self.add("entropy", where, "a client seed must be 64 lowercase hex digits "
                         "or empty")
        self.joint[rid] = choices
        self.joint_defaulted[rid] = defaulted

    # the escrow key: every round's openings were sealed to the same one
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
                         f"{short_hex(k)} is not the game's ({short_hex(self.key)}): its openings "
                         "were sealed to another key")

