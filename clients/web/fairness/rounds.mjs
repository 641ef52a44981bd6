// The sealed rounds' checks of the verifier (shared/fairness/verify.py): every round opened,
// committed, closed and revealed in order, each opening against its commitment, the joint
// choices the moves must apply, and the seats' entropy round. Methods of verify.mjs's
// Checker (its record, report and rounds), kept here as one subject.

import { canon, get, has, isObj, same } from "./bytes.mjs";
import { commitment, commitmentsRoot, defaultCommitment } from "./commitments.mjs";
import { DEADLINE_SLACK_MS, ENTROPY_ROUND, ROUND_TYPES, SLOT_KEY, eqList, kindOk, ms, short } from "./shapes.mjs";

export const ROUND_CHECKS = {
  sealedRounds() {
    const nSeats = this.doc.players.length;
    this.rec.forEach((e, i) => {
      const t = e.type;
      if (!ROUND_TYPES.includes(t)) return;
      const rid = e.round_id;
      const rd = this.rounds.get(rid);
      if (t === "round_opened") {
        if (rd !== undefined) { this.add("round", `round ${rid}`, "opened twice"); return; }
        this.rounds.set(rid, { rid, opened: i, spec: e, commits: [], closed: -1, close: {}, revealed: -1, reveal: {} });
        return;
      }
      if (rd === undefined) {
        this.add("round", `round ${rid}`, `${t} for a round that was never opened before it`);
        return;
      }
      if (t === "committed" || t === "slot_timed_out") {
        if (rd.closed >= 0) this.add("round", `${rid}/${e.slot} ${t}`, "after the round closed");
        rd.commits.push([i, e]);
      } else if (t === "round_closed") {
        if (rd.closed >= 0) { this.add("round", `round ${rid}`, "closed twice"); return; }
        rd.closed = i;
        rd.close = e;
      } else {
        if (rd.revealed >= 0) { this.add("round", `round ${rid}`, "revealed twice"); return; }
        if (rd.closed < 0) this.add("round", `round ${rid}`, "revealed before it closed");
        rd.revealed = i;
        rd.reveal = e;
      }
    });
    for (const rd of this.rounds.values()) this.oneRound(rd, nSeats);
  },

  oneRound(rd, nSeats) {
    const rid = rd.rid;
    const slots = new Map();
    const order = [];
    for (const s of rd.spec.slots) {
      const key = s.key;
      const seat = s.seat;
      const where = `${rid}/${key} round_opened`;
      if (slots.has(key)) { this.add("slot", where, "slot opened twice in the round"); continue; }
      slots.set(key, seat);
      order.push(key);
      const m = SLOT_KEY.exec(key);
      if (seat < 0 || seat >= nSeats) this.add("seat", where, `seat ${seat} is not a seat of this game`);
      else if (m === null || Number(m[1]) !== seat) {
        this.add("seat", where, `the slot is opened for seat ${seat}, but slot keys name their seat (s<seat>[:...])`);
      }
    }
    if (rid === ENTROPY_ROUND && (rd.spec.ordered || !eqList(order, Array.from({ length: nSeats }, (_, i) => `s${i}`)))) {
      this.add("entropy", "round entropy", "the entropy round must have one unordered slot per seat, s0, s1, ...");
    }
    const published = new Map();
    const pub = new Map();
    const timedOut = new Set();
    let slotMs = has(rd.spec, "slot_timeout_ms") ? rd.spec.slot_timeout_ms : null;
    if (slotMs !== null && (!Number.isInteger(slotMs) || slotMs < 1 || !rd.spec.ordered)) {
      this.add("shape", `round ${rid} round_opened`, "slot_timeout_ms must be an integer >= 1, in a fixed-order round only");
      slotMs = null;
    }
    let turnFrom = ms(rd.spec.id); // when the slot whose turn it is began its turn
    rd.commits.forEach(([, c], k) => {
      const key = c.slot;
      const where = `${rid}/${key} ${c.type}`;
      if (!slots.has(key)) { this.add("slot", where, "not a slot of the round"); return; }
      if (published.has(key) || timedOut.has(key)) { this.add("slot", where, "committed or timed out twice"); return; }
      if (c.seat !== slots.get(key)) {
        this.add("seat", where, `seat ${c.seat}, but the round opened the slot for seat ${slots.get(key)}`);
      }
      pub.set(key, c.public);
      const at = ms(c.id);
      if (c.type === "slot_timed_out") {
        timedOut.add(key);
        if (slotMs === null) this.add("deadline", where, "a slot timed out in a round without a time per slot");
        else if (at + DEADLINE_SLACK_MS < turnFrom + slotMs) {
          this.add("deadline", where, `timed out at ${at}, before its own time ran out at ${turnFrom + slotMs} (P-S1)`);
        }
      } else published.set(key, c.commitment);
      turnFrom = at;
      if (rd.spec.ordered) {
        if (k >= order.length || order[k] !== key) {
          const want = k < order.length ? order[k] : "none";
          this.add("ordered", where, `committed in place ${k + 1}, but the round's fixed order puts ${want} there`);
        }
      } else if (c.public !== null) {
        this.add("public", where, "a public part in a round without a fixed order");
      }
    });
    if (rd.closed < 0 || rd.revealed < 0) {
      if (!this.expired()) this.add("round", `round ${rid}`, "opened but never closed and revealed");
      return;
    }
    this.r.counts.rounds += 1;
    let where = `round ${rid} round_closed`;
    const without = order.filter((k) => !published.has(k));
    if (!eqList(rd.close.defaulted, without)) {
      this.add("default", where, `defaulted ${canon(rd.close.defaulted)}, but the slots without a published commitment are ${canon(without)}`);
    }
    if (commitmentsRoot([...published.entries()]) !== rd.close.root) {
      this.add("root", where, "the commitments root is not the root of the commitments published before the close");
    }
    // defaults before the round's deadline only when every defaulted slot timed out on its own
    // time (P-S1: a fixed-order round times each seat separately)
    const earlyOk = without.length > 0 && without.every((k) => timedOut.has(k));
    if (without.length && !earlyOk && ms(rd.close.id) + DEADLINE_SLACK_MS < rd.spec.deadline_ms) {
      this.add("deadline", where, `closed with defaults at ${ms(rd.close.id)}, before the deadline ${rd.spec.deadline_ms} fixed at open`);
    }
    const openings = rd.reveal.openings;
    if (!eqList(openings.map((o) => o.slot), order)) {
      this.add("slot", `round ${rid} round_revealed`, `openings for ${canon(openings.map((o) => o.slot))}, but the round opened ${canon(order)}`);
    }
    const defaults = new Map(rd.spec.slots.map((s) => [s.key, s.default_commitment]));
    const choices = new Map();
    const defaulted = [];
    for (const o of openings) {
      const key = o.slot;
      where = `${rid}/${key} opening`;
      if (!slots.has(key) || choices.has(key)) continue;
      choices.set(key, o.choice);
      if (o.seat !== slots.get(key)) {
        this.add("seat", where, `seat ${o.seat}, but the round opened the slot for seat ${slots.get(key)}`);
      }
      if (o.defaulted) defaulted.push(key);
      if (published.has(key)) {
        if (o.defaulted) {
          this.add("default", where, `shown as defaulted although its commitment ${short(published.get(key))} stands in the record (published before the close)`);
          continue;
        }
        this.r.counts.commitments += 1;
        const c = o.nonce !== null ? commitment(this.gid, rid, key, o.seat, o.choice, o.nonce) : null;
        if (c === null || c !== o.commitment) {
          this.add("commitment", where, "the revealed choice and nonce do not hash to the opening's commitment");
        }
        if (o.commitment !== published.get(key)) {
          this.add("commitment", where, `the opening's commitment ${short(o.commitment)} is not the one published before the close (${short(published.get(key))})`);
        }
        const shown = pub.get(key);
        if (shown !== null) {
          const ch = o.choice;
          const want = {};
          if (isObj(ch)) for (const k of Object.keys(shown)) want[k] = has(ch, k) ? ch[k] : null;
          if (!same(want, shown)) {
            this.add("public", `${rid}/${key} committed`, `the public part shown to later seats, ${canon(shown)}, is not the revealed choice's, ${canon(want)}`);
          }
        }
      } else if (!o.defaulted) {
        this.add("commitment", where, "revealed as a committed choice, but no commitment was published before the close");
      } else {
        const shownT = timedOut.has(key) ? pub.get(key) : null;
        if (shownT !== null) {
          const ch = o.choice;
          const want = {};
          if (isObj(ch)) for (const k of Object.keys(shownT)) want[k] = has(ch, k) ? ch[k] : null;
          if (!same(want, shownT)) {
            this.add("public", `${rid}/${key} slot_timed_out`, `the public part shown to later seats, ${canon(shownT)}, is not the default's, ${canon(want)}`);
          }
        }
        if (o.nonce !== null || o.commitment !== null) {
          this.add("default", where, "a defaulted opening carries a nonce or a commitment");
        }
        const salt = get(o, "default_salt", null);
        const dc = typeof salt === "string" ? defaultCommitment(this.gid, rid, key, o.choice, salt) : null;
        if (dc !== defaults.get(key)) this.add("default", where, "the default shown is not the one fixed at open");
      }
      if (rid === ENTROPY_ROUND && !kindOk("seed", o.choice)) {
        this.add("entropy", where, "a client seed must be 64 lowercase hex digits or empty");
      }
    }
    this.joint.set(rid, Object.fromEntries(choices));
    this.jointDefaulted.set(rid, defaulted);
  },

  entropy() {
    const seeds = this.revealed.client_seeds;
    const rd = this.rounds.get(ENTROPY_ROUND);
    const n = this.doc.players.length;
    if (!this.created.client_entropy) {
      if (rd !== undefined) this.add("entropy", "round entropy", "an entropy round in a game whose table has no client entropy");
      if (seeds.length) {
        this.add("entropy", "seed_revealed", "the game key uses client seeds, but the table had no entropy round (the dealer chose them)");
      }
      return;
    }
    if (rd === undefined || !this.joint.has(ENTROPY_ROUND)) {
      // ended by its lifetime before the round closed: nothing was drawn
      if (this.expired() && seeds.length === 0 && this.revealed.draws.length === 0) return;
      this.add("entropy", "round entropy", "the table has client entropy but the record has no revealed entropy round");
      return;
    }
    const ent = this.joint.get(ENTROPY_ROUND);
    const expected = Array.from({ length: n }, (_, i) => (has(ent, `s${i}`) ? ent[`s${i}`] : ""));
    if (!same(seeds, expected) && !(seeds.length === 0 && this.revealed.draws.length === 0)) {
      this.add("entropy", "seed_revealed", "the client seeds in the game key are not the entropy round's reveal");
    }
    const later = this.rec.findIndex((e, i) => i < rd.revealed && (["draw", "event"].includes(e.type)
      || (e.type === "round_opened" && e.round_id !== ENTROPY_ROUND)));
    if (later >= 0) {
      this.add("entropy", "round entropy", `play began (record[${later}] ${this.rec[later].type}) before the entropy round was revealed`);
    }
  },
};
