"""Tampered copies of real finished games (tests/fixtures/records), one per way a misbehaving
server could lie, each built as that server would: every other public trace
rewritten consistently (stream ids kept increasing, roots recomputed, the log and the events
renumbered), so that only the check for that lie can catch it.

Used by the Python verifier's tests, the Node run of the JavaScript verifier and the browser's.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from shared.fairness import signing
from shared.fairness.commitments import commitment, commitments_root
from shared.fairness.draws import draw, game_key

RECORDS = Path(__file__).resolve().parents[1] / "fixtures" / "records"
GAMES = ("duel-defaults", "duel-no-entropy", "empire-engine", "empire-engine-idle", "empire-cards",
         "duel-expired")
Doc = dict[str, Any]


def load(name: str) -> Doc:
    return json.loads((RECORDS / f"{name}.json").read_text())  # type: ignore[no-any-return]


@cache
def rules_apply(name: str) -> bool:
    """Whether this checkout's engine is the one that played the fixture (same rules
    version): otherwise ``verify --rules`` says it does not apply, and the fixture wants
    capturing again (python -m tests.fixtures.records.capture tests/fixtures/records NAME)."""
    from shared.rules import registry

    doc = load(name)
    created = next(e for e in doc["record"] if e["type"] == "game_created")
    return bool(registry.get(doc["game"]).rules_version == created["rules_version"])


def load_receipts(name: str) -> dict[str, Any]:
    return json.loads((RECORDS / f"{name}.receipts.json").read_text())  # type: ignore[no-any-return]


@dataclass
class Case:
    """A tampered record; ``cls``: the problem class that must be reported; ``receipts``: the
    seat's receipts given to the verifier (None: without); ``issue``: the class of lie
    it stands for (None: a lie the old verifier already caught, kept as a regression)."""

    name: str
    game: str
    doc: Doc
    cls: str
    issue: str | None
    receipts: dict[str, Any] | None = None
    rules_only: bool = False  # only the engine replay (verify --rules) can see it


# -- helpers --------------------------------------------------------------------------------


def fix_ids(doc: Doc) -> None:
    """Keep the record's stream ids strictly increasing after entries moved (as a server that
    rewrote its stream would): an id not above the previous one becomes previous-ms-(n+1)."""
    prev: tuple[int, int] | None = None
    for e in doc["record"]:
        ms, n = (int(x) for x in e["id"].split("-"))
        if prev is not None and (ms, n) <= prev:
            ms, n = prev[0], prev[1] + 1
            e["id"] = f"{ms}-{n}"
        prev = (ms, n)


def entries(doc: Doc, t: str, **match: Any) -> list[dict[str, Any]]:
    return [e for e in doc["record"] if e["type"] == t
            and all(e.get(k) == v for k, v in match.items())]


def one(doc: Doc, t: str, **match: Any) -> dict[str, Any]:
    return entries(doc, t, **match)[0]


def index(doc: Doc, t: str, **match: Any) -> int:
    return next(i for i, e in enumerate(doc["record"]) if e["type"] == t
                and all(e.get(k) == v for k, v in match.items()))


def nonce_for(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


SERVER_KEY = "5e" * 32  # a session key the server made itself (its lobby registered it)


def resign(doc: Doc, entry: dict[str, Any]) -> None:
    """Sign a committed entry again with a key of the server's own: what a server that also
    runs the lobby (the key registry, which stays trusted) can do, and nobody else."""
    from shared.runtime.session_keys import SessionKey

    key = SessionKey.from_seed(SERVER_KEY)
    msg = signing.message(doc["game_id"], entry["seat"], entry["cmd_id"], "commit",
                          signing.commit_body(entry["round_id"], entry["slot"],
                                              entry["commitment"], entry["sealed_sha256"],
                                              entry["public"]))
    entry["key"], entry["sig"] = key.public, key.sign(msg)


BOT_KEY = "b0" * 32  # the session key of a bot that took over a seat


def hand_over(doc: Doc, after_seq: int, seat: int) -> None:
    """What a server that hands ``seat`` to a bot right after the move at ``after_seq``
    records (services/adjudicator/handover.py): a ``seat_handed_over`` entry taking the next
    seq, every later seq one higher (the log, the acts' expected seqs, the events), and the
    seat's later acts and commits signed by the bot's own session key."""
    from shared.runtime.session_keys import SessionKey

    bot = SessionKey.from_seed(BOT_KEY)
    new = after_seq + 1
    for x in doc["log"]:
        if x["seq"] < new:
            continue
        x["seq"] += 1
        if x.get("expected_seq") is not None and x["expected_seq"] >= new:
            x["expected_seq"] += 1
        m = x["move"]
        if m["kind"] == "act" and m["seat"] == seat and x.get("sig") is not None:
            msg = signing.message(doc["game_id"], seat, x["cmd_id"], "act",
                                  signing.act_body(m["action"], x.get("expected_seq")))
            x["key"], x["sig"] = bot.public, bot.sign(msg)
    rec = doc["record"]
    at = max(i for i, e in enumerate(rec) if e["type"] == "event" and e["seq"] <= after_seq) + 1
    player = doc["players"][seat]
    rec.insert(at, {"id": rec[at - 1]["id"], "type": "seat_handed_over", "seq": new,
                    "seat": seat, "reason": "resigned",
                    "from": {"player_id": player["player_id"], "name": player["name"]},
                    "to": {"player_id": "b-handed", "name": "bot", "bot": "heuristic"}})
    for e in rec[at + 1:]:
        if e["type"] == "event" and e["seq"] >= new:
            e["seq"] += 1
        elif e["type"] == "committed" and e["seat"] == seat and e.get("sig") is not None:
            msg = signing.message(doc["game_id"], seat, e["cmd_id"], "commit",
                                  signing.commit_body(e["round_id"], e["slot"],
                                                      e["commitment"], e["sealed_sha256"],
                                                      e["public"]))
            e["key"], e["sig"] = bot.public, bot.sign(msg)
    fix_ids(doc)


def rewrite_choice(doc: Doc, rid: str, slot: str, choice: Any) -> None:
    """The escrow swaps one committed choice and rewrites every public trace to agree: a new
    nonce and commitment, the published commitment (signed again with a session key the
    server registered for the seat itself), the round's root, the log's joint move."""
    gid = doc["game_id"]
    rev = one(doc, "round_revealed", round_id=rid)
    o = next(x for x in rev["openings"] if x["slot"] == slot)
    o["choice"], o["nonce"] = choice, nonce_for(f"{rid}/{slot}/{choice}")
    o["commitment"] = commitment(gid, rid, slot, o["seat"], choice, o["nonce"])
    entry = one(doc, "committed", round_id=rid, slot=slot)
    entry["commitment"] = o["commitment"]
    resign(doc, entry)
    pairs = [(c["slot"], c["commitment"]) for c in entries(doc, "committed", round_id=rid)]
    one(doc, "round_closed", round_id=rid)["root"] = commitments_root(sorted(pairs))
    for x in doc["log"] or []:
        if x["move"]["kind"] == "joint" and x["move"]["round_id"] == rid:
            x["move"]["choices"][slot] = choice


def redeal(doc: Doc, client_seeds: list[str]) -> None:
    """The dealer re-derives every draw under other client seeds, consistently everywhere."""
    rv = one(doc, "seed_revealed")
    rv["client_seeds"] = client_seeds
    key = game_key(bytes.fromhex(rv["server_seed"]), doc["game_id"], rv["rules_version"],
                   [bytes.fromhex(s) for s in client_seeds])
    values = {}
    for d in rv["draws"]:
        d["values"] = values[d["label"]] = draw(key, d["label"], d["draw"], d["n"], d["count"])
    for e in entries(doc, "draw"):
        if "values" in e:
            e["values"] = values[e["label"]]
    for x in doc["log"]:
        if x["move"]["kind"] == "chance_outcome":
            x["move"]["values"] = values[x["move"]["label"]]


# -- the lies -------------------------------------------------------------------------------


def _seat_committed(d: Doc) -> None:
    one(d, "committed", round_id="pick:1", slot="s0")["seat"] = 1


def _seat_opened(d: Doc) -> None:
    one(d, "round_opened", round_id="pick:2")["slots"][0]["seat"] = 1


def _seat_opening(d: Doc) -> None:
    # pick:2/s0 was defaulted: no commitment binds its seat, only the round's opening
    rev = one(d, "round_revealed", round_id="pick:2")
    next(o for o in rev["openings"] if o["slot"] == "s0")["seat"] = 1


def _seat_opened_and_opening(d: Doc) -> None:
    one(d, "round_opened", round_id="pick:2")["slots"][0]["seat"] = 1
    _seat_opening(d)


def _seed_after_entropy(d: Doc) -> None:
    rec = d["record"]
    seed = rec.pop(index(d, "seed_committed"))
    rec.insert(index(d, "round_revealed", round_id="entropy") + 1, seed)
    fix_ids(d)


def _entropy_without_round(d: Doc) -> None:
    redeal(d, [nonce_for("dealer-chosen-0"), nonce_for("dealer-chosen-1")])


def _log_missing(d: Doc) -> None:
    d["log"] = None


def _round_not_applied(d: Doc) -> None:
    """The joint move of pick:1 (and its events) dropped; later seqs renumbered."""
    log = d["log"]
    gone = next(i for i, x in enumerate(log) if x["move"]["kind"] == "joint")
    seq = log.pop(gone)["seq"]
    for x in log[gone:]:
        x["seq"] -= 1
    d["record"] = [e for e in d["record"] if not (e["type"] == "event" and e["seq"] == seq)]
    for e in d["record"]:
        if e["type"] == "event" and e["seq"] > seq:
            e["seq"] -= 1


def _committed_then_defaulted(d: Doc) -> None:
    """pick:2/s0 really ran into its deadline (its default and salt are genuine); the lie: a
    commitment of seat 0 stands in the record, yet the escrow applied the default."""
    rec = d["record"]
    at = index(d, "round_closed", round_id="pick:2")
    c = commitment(d["game_id"], "pick:2", "s0", 0, 7, nonce_for("seat-0-pick-2"))
    rec.insert(at, {"id": rec[at]["id"], "type": "committed", "round_id": "pick:2",
                    "slot": "s0", "seat": 0, "commitment": c, "public": None})
    fix_ids(d)


def _public_part(d: Doc) -> None:
    """Seat 0's first placement in plan:2: the engine shown to the next seat is not the one
    it chose (the commitment, reveal and root stay genuine)."""
    c = one(d, "committed", round_id="plan:2", slot="s0:1")
    engine = c["public"]["engine"]
    c["public"] = {**c["public"], "engine": "L" if engine != "L" else "R"}


def _timed_out_early(d: Doc) -> None:
    """The escrow times seat 0's slot out 1 ms after its turn began instead of after its own
    time (P-S1): the seats after it then commit against a default the seat never let happen."""
    i = index(d, "slot_timed_out", round_id="plan:1")
    ms = int(d["record"][i - 1]["id"].split("-")[0])
    d["record"][i]["id"] = f"{ms + 1}-0"
    fix_ids(d)


def _timed_out_public(d: Doc) -> None:
    """A timed-out slot shows the later seats an engine that is not its default's."""
    e = one(d, "slot_timed_out", round_id="plan:1")
    engine = e["public"]["engine"]
    e["public"] = {**e["public"], "engine": "L" if engine != "L" else "R"}


def _secret_published(d: Doc) -> None:
    e = next(x for x in entries(d, "draw") if x["secret"])
    e["values"] = next(x for x in one(d, "seed_revealed")["draws"]
                       if x["label"] == e["label"])["values"]


def _secret_unmarked(d: Doc) -> None:
    e = next(x for x in entries(d, "draw") if x["secret"])
    _secret_published(d)
    e["secret"] = False


def _choice_rewritten(d: Doc) -> None:
    rev = one(d, "round_revealed", round_id="pick:1")
    o = next(x for x in rev["openings"] if x["slot"] == "s0")
    rewrite_choice(d, "pick:1", "s0", (o["choice"] + 1) % 10)


def _expired_with_results(d: Doc) -> None:
    """An expired game that still places seats (and so would rate them)."""
    ended = one(d, "game_ended")
    ended["outcome"]["results"] = [{"seat": 0, "place": 1, "figures": {}},
                                   {"seat": 1, "place": 2, "figures": {}}]


def _late_reveal(d: Doc) -> None:
    """After an expired end, the open round's close and reveal appear (with seat 1's real
    commitment and seat 0 defaulted) though the escrow writes nothing after the end."""
    rec = d["record"]
    c = one(d, "committed", round_id="pick:2")
    rec.insert(len(rec) - 1, {"id": rec[-1]["id"], "type": "round_closed", "round_id": "pick:2",
                              "root": commitments_root([(c["slot"], c["commitment"])]),
                              "defaulted": ["s0"]})
    fix_ids(d)


# regressions the old verifier already caught


def _server_seed(d: Doc) -> None:
    sr = one(d, "seed_revealed")
    sr["server_seed"] = ("0" if sr["server_seed"][0] != "0" else "1") + sr["server_seed"][1:]


def _nonce(d: Doc) -> None:
    o = one(d, "round_revealed", round_id="pick:1")["openings"][0]
    o["nonce"] = ("1" if o["nonce"][0] == "0" else "0") + o["nonce"][1:]


def _applied_choice(d: Doc) -> None:
    j = next(x for x in d["log"] if x["move"]["kind"] == "joint")
    k = sorted(j["move"]["choices"])[0]
    j["move"]["choices"][k] = (j["move"]["choices"][k] + 1) % 10


def _commit_after_close(d: Doc) -> None:
    rec = d["record"]
    at = index(d, "round_closed", round_id="pick:1")
    late = one(d, "committed", round_id="pick:1", slot="s1")
    rec.insert(at + 1, {**late, "commitment": "e" * 64})
    fix_ids(d)


def _public_draw(d: Doc) -> None:
    e = next(x for x in entries(d, "draw") if "values" in x)
    e["values"] = [v + 1 for v in e["values"]]


def _first_act(d: Doc, seat: int | None = None) -> dict[str, Any]:
    return next(x for x in d["log"] if x["by"] == "seat" and seat in (None, x["seat"]))


def _act_signature_forged(d: Doc) -> None:
    """A seat's act the gateway's Redis user stamped: signed with a key the
    seat never held."""
    x = _first_act(d)
    x["sig"] = f"{int(x['sig'][0], 16) ^ 1:x}" + x["sig"][1:]


def _act_other_seat(d: Doc) -> None:
    """An act attributed to another seat than the one that signed it."""
    x = _first_act(d, 0)
    x["seat"] = x["move"]["seat"] = 1


def _act_unsigned(d: Doc) -> None:
    """A seat's act with no signature at all (a server-made move shown as the seat's)."""
    x = _first_act(d)
    for k in ("key", "sig"):
        del x[k]


def _commit_signatures_swapped(d: Doc) -> None:
    """Two seats' commitments showing each other's signatures."""
    a, b = entries(d, "committed", round_id="pick:1")[:2]
    a["key"], b["key"], a["sig"], b["sig"] = b["key"], a["key"], b["sig"], a["sig"]


def _commit_unsigned(d: Doc) -> None:
    """A commitment the escrow recorded without the seat's signature."""
    for k in ("cmd_id", "sealed_sha256", "key", "sig"):
        del one(d, "committed", round_id="pick:1", slot="s0")[k]


def _escrow_key_swapped(d: Doc) -> None:
    """One round's openings sealed to another key (one the escrow may not hold: a server
    that read them), its round_opened showing that key."""
    one(d, "round_opened", round_id="pick:1")["escrow_key"] = "ab" * 32


def _escrow_key_dropped(d: Doc) -> None:
    """One round published no escrow key, so its seats could not seal to the escrow's."""
    del one(d, "round_opened", round_id="pick:1")["escrow_key"]


def _handed_over_hides_a_move(d: Doc) -> None:
    """A hand-over entry naming the seq of a move that is in the log: the move log no longer
    holds every applied move in order."""
    hand_over(d, 8, 1)
    one(d, "seat_handed_over")["seq"] = 5


LIES: list[tuple[str, str, Callable[[Doc], None], str, str | None]] = [
    # name, game, tamper, class reported, class of lie
    ("seat of a published commitment", "duel-defaults", _seat_committed, "seat", "seat"),
    ("seat of a slot in round_opened", "duel-defaults", _seat_opened, "seat", "seat"),
    ("seat of a defaulted opening", "duel-defaults", _seat_opening, "seat", "seat"),
    ("seat of a slot and its opening", "duel-defaults", _seat_opened_and_opening, "seat",
     "seat"),
    ("seed committed after the entropy reveal", "duel-defaults", _seed_after_entropy, "seed",
     "seed-late"),
    ("client seeds without an entropy round", "duel-no-entropy", _entropy_without_round,
     "entropy", "entropy"),
    ("move log not public", "duel-defaults", _log_missing, "log", "log"),
    ("revealed round never applied", "duel-defaults", _round_not_applied, "applied",
     "applied"),
    ("committed slot shown as defaulted", "duel-defaults", _committed_then_defaulted,
     "default", "default"),
    ("public part is not the choice's", "empire-engine", _public_part, "public", "public"),
    ("slot timed out before its own time", "empire-engine-idle", _timed_out_early, "deadline",
     None),
    ("timed-out public part is not the default's", "empire-engine-idle", _timed_out_public,
     "public", None),
    ("secret draw's faces published", "empire-cards", _secret_published, "secret", "secret"),
    ("expired game with placings", "duel-expired", _expired_with_results, "record", None),
    ("escrow entries after an expired end", "duel-expired", _late_reveal, "order", None),
    ("server seed", "duel-defaults", _server_seed, "seed", None),
    ("nonce", "duel-defaults", _nonce, "commitment", None),
    ("applied choices", "duel-defaults", _applied_choice, "applied", None),
    ("commit after close", "duel-defaults", _commit_after_close, "round", None),
    ("public draw value", "duel-defaults", _public_draw, "draw", None),
    ("escrow key of one round", "duel-defaults", _escrow_key_swapped, "seal", None),
    ("escrow key missing in one round", "duel-defaults", _escrow_key_dropped, "seal", None),
    # no forged seats (class signature)
    ("forged signature on an act", "empire-cards", _act_signature_forged, "signature",
     "signature"),
    ("act attributed to another seat", "empire-cards", _act_other_seat, "signature",
     "signature"),
    ("act without a signature", "empire-cards", _act_unsigned, "signature", "signature"),
    ("commit signatures swapped between seats", "duel-defaults", _commit_signatures_swapped,
     "signature", "signature"),
    ("commit without a signature", "duel-defaults", _commit_unsigned, "signature",
     "signature"),
    ("a hand-over claiming a move's seq", "duel-defaults", _handed_over_hides_a_move, "log",
     None),
]


def cases() -> list[Case]:
    out = []
    for name, game, fn, cls, issue in LIES:
        d = copy.deepcopy(load(game))
        fn(d)
        out.append(Case(name, game, d, cls, issue))
    # one seat's choice rewritten with every public trace: only that seat's receipt shows it
    for game, rid, slot in (("duel-defaults", "pick:1", "s0"),
                            ("empire-engine", "plan:3", "s0:2")):
        d = copy.deepcopy(load(game))
        rev = one(d, "round_revealed", round_id=rid)
        old = next(o for o in rev["openings"] if o["slot"] == slot)["choice"]
        new: Any
        if isinstance(old, int):
            new = (old + 1) % 10
        else:
            new = {**old, "gear": 1 if old.get("gear") != 1 else 2}
        rewrite_choice(d, rid, slot, new)
        out.append(Case(f"choice rewritten everywhere ({game})", game, d, "receipt",
                        "receipt", receipts=load_receipts(game)))
    d = copy.deepcopy(load("empire-cards"))
    _secret_unmarked(d)
    out.append(Case("secret draw unmarked and published", "empire-cards", d, "rules",
                    "secret", rules_only=True))
    return out


def handed_over() -> Doc:
    """duel-defaults with seat 1 handed to a bot after the second round's picks (seq 8)."""
    d = copy.deepcopy(load("duel-defaults"))
    hand_over(d, 8, 1)
    return d


def honest() -> list[Case]:
    return [*(Case("honest", g, load(g), "", None, receipts=load_receipts(g)) for g in GAMES),
            Case("honest, a seat handed to a bot", "duel-defaults", handed_over(), "", None,
                 receipts=load_receipts("duel-defaults"))]
