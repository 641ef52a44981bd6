// The verifier (shared/fairness/verify.py): a finished game's record and log checked class
// by class, with the same problem texts; the sealed rounds' checks are in rounds.mjs.

import { canon, get, has, isObj, same, unhex } from "./bytes.mjs";
import { actBody, commitBody, keysBySeat, signedMessage, verifySignature, wellFormed } from "./signatures.mjs";
import { commitment } from "./commitments.mjs";
import { SEED_SCHEME, draw, gameKey, seedCommitment } from "./draws.mjs";
import { AUDIT_VERSION, CLASSES, ENTROPY_ROUND, PLAY_TYPES, RECEIPT_SHAPE, ROUND_TYPES, Report, checkShapes, eqList, isInt, kindOk, shape, short, sid, sidLE } from "./shapes.mjs";
import { ROUND_CHECKS } from "./rounds.mjs";

class Checker {
  constructor(doc, report) {
    this.doc = doc;
    this.r = report;
    this.gid = doc.game_id;
    this.rec = doc.record;
    this.log = get(doc, "log", null);
    this.rounds = new Map();
    this.joint = new Map(); // rid -> {slot: revealed choice}
    this.jointDefaulted = new Map();
    this.dealt = new Map();
  }

  add(cls, where, text) { this.r.add(cls, where, text); }
  first(t) { return this.rec.findIndex((e) => e.type === t); }

  /** The game ended by its lifetime (outcome status "expired", nobody placed; or an admin ended
   * it: "aborted", likewise): a round or the
   * entropy round may have been open then; it stays open in the record (the escrow writes
   * nothing after game_ended) and is not applied. */
  expired() {
    const end = this.first("game_ended");
    const outcome = end >= 0 ? this.rec[end].outcome : null;
    return isObj(outcome) && ["expired", "aborted"].includes(get(outcome, "status", null));
  }

  run(receipts) {
    if (!this.structure()) return;
    this.seed();
    this.sealedRounds();
    this.escrowKey();
    this.entropy();
    this.draws();
    this.applied();
    this.signatures();
    if (has(this.doc, "audit")) this.bundle();
    if (receipts !== null && receipts !== undefined) this.receipts(receipts);
  }

  // an audit bundle (GET /api/matches/<id>/audit): the record document plus copies, which
  // must agree with the record (verify.py: _Checker.bundle)
  bundle() {
    const doc = this.doc;
    if (!same(doc.audit, AUDIT_VERSION)) {
      this.add("shape", "document", `audit bundle version ${canon(doc.audit)}, this verifier reads version ${AUDIT_VERSION}`);
      return;
    }
    if (!same(get(doc, "signatures", undefined), keysBySeat(this.rec, this.log))) {
      this.add("signature", "document", "the bundle's signatures (the session keys per seat) are not the keys the record's signed commands use");
    }
    if (get(doc, "escrow_key", undefined) !== this.key) {
      this.add("seal", "document", `the bundle's escrow key ${short(get(doc, "escrow_key", undefined))} is not the one the record's rounds publish (${short(this.key)})`);
    }
    if (!same(get(doc, "options", undefined), this.created.options)) {
      this.add("record", "document", "the bundle's options are not game_created's");
    }
    if (!same(get(doc, "rules_version", undefined), this.created.rules_version)) {
      this.add("record", "document", "the bundle's rules version is not game_created's");
    }
    const reveals = this.rec.filter((e) => e.type === "round_revealed" || e.type === "seed_revealed");
    if (!same(get(doc, "reveals", undefined), reveals)) {
      this.add("record", "document", "the bundle's reveals are not the record's reveal entries");
    }
  }

  structure() {
    const { doc, rec } = this;
    if (doc.ended !== true) {
      this.add("record", "document", "the game has not ended: nothing can be verified before the dealer's reveal and the public move log");
    }
    if (this.log === null) {
      this.add("log", "document", "the move log is not public: nothing the server applied can be checked (it must be published once the game has ended)");
    }
    let complete = true;
    for (const t of ["game_created", "seed_committed", "game_ended", "seed_revealed"]) {
      const n = rec.filter((e) => e.type === t).length;
      if (n !== 1) {
        this.add("record", t, `${n} entries of this type, the record needs exactly one`);
        complete = false;
      }
    }
    if (!complete) return false;
    let prev = null;
    rec.forEach((e, i) => {
      const cur = sid(e.id);
      if (prev !== null && sidLE(cur, prev)) {
        this.add("order", `record[${i}] ${e.type}`, `stream id ${e.id} does not follow the previous entry's`);
      }
      prev = cur;
    });
    this.created = rec[this.first("game_created")];
    this.revealed = rec[this.first("seed_revealed")];
    if (this.first("game_created") !== 0) {
      this.add("order", "game_created", "the record does not begin with the game's creation");
    }
    if (this.created.game !== doc.game) {
      this.add("record", "game_created", `game ${this.created.game} differs from the document's ${doc.game}`);
    }
    if (!same(this.created.players, doc.players)) {
      this.add("record", "game_created", "players differ from the document's players");
    }
    if (this.revealed.rules_version !== this.created.rules_version) {
      this.add("seed", "seed_revealed", "rules version differs between creation and reveal");
    }
    const end = this.first("game_ended");
    rec.forEach((e, i) => { // (a round open at the end stays open in the record)
      if (i > end && e.type !== "seed_revealed") this.add("order", `record[${i}] ${e.type}`, "after the end of the game");
    });
    if (this.expired() && !same(get(rec[end].outcome, "results", undefined), [])) {
      this.add("record", "game_ended", "an expired game places nobody, but its outcome has results");
    }
    if (this.first("seed_revealed") < end) {
      this.add("secret", "seed_revealed", "the dealer revealed its seed and draws before the game ended");
    }
    return true;
  }

  seed() {
    const at = this.first("seed_committed");
    const entry = this.rec[at];
    const seed = unhex(this.revealed.server_seed);
    if (seedCommitment(this.gid, seed) !== entry.commitment) {
      this.add("seed", "seed_committed", "the revealed server seed does not match its commitment");
    }
    if (entry.scheme !== SEED_SCHEME) this.add("seed", "seed_committed", `unknown scheme ${entry.scheme}`);
    const before = this.rec.slice(0, at).findIndex((e) => PLAY_TYPES.includes(e.type));
    if (before >= 0) {
      const e = this.rec[before];
      const what = has(e, "round_id") ? e.round_id : has(e, "label") ? e.label : has(e, "seq") ? e.seq : "";
      this.add("seed", "seed_committed", `published after record[${before}] (${e.type} ${what}): the dealer could choose its seed after seeing play or the seats' entropy`);
    }
  }

  // the escrow key: every round's openings were sealed to the same one (verify.py: escrow_key)
  escrowKey() {
    const opened = this.rec.filter((e) => e.type === "round_opened");
    const first = opened.find((e) => has(e, "escrow_key"));
    this.key = first === undefined ? null : first.escrow_key;
    if (this.key === null) return; // a game of protocol v1: its openings were not sealed
    for (const e of opened) {
      const k = get(e, "escrow_key", null);
      if (k === null) {
        this.add("seal", `round ${e.round_id} round_opened`, "publishes no escrow key, though the game's other rounds do");
      } else if (k !== this.key) {
        this.add("seal", `round ${e.round_id} round_opened`, `escrow key ${short(k)} is not the game's (${short(this.key)}): its openings were sealed to another key`);
      }
    }
  }
  draws() {
    const rv = this.revealed;
    const key = gameKey(unhex(rv.server_seed), this.gid, rv.rules_version, rv.client_seeds.map(unhex));
    for (const d of rv.draws) {
      const where = `draw ${d.label}`;
      const values = draw(key, d.label, d.draw, d.n, d.count);
      this.r.counts.draws += 1;
      if (!same(values, d.values)) this.add("draw", where, `recomputed ${canon(values)} != dealt ${canon(d.values)}`);
      if (this.dealt.has(d.label)) { this.add("draw", where, "the dealer dealt this label twice"); continue; }
      this.dealt.set(d.label, d);
    }
    const dealerOrder = rv.draws.map((d) => d.label);
    const recordOrder = this.rec.filter((e) => e.type === "draw").map((e) => e.label);
    if (!eqList(dealerOrder.slice(0, recordOrder.length), recordOrder)) {
      this.add("draw", "record", "the record's draws are not the dealer's draws in the dealer's order");
    }
    const seen = new Set();
    for (const e of this.rec) {
      if (e.type !== "draw") continue;
      const where = `draw ${e.label}`;
      if (seen.has(e.label)) this.add("draw", where, "in the record twice");
      seen.add(e.label);
      const d = this.dealt.get(e.label);
      if (d === undefined) { this.add("draw", where, "missing from the dealer's reveal"); continue; }
      if (e.draw !== d.draw || e.n !== d.n || e.count !== d.count) {
        this.add("draw", where, "the public request differs from the dealer's");
      }
      if (e.secret) {
        if (has(e, "values")) this.add("secret", where, "the faces of a secret draw were published during play");
      } else if (!has(e, "values")) this.add("draw", where, "a public draw without its values");
      else if (!same(e.values, d.values)) this.add("draw", where, "public values differ from the dealer's");
    }
  }

  // signed commands (verify.py: _Checker.signatures): every seat's act in the log and every
  // commitment in the record carries its session key's signature, no key signs for two seats
  signatures() {
    this.keys = new Map(); // session key -> the seat it signs for
    this.shared = new Set(); // keys found signing for two seats
    const signed = []; // [where, key, sig, message or null]
    for (const x of this.log || []) {
      if (x.by !== "seat" || x.move.kind !== "act") continue;
      const m = x.move;
      const where = `log seq ${x.seq}`;
      const seq = get(x, "expected_seq", null);
      let msg = null;
      if (typeof get(x, "cmd_id", null) === "string" && (seq === null || isInt(seq))) {
        msg = signedMessage(this.gid, m.seat, x.cmd_id, "act", actBody(m.action, seq));
      }
      signed.push([where, get(x, "key", null), get(x, "sig", null), msg]);
      this.seatKey(where, m.seat, get(x, "key", null));
    }
    for (const e of this.rec) {
      if (e.type !== "committed") continue;
      const where = `round ${e.round_id} slot ${e.slot} committed`;
      let msg = null;
      if (typeof get(e, "cmd_id", null) === "string" && kindOk("hex64", get(e, "sealed_sha256", null))) {
        msg = signedMessage(this.gid, e.seat, e.cmd_id, "commit",
          commitBody(e.round_id, e.slot, e.commitment, e.sealed_sha256, e.public));
      }
      signed.push([where, get(e, "key", null), get(e, "sig", null), msg]);
      this.seatKey(where, e.seat, get(e, "key", null));
    }
    // a game recorded before signed commands: who acted is the server's word
    if (signed.every(([, key, sig]) => key === null && sig === null)) return;
    for (const [where, key, sig, msg] of signed) {
      if (!wellFormed(key, sig) || msg === null) {
        this.add("signature", where, "a seat's command without its session key's signature (key, sig, cmd_id and the signed fields)");
      } else if (!verifySignature(key, sig, msg)) {
        this.add("signature", where, `the signature does not verify under key ${short(key)} for this game, seat, command and body`);
      } else {
        this.r.counts.signatures += 1;
      }
    }
  }

  seatKey(where, seat, key) {
    if (typeof key !== "string") return;
    if (!this.keys.has(key)) this.keys.set(key, seat);
    const first = this.keys.get(key);
    if (first !== seat && !this.shared.has(key)) this.shared.add(key);
    else return;
    this.add("signature", where, `key ${short(key)} signs for seat ${seat} and for seat ${first}: a session key is one player's`);
  }

  applied() {
    if (this.log === null) return;
    let want = this.created.client_entropy ? 2 : 1;
    // a seat handed to a bot takes a seq of its own, with no move (seat_handed_over)
    const skips = this.rec.filter((e) => e.type === "seat_handed_over").map((e) => e.seq).sort((a, b) => a - b);
    const moveAt = new Map();
    this.log.forEach((x, i) => {
      want += 1;
      while (skips.length && skips[0] <= want) { skips.shift(); want += 1; }
      if (x.seq !== want) this.add("log", `log[${i}]`, `seq ${x.seq}, expected ${want} (the log must hold every applied move, in order)`);
      const m = x.move;
      let ok;
      if (m.kind === "act") ok = ["seat", "timeout"].includes(x.by) && isInt(get(x, "seat", null)) && x.seat === m.seat;
      else if (m.kind === "joint") ok = x.by === "escrow" && typeof get(x, "round_id", null) === "string" && x.round_id === m.round_id;
      else ok = x.by === "dealer" && typeof get(x, "label", null) === "string" && x.label === m.label;
      if (!ok) this.add("log", `log seq ${x.seq}`, "the move's origin does not match it");
      if (!moveAt.has(x.seq)) moveAt.set(x.seq, m);
    });
    const step = (k, n) => JSON.stringify([k, n]);
    const recSteps = this.rec.filter((e) => (e.type === "round_revealed" && e.round_id !== ENTROPY_ROUND) || e.type === "draw")
      .map((e) => (e.type === "round_revealed" ? ["joint", e.round_id] : ["chance", e.label]));
    const logSteps = [];
    for (const x of this.log) {
      if (x.move.kind === "joint") logSteps.push(["joint", x.move.round_id, x.seq]);
      else if (x.move.kind === "chance_outcome") logSteps.push(["chance", x.move.label, x.seq]);
    }
    const appliedN = new Map();
    for (const [k, n] of logSteps) appliedN.set(step(k, n), (appliedN.get(step(k, n)) || 0) + 1);
    const inRecord = new Set(recSteps.map(([k, n]) => step(k, n)));
    for (const [kind, name] of recSteps) {
      const n = appliedN.get(step(kind, name)) || 0;
      const what = kind === "joint" ? `round ${name}` : `draw ${name}`;
      if (n === 0) {
        this.add("applied", what, kind === "joint" ? "revealed but never applied (no joint move in the log)" : "in the record but never applied");
      } else if (n > 1) this.add("applied", what, `applied ${n} times`);
    }
    for (const [kind, name, seq] of logSteps) {
      if (!inRecord.has(step(kind, name))) {
        this.add("applied", `log seq ${seq}`, kind === "joint" ? `applies round ${name}, which was never revealed`
          : `applies draw ${name}, which is not in the record`);
      }
    }
    const a = logSteps.map(([k, n]) => step(k, n));
    const b = recSteps.map(([k, n]) => step(k, n));
    if (!eqList(a, b) && eqList([...a].sort(), [...b].sort())) {
      this.add("applied", "log", "the log applies the revealed rounds and draws in another order than the record's");
    }
    for (const x of this.log) {
      const m = x.move;
      const where = `log seq ${x.seq}`;
      if (m.kind === "joint") {
        this.r.counts.applied += 1;
        const rid = m.round_id;
        if (this.joint.has(rid)) {
          if (!same(m.choices, this.joint.get(rid))) this.add("applied", where, `the choices applied for ${rid} are not the revealed ones`);
          if (!eqList(m.defaulted, this.jointDefaulted.get(rid))) this.add("applied", where, `the defaulted slots applied for ${rid} are not the revealed ones`);
        }
      } else if (m.kind === "chance_outcome") {
        this.r.counts.applied += 1;
        const d = this.dealt.get(m.label);
        if (d !== undefined && !same(m.values, d.values)) this.add("applied", where, `the outcome applied for ${m.label} is not the dealer's`);
      }
    }
    this.eventOrder(moveAt);
  }

  eventOrder(moveAt) {
    const roundsAt = new Map();
    const drawsAt = new Map();
    for (const x of this.log || []) {
      const m = x.move;
      if (m.kind === "joint") { if (!roundsAt.has(m.round_id)) roundsAt.set(m.round_id, x.seq); }
      else if (m.kind === "chance_outcome") { if (!drawsAt.has(m.label)) drawsAt.set(m.label, x.seq); }
    }
    const lastSeq = this.log && this.log.length ? this.log[this.log.length - 1].seq : null;
    const expired = this.expired();
    let last = [-1, 0];
    const lt = (p, q) => p[0] < q[0] || (p[0] === q[0] && p[1] < q[1]);
    this.rec.forEach((e, i) => {
      const t = e.type;
      let pos;
      if (t === "event") {
        if (!moveAt.has(e.seq)) { this.add("order", `record[${i}] event`, `seq ${e.seq} is not a move of the log`); return; }
        pos = [e.seq, 1];
      } else if (t === "draw" && drawsAt.has(e.label)) pos = [drawsAt.get(e.label), 0];
      else if (ROUND_TYPES.includes(t) && roundsAt.has(e.round_id)) {
        const seq = roundsAt.get(e.round_id);
        pos = t === "round_revealed" ? [seq, 0] : [seq - 1, 2];
      } else if (["round_opened", "committed", "slot_timed_out"].includes(t) && lastSeq !== null && expired && e.round_id !== ENTROPY_ROUND) {
        pos = [lastSeq, 2]; // the round still open at the end: after the last move
      } else if (t === "game_ended" && lastSeq !== null) pos = [lastSeq, 3];
      else return;
      if (lt(pos, last)) {
        this.add("order", `record[${i}] ${t}`, `belongs to step ${pos[0]} but follows an entry of step ${last[0]}: the record is not in the order of the moves`);
      }
      if (lt(last, pos)) last = pos;
    });
  }

  receipts(data) {
    const items = isObj(data) ? get(data, "receipts", null) : data;
    if (!Array.isArray(items)) { this.add("receipt", "receipts", "not a list of receipts"); return; }
    if (isObj(data) && get(data, "game_id", this.gid) !== this.gid) {
      this.add("receipt", "receipts", `receipts of game ${data.game_id}, not of this one`);
      return;
    }
    const seat = isObj(data) ? get(data, "seat", null) : null;
    items.forEach((x, j) => {
      const rr = new Report();
      if (!shape(rr, x, RECEIPT_SHAPE, `receipts[${j}]`)) {
        for (const p of rr.problems) this.add("receipt", p.where, p.text);
        return;
      }
      const rid = x.round_id;
      const key = x.slot;
      const where = `${rid}/${key} receipt`;
      this.r.counts.receipts += 1;
      const rd = this.rounds.get(rid);
      const spec = rd !== undefined ? rd.spec.slots.find((s) => s.key === key) : undefined;
      if (rd === undefined || spec === undefined) { this.add("receipt", where, "the record has no such round and slot"); return; }
      const mine = isInt(seat) ? seat : spec.seat;
      const sealedTo = get(x, "escrow_key", null) ?? null;
      if (sealedTo !== null && sealedTo !== get(rd.spec, "escrow_key", null)) {
        this.add("seal", where, `my opening was sealed to ${short(sealedTo)}, not to the escrow key the record publishes for the round (${short(get(rd.spec, "escrow_key", null))}): the key I was shown was substituted`);
      }
      if (spec.seat !== mine) this.add("receipt", where, `the record opens my slot for seat ${spec.seat}, not mine (${mine})`);
      if (commitment(this.gid, rid, key, mine, x.choice, x.nonce) !== x.commitment) {
        this.add("receipt", where, "the receipt does not hash to its own commitment (not a receipt of this game, seat and slot)");
        return;
      }
      const pubd = rd.commits.map(([, c]) => c).find((c) => c.slot === key);
      if (pubd === undefined || pubd.commitment !== x.commitment) {
        this.add("receipt", where, `my commitment ${short(x.commitment)} is not the one published for my slot (${pubd ? short(pubd.commitment) : "none"})`);
      }
      if (rd.revealed < 0 && this.expired()) return; // open when the game ended by its lifetime
      const o = (get(rd.reveal, "openings", []) || []).find((y) => y.slot === key);
      if (o === undefined || o.defaulted || !same(o.choice, x.choice) || o.nonce !== x.nonce || o.commitment !== x.commitment) {
        const shown = o !== undefined ? canon(o.choice) : "nothing";
        this.add("receipt", where, `my choice ${canon(x.choice)} was revealed as ${shown}` + (o !== undefined && o.defaulted ? " (defaulted)" : ""));
      }
      if (rid === ENTROPY_ROUND) {
        const seeds = this.revealed.client_seeds;
        if (isInt(mine) && (mine < 0 || mine >= seeds.length || seeds[mine] !== x.choice) && this.revealed.draws.length) {
          this.add("receipt", where, "my client seed is not the one in the game key");
        }
        return;
      }
      if (this.log !== null) {
        const applied = this.log.map((m) => m.move).filter((m) => m.kind === "joint" && m.round_id === rid);
        if (!applied.length || !has(applied[0].choices, key) || !same(applied[0].choices[key], x.choice)) {
          this.add("receipt", where, "my choice is not the one the log applied");
        }
      }
    });
  }
}
Object.assign(Checker.prototype, ROUND_CHECKS);

/** Verify a finished game from its public record and log (GET /api/matches/<id>/record),
 * optionally with a seat's receipts ({game_id, seat, receipts: [{round_id, slot, choice,
 * nonce, commitment}]}). Returns {ok, problems (texts as verify.py prints them), issues
 * ({cls, where, text}), counts, checks (one row per class for the page)}. */
export function verifyRecord(doc, { receipts = null } = {}) {
  const r = new Report();
  try {
    if (checkShapes(r, doc)) new Checker(doc, r).run(receipts);
  } catch (exc) {
    r.add("shape", "document", "cannot be verified: " + (exc && exc.message ? exc.message : String(exc)));
  }
  const checks = Object.entries(CLASSES).map(([cls, label]) => {
    const bad = r.problems.filter((p) => p.cls === cls);
    return { kind: cls, label, ok: bad.length === 0, detail: bad.length ? `${bad.length} problem(s)` : "" };
  });
  return {
    ok: r.problems.length === 0,
    problems: r.problems.map((p) => `${p.cls}: ${p.where}: ${p.text}`),
    issues: r.problems,
    counts: r.counts,
    checks,
  };
}
