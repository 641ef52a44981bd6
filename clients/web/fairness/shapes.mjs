// The verifier's reading of its input (shared/fairness/verify.py): the problem classes, the
// report they are gathered in, and the shapes a record document, its entries, its move log
// and a seat's receipts must have before anything in them is checked.

import { canon, get, has, isObj } from "./bytes.mjs";

export const ENTROPY_ROUND = "entropy";
export const DEADLINE_SLACK_MS = 1000;

export const CLASSES = {
  shape: "a field is missing or of the wrong type",
  record: "an entry the verification needs is missing or repeated, or the game is not over",
  order: "entries are out of order (stream ids, events, the end)",
  seed: "the dealer's seed commitment (match, scheme, published before anything else)",
  entropy: "the client seeds in the game key versus the entropy round",
  draw: "a draw does not recompute, is repeated or is not the dealer's",
  secret: "something secret was published during play",
  round: "a sealed round's life: opened, commits, closed, revealed, once each, in order",
  slot: "a slot that was not opened, or opened, committed or revealed twice",
  seat: "the seat of a slot, a commitment or an opening differs from the round's",
  commitment: "an opening does not match the commitment published before the close",
  root: "the commitments root is not the published commitments'",
  default: "a default that is not the one fixed at open, or shown for a committed slot",
  deadline: "a round closed with defaults before its deadline",
  public: "a public part shown to later seats is not the seat's revealed choice's",
  ordered: "a fixed-order round's commits are out of its order",
  log: "the move log is missing or its seqs or origins are wrong",
  applied: "the log does not apply exactly the revealed rounds and the dealer's draws",
  receipt: "a seat's own receipt disagrees with the record",
  seal: "the escrow key openings were sealed to differs between rounds, the bundle or a seat's receipt (a substituted key)",
  signature: "a seat's act or commitment is not signed by that seat's session key, or a key signs for two seats",
};

export const isInt = (v) => Number.isSafeInteger(v);
export const AUDIT_VERSION = 1; // the audit bundle's format (GET /api/matches/<id>/audit)
const HEX64 = /^[0-9a-f]{64}$/;
const HEX = /^(?:[0-9a-f]{2})*$/;
const STREAM_ID = /^(0|[1-9][0-9]*)-(0|[1-9][0-9]*)$/;
export const SLOT_KEY = /^s(0|[1-9][0-9]*)(?::[\s\S]*)?$/;
const isHex64 = (v) => typeof v === "string" && HEX64.test(v);

export function kindOk(kind, v) {
  switch (kind) {
    case "str": return typeof v === "string";
    case "int": return isInt(v);
    case "pos": return isInt(v) && v >= 1;
    case "bool": return typeof v === "boolean";
    case "hex64": return isHex64(v);
    case "hex64|null": return v === null || isHex64(v);
    case "hex|null": return v === null || (typeof v === "string" && HEX.test(v));
    case "seed": return typeof v === "string" && (v === "" || HEX64.test(v));
    case "list": return Array.isArray(v);
    case "dict": return isObj(v);
    case "dict|null": return v === null || isObj(v);
    case "strlist": return Array.isArray(v) && v.every((x) => typeof x === "string");
    case "intlist": return Array.isArray(v) && v.every(isInt);
    case "seedlist": return Array.isArray(v) && v.every((x) => kindOk("seed", x));
    case "drawkind": return ["shuffle", "below", "dice"].includes(v);
    case "movekind": return ["act", "joint", "chance_outcome"].includes(v);
    case "json": return canon(v) !== "?";
    default: throw new Error(kind);
  }
}

const KIND_TEXT = {
  str: "a string", int: "an integer", pos: "an integer >= 1", bool: "true or false",
  hex64: "64 lowercase hex digits", "hex64|null": "64 lowercase hex digits or null",
  "hex|null": "lowercase hex or null", seed: "64 lowercase hex digits or empty",
  list: "a list", dict: "an object", "dict|null": "an object or null",
  strlist: "a list of strings", intlist: "a list of integers",
  seedlist: "a list of client seeds (64 lowercase hex digits or empty)",
  drawkind: "shuffle, below or dice", movekind: "act, joint or chance_outcome",
  json: "a JSON value of integers, strings, booleans, null, lists and objects",
};

const DOC_SHAPE = { game_id: "str", game: "str", players: "list", ended: "bool", record: "list" };
const ENTRY_SHAPES = {
  game_created: { game: "str", options: "dict", rules_version: "str", players: "list", client_entropy: "bool" },
  seed_committed: { commitment: "hex64", scheme: "str" },
  round_opened: { round_id: "str", ordered: "bool", deadline_ms: "int", slots: "list" },
  committed: { round_id: "str", slot: "str", seat: "int", commitment: "hex64", public: "dict|null" },
  // a fixed-order round's seat that let its own time pass (P-S1): its default stands
  slot_timed_out: { round_id: "str", slot: "str", seat: "int", public: "dict|null" },
  round_closed: { round_id: "str", root: "hex64", defaulted: "strlist" },
  round_revealed: { round_id: "str", openings: "list" },
  draw: { label: "str", draw: "drawkind", n: "pos", count: "pos", secret: "bool" },
  event: { seq: "int", event: "str", data: "json" },
  game_ended: { outcome: "dict" },
  // a seat handed to a bot for the rest of the game (resigned, or on_expiry "bot")
  seat_handed_over: { seq: "int", seat: "int", reason: "str", from: "dict", to: "dict" },
  seed_revealed: { server_seed: "hex64", rules_version: "str", client_seeds: "seedlist", draws: "list" },
};
const SLOT_SHAPE = { seat: "int", key: "str", default_commitment: "hex64" };
const OPENING_SHAPE = { slot: "str", seat: "int", choice: "json", nonce: "hex64|null", commitment: "hex64|null", defaulted: "bool" };
const DEALT_SHAPE = { label: "str", draw: "drawkind", n: "pos", count: "pos", values: "intlist" };
const LOG_SHAPE = { seq: "int", move: "dict", by: "str" };
const MOVE_SHAPES = {
  act: { seat: "int", action: "json" },
  joint: { round_id: "str", choices: "dict", defaulted: "strlist" },
  chance_outcome: { label: "str", values: "intlist" },
};
export const RECEIPT_SHAPE = { round_id: "str", slot: "str", choice: "json", nonce: "hex64", commitment: "hex64" };

export const PLAY_TYPES = ["round_opened", "committed", "slot_timed_out", "round_closed", "round_revealed", "draw", "event", "game_ended"];
export const ROUND_TYPES = ["round_opened", "committed", "slot_timed_out", "round_closed", "round_revealed"];
export const eqList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
export const short = (c) => (typeof c === "string" ? c.slice(0, 16) : "none");
export const ms = (id) => Number(id.split("-")[0]);
export const sid = (id) => id.split("-").map(Number);
export const sidLE = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]);

export class Report {
  constructor() {
    this.problems = []; // {cls, where, text}
    this.counts = { draws: 0, commitments: 0, rounds: 0, applied: 0, receipts: 0, signatures: 0 };
  }
  add(cls, where, text) { this.problems.push({ cls, where, text }); }
}

export function shape(r, obj, spec, where) {
  if (!isObj(obj)) {
    r.add("shape", where, "not an object");
    return false;
  }
  let ok = true;
  for (const [name, kind] of Object.entries(spec)) {
    if (!has(obj, name)) {
      r.add("shape", where, `field ${name} is missing`);
      ok = false;
    } else if (!kindOk(kind, obj[name])) {
      r.add("shape", where, `field ${name} must be ${KIND_TEXT[kind]}`);
      ok = false;
    }
  }
  return ok;
}

const MAX_DRAW = 1 << 16; // a larger shuffle or count is refused, not recomputed

function drawSize(r, d, where) {
  if (d.count > MAX_DRAW || (d.draw === "shuffle" && d.n > MAX_DRAW)) {
    r.add("shape", where, `a draw larger than ${MAX_DRAW} is not recomputed`);
    return false;
  }
  return true;
}

export function checkShapes(r, doc) {
  if (!shape(r, doc, DOC_SHAPE, "document")) return false;
  let ok = true;
  doc.record.forEach((e, i) => {
    let where = `record[${i}]`;
    if (!isObj(e) || !has(ENTRY_SHAPES, e.type) || typeof e.type !== "string") {
      r.add("shape", where, "not an entry of a known type");
      ok = false;
      return;
    }
    const t = e.type;
    where = `record[${i}] ${t}`;
    if (typeof e.id !== "string" || !STREAM_ID.test(e.id)) {
      r.add("shape", where, "field id must be a stream id <ms>-<n>");
      ok = false;
    }
    ok = shape(r, e, ENTRY_SHAPES[t], where) && ok;
    if (t === "round_opened" && has(e, "escrow_key") && !kindOk("hex64", e.escrow_key)) {
      r.add("shape", where, `field escrow_key must be ${KIND_TEXT.hex64}`);
      ok = false;
    }
    if (t === "round_opened" && Array.isArray(e.slots)) {
      e.slots.forEach((s, j) => { ok = shape(r, s, SLOT_SHAPE, `${where} slots[${j}]`) && ok; });
    } else if (t === "round_revealed" && Array.isArray(e.openings)) {
      e.openings.forEach((o, j) => {
        ok = shape(r, o, OPENING_SHAPE, `${where} openings[${j}]`) && ok;
        if (isObj(o) && !kindOk("hex|null", get(o, "default_salt", null))) {
          r.add("shape", `${where} openings[${j}]`, `field default_salt must be ${KIND_TEXT["hex|null"]}`);
          ok = false;
        }
      });
    } else if (t === "seed_revealed" && Array.isArray(e.draws)) {
      e.draws.forEach((d, j) => {
        const good = shape(r, d, DEALT_SHAPE, `${where} draws[${j}]`);
        ok = good && drawSize(r, d, `${where} draws[${j}]`) && ok;
      });
    } else if (t === "draw" && has(e, "values") && !kindOk("intlist", e.values)) {
      r.add("shape", where, `field values must be ${KIND_TEXT.intlist}`);
      ok = false;
    }
  });
  const log = get(doc, "log", null);
  if (log !== null && !Array.isArray(log)) {
    r.add("shape", "document", "field log must be a list or null");
    return false;
  }
  (log || []).forEach((x, i) => {
    const where = `log[${i}]`;
    if (!shape(r, x, LOG_SHAPE, where)) { ok = false; return; }
    const move = x.move;
    if (!kindOk("movekind", get(move, "kind", null))) {
      r.add("shape", where, `field move.kind must be ${KIND_TEXT.movekind}`);
      ok = false;
      return;
    }
    ok = shape(r, move, MOVE_SHAPES[move.kind], `${where} move`) && ok;
  });
  return ok;
}
