"""The verifier's checks of what each seat can prove: every seat's act and commitment signed
by that seat's session key, and a seat's own receipts (its choices reached the record
unchanged, sealed to the key the record publishes). Standard library only."""

from __future__ import annotations

from typing import Any

from shared.fairness import signing
from shared.fairness.checker import ENTROPY_ROUND, Checker
from shared.fairness.commitments import commitment
from shared.fairness.problems import Problem, Report
from shared.fairness.record_shapes import (
    MISSING,
    RECEIPT_SHAPE,
    canon,
    is_int,
    kind_ok,
    same,
    shape_ok,
    short_hex,
)


class SeatChecks(Checker):
    keys: dict[str, int]  # session key -> the seat it signs for (set by ``signatures``)
    shared: set[str]  # keys found signing for two seats

    # signed commands: every seat's act in the log and every commitment in the record carries
    # its session key's signature over exactly what was applied, and no key signs for two
    # seats (shared/fairness/signing.py; the key registry is the lobby's)
    def signatures(self) -> None:
        self.keys = {}
        self.shared = set()
        signed: list[tuple[str, Any, Any, bytes | None]] = []  # (where, key, sig, message)
        for x in self.log or []:
            if x["by"] != "seat" or x["move"]["kind"] != "act":
                continue  # the server's moves (timeouts, rounds, draws) are not signed
            m, where = x["move"], f"log seq {x['seq']}"
            msg = None
            if isinstance(x.get("cmd_id"), str) and (x.get("expected_seq") is None
                                                     or is_int(x.get("expected_seq"))):
                msg = signing.message(self.gid, m["seat"], x["cmd_id"], "act",
                                      signing.act_body(m["action"], x.get("expected_seq")))
            signed.append((where, x.get("key"), x.get("sig"), msg))
            self.seat_key(where, m["seat"], x.get("key"))
        for e in self.rec:
            if e["type"] != "committed":
                continue
            where = f"round {e['round_id']} slot {e['slot']} committed"
            msg = None
            if isinstance(e.get("cmd_id"), str) and kind_ok("hex64", e.get("sealed_sha256")):
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
                         f"{short_hex(key)} for this game, seat, command and body")
            else:
                self.r.counts["signatures"] += 1

    def seat_key(self, where: str, seat: int, key: Any) -> None:
        if not isinstance(key, str):
            return
        first = self.keys.setdefault(key, seat)
        if first != seat and key not in self.shared:  # (said once per key)
            self.shared.add(key)
            self.add("signature", where, f"key {short_hex(key)} signs for seat {seat} and for "
                     f"seat {first}: a session key is one player's")


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
            if not shape_ok(rr, x, RECEIPT_SHAPE, f"receipts[{j}]"):
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
            mine = seat if is_int(seat) else spec["seat"]
            sealed_to = x.get("escrow_key")
            if sealed_to is not None and sealed_to != rd.spec.get("escrow_key"):
                self.add("seal", where, f"my opening was sealed to {short_hex(sealed_to)}, not to "
                         f"the escrow key the record publishes for the round "
                         f"({short_hex(rd.spec.get('escrow_key'))}): the key I was shown was "
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
                self.add("receipt", where, f"my commitment {short_hex(x['commitment'])} is not the "
                         "one published for my slot "
                         f"({short_hex(pub['commitment']) if pub else 'none'})")
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
                if is_int(mine) and (mine < 0 or mine >= len(seeds)
                                      or seeds[mine] != x["choice"]) and \
                        self.revealed["draws"]:
                    self.add("receipt", where, "my client seed is not the one in the game key")
                continue
            if self.log is not None:
                applied = [m["move"] for m in self.log if m["move"]["kind"] == "joint"
                           and m["move"]["round_id"] == rid]
                if not applied or not same(applied[0]["choices"].get(key, MISSING),
                                           x["choice"]):
                    self.add("receipt", where, "my choice is not the one the log applied")
