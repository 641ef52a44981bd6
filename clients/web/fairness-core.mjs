// Empire Hall's fairness in JavaScript: ONE file for the browser (served as
// /static/fairness-core.mjs, imported by fairness.js, verify.js and replay.js) and for Node
// (clients/js/empire-client.mjs imports it by relative path). No platform crypto: a small
// synchronous SHA-256 / HMAC-SHA256, so it runs the same everywhere, also on a page that is not
// a secure context (plain http on a LAN address has no crypto.subtle); one dependency, the
// vendored @noble/curves, for the Ed25519 signatures of seats' commands (class signature).
//
// The twin of shared/fairness (lp.py, commitments.py, draws.py, verify.py), byte for byte and
// problem text for problem text; tests/fixtures/fairness-vectors.json holds the vectors that
// Python, Node and the browser all check, and tests/support/tamper.py the lies all three must
// report alike.
//   LP(x)        = u32be(len(x)) | x
//   canonical    = JSON, keys sorted by code point, no spaces, UTF-8, integers only
//   commitment   = SHA-256(LP("empire-hall/escrow/v1") | LP(game) | LP(round/slot) | LP(seat)
//                          | LP(canonical JSON of the choice) | LP(32-byte nonce))
//   seed         = SHA-256(LP("empire-hall/dealer/seed/v1") | LP(game) | server_seed)
//   game key     = HMAC-SHA256(server_seed, LP("game-key/v1") | LP(game) | LP(rules) | LP(seeds)...)
//   label stream = HMAC-SHA256(game_key, LP(label) | u32be(block)), block = 0, 1, ...
// Integers: rejection sampling on 8-byte big-endian words; shuffles: Durstenfeld Fisher-Yates.

import { ed25519 } from "./vendor/noble-curves/ed25519.js";

export const ESCROW_DOMAIN = "empire-hall/escrow/v1";
export const DEFAULT_DOMAIN = "empire-hall/escrow/default/v1";
export const SEED_DOMAIN = "empire-hall/dealer/seed/v1";
export const GAME_KEY_DOMAIN = "game-key/v1";
export const ENTROPY_ROUND = "entropy";
export const SEED_SCHEME = "sha256(lp('empire-hall/dealer/seed/v1')|lp(game)|seed)";
export const DEADLINE_SLACK_MS = 1000;
const TWO64 = 1n << 64n;
const enc = new TextEncoder();
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// ---- bytes --------------------------------------------------------------------------------

export const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

export function unhex(text) {
  if (typeof text !== "string" || text.length % 2 || /[^0-9a-fA-F]/.test(text)) {
    throw new Error("not hex: " + String(text).slice(0, 20));
  }
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const asBytes = (x) => (typeof x === "string" ? enc.encode(x) : x);

export function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) { out.set(p, i); i += p.length; }
  return out;
}

/** LP(x) = u32 big-endian length | x (strings as UTF-8). */
export function lp(x) {
  const b = asBytes(x);
  const out = new Uint8Array(4 + b.length);
  new DataView(out.buffer).setUint32(0, b.length);
  out.set(b, 4);
  return out;
}

const u32 = (n) => { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, n); return b; };

/** Order strings by code point (Python's order), not by UTF-16 unit. */
export function byCodePoint(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** Python's json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False): keys
 * by code point, no spaces, integers only and within +-(2^53 - 1) (a float prints differently
 * in Python, JSON.parse cannot tell 1.0 from 1 and rounds beyond 2^53); anything else throws. */
export function canonical(value) {
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    return JSON.stringify(value);
  }
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error("canonical JSON holds integers up to 2^53 - 1 only");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (typeof value === "object") {
    const keys = Object.keys(value).sort(byCodePoint);
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
  }
  throw new Error("not a JSON value: " + typeof value);
}
export const canonicalJson = canonical;

/** The canonical text, or "?" for a value that has none (never equal to a real text). */
export function canon(value) {
  try { return canonical(value); } catch { return "?"; }
}

/** JSON equality by canonical text: 1 and true are different values. */
export function same(a, b) {
  const ta = canon(a);
  return ta !== "?" && ta === canon(b);
}

// ---- SHA-256 / HMAC (FIPS 180-4, RFC 2104) ------------------------------------------------

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);

export function sha256(data) {
  const bits = data.length * 8;
  const padded = new Uint8Array(((data.length + 9 + 63) >> 6) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const dv = new DataView(padded.buffer);
  dv.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  dv.setUint32(padded.length - 4, bits >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getUint32(off + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    const v = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = (h[i] + v[i]) >>> 0;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) ov.setUint32(4 * i, h[i]);
  return out;
}

/** HMAC-SHA256 with the key's pads computed once: hmac(key)(msg) -> 32 bytes. */
export function hmac(key) {
  const k = key.length > 64 ? sha256(key) : key;
  const block = new Uint8Array(64);
  block.set(k);
  const ipad = block.map((b) => b ^ 0x36);
  const opad = block.map((b) => b ^ 0x5c);
  return (msg) => sha256(concat([opad, sha256(concat([ipad, msg]))]));
}

// ---- signed commands (shared/fairness/signing.py; static/signing.mjs signs) --------------

export const CMD_DOMAIN = "empire-hall/cmd/v1";
const te = new TextEncoder();
const KEY = /^[0-9a-f]{64}$/;
const SIG = /^[0-9a-f]{128}$/;

export const sealedDigest = (sealed) => hex(sha256(te.encode(sealed)));
export const actBody = (action, expectedSeq) => ({ action, expected_seq: expectedSeq ?? null });
export const commitBody = (roundId, slot, commitment, sealedSha256, pub) => ({
  commitment, public: pub && Object.keys(pub).length ? pub : null, round_id: roundId,
  sealed_sha256: sealedSha256, slot });

export function signedMessage(game, seat, cmdId, kind, body) {
  if (kind !== "act" && kind !== "commit") throw new Error(`unknown command kind ${kind}`);
  return concat([lp(CMD_DOMAIN), lp(game), lp(String(seat)), lp(cmdId), lp(kind),
    lp(canonical(body))]);
}

export const wellFormed = (key, sig) =>
  typeof key === "string" && typeof sig === "string" && KEY.test(key) && SIG.test(sig);

/** Whether ``sig`` (hex) is ``key``'s (hex) over ``msg`` (bytes). */
export function verifySignature(key, sig, msg) {
  if (!wellFormed(key, sig)) return false;
  try {
    return ed25519.verify(unhex(sig), msg, unhex(key), { zip215: false });
  } catch {
    return false;
  }
}

/** The session keys a game's signed commands use, per seat (decimal text), sorted: the audit
 * bundle's ``signatures`` (signing.py: keys_by_seat). */
export function keysBySeat(record, log) {
  const out = new Map();
  const acts = (log || []).filter((x) => isObj(x) && x.by === "seat").map((x) => [get(x, "seat", null), get(x, "key", null)]);
  const commits = record.filter((e) => isObj(e) && e.type === "committed").map((e) => [get(e, "seat", null), get(e, "key", null)]);
  for (const [seat, key] of [...acts, ...commits]) {
    if (typeof key === "string" && Number.isInteger(seat)) {
      if (!out.has(seat)) out.set(seat, new Set());
      out.get(seat).add(key);
    }
  }
  const obj = {};
  for (const seat of [...out.keys()].sort((a, b) => a - b)) obj[String(seat)] = [...out.get(seat)].sort();
  return obj;
}

// ---- escrow -------------------------------------------------------------------------------

/** A fresh 32-byte nonce from the platform CSPRNG, hex. Never reuse one. */
export function newNonce() {
  const b = new Uint8Array(32);
  globalThis.crypto.getRandomValues(b);
  return hex(b);
}

export function commitment(game, round, slot, seat, choice, nonceHex) {
  const nonce = unhex(nonceHex);
  if (nonce.length !== 32) throw new Error("nonce must be 32 bytes");
  return hex(sha256(concat([lp(ESCROW_DOMAIN), lp(game), lp(round + "/" + slot),
    lp(String(seat)), lp(canonical(choice)), lp(nonce)])));
}

export function defaultCommitment(game, round, slot, dflt, saltHex) {
  return hex(sha256(concat([lp(DEFAULT_DOMAIN), lp(game), lp(round + "/" + slot),
    lp(canonical(dflt)), lp(unhex(saltHex || ""))])));
}

/** SHA-256 over the sorted (slot key, commitment) pairs, each element length-prefixed. */
export function commitmentsRoot(pairs) {
  const sorted = [...pairs].sort((a, b) => byCodePoint(a[0], b[0]) || byCodePoint(a[1], b[1]));
  return hex(sha256(concat(sorted.map(([k, c]) => concat([lp(k), lp(c)])))));
}

// ---- dealer -------------------------------------------------------------------------------

export function seedCommitment(game, serverSeed) {
  return hex(sha256(concat([lp(SEED_DOMAIN), lp(game), serverSeed])));
}

export function gameKey(serverSeed, game, rulesVersion, clientSeeds) {
  return hmac(serverSeed)(concat([lp(GAME_KEY_DOMAIN), lp(game), lp(rulesVersion),
    ...clientSeeds.map(lp)]));
}

/** The byte stream of one label: HMAC(game_key, LP(label) | u32(block)), block = 0, 1, ... */
export class LabelStream {
  constructor(key, label) {
    this.mac = hmac(key);
    this.prefix = lp(label);
    this.block = 0;
    this.buf = new Uint8Array(0);
  }

  take(n) {
    while (this.buf.length < n) {
      this.buf = concat([this.buf, this.mac(concat([this.prefix, u32(this.block)]))]);
      this.block += 1;
    }
    const out = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    return out;
  }

  /** Uniform integer in [0, n) (a BigInt) by rejection sampling on 8-byte words. */
  below(n) {
    const m = BigInt(n);
    if (m < 1n) throw new Error("n must be >= 1");
    const limit = TWO64 - (TWO64 % m);
    for (;;) {
      const b = this.take(8);
      const x = new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0);
      if (x < limit) return x % m;
    }
  }
}

const num = (x) => (x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x);

export function shuffle(key, label, n) {
  const s = new LabelStream(key, label);
  const items = Array.from({ length: Number(n) }, (_, i) => i);
  for (let i = items.length - 1; i > 0; i--) {
    const j = Number(s.below(i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

export function below(key, label, n, count = 1) {
  const s = new LabelStream(key, label);
  return Array.from({ length: count }, () => num(s.below(n)));
}

export function dice(key, label, sides, count = 1) {
  const s = new LabelStream(key, label);
  return Array.from({ length: count }, () => num(s.below(sides) + 1n));
}

/** The dealer's labelled draw: "shuffle" n | "below" n (count) | "dice" of n sides (count). */
export function draw(key, label, kind, n, count = 1) {
  if (kind === "shuffle") return shuffle(key, label, n);
  if (kind === "below") return below(key, label, n, count);
  if (kind === "dice") return dice(key, label, n, count);
  throw new Error("unknown draw kind " + kind);
}

// ---- the verifier (shared/fairness/verify.py) ---------------------------------------------

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

const isInt = (v) => Number.isSafeInteger(v);
const AUDIT_VERSION = 1; // the audit bundle's format (GET /api/matches/<id>/audit)
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const HEX64 = /^[0-9a-f]{64}$/;
const HEX = /^(?:[0-9a-f]{2})*$/;
const STREAM_ID = /^(0|[1-9][0-9]*)-(0|[1-9][0-9]*)$/;
const SLOT_KEY = /^s(0|[1-9][0-9]*)(?::[\s\S]*)?$/;
const isHex64 = (v) => typeof v === "string" && HEX64.test(v);

function kindOk(kind, v) {
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
const RECEIPT_SHAPE = { round_id: "str", slot: "str", choice: "json", nonce: "hex64", commitment: "hex64" };

const PLAY_TYPES = ["round_opened", "committed", "slot_timed_out", "round_closed", "round_revealed", "draw", "event", "game_ended"];
const ROUND_TYPES = ["round_opened", "committed", "slot_timed_out", "round_closed", "round_revealed"];
const eqList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const short = (c) => (typeof c === "string" ? c.slice(0, 16) : "none");
const ms = (id) => Number(id.split("-")[0]);
const sid = (id) => id.split("-").map(Number);
const sidLE = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]);
const get = (o, k, dflt) => (isObj(o) && has(o, k) ? o[k] : dflt);

class Report {
  constructor() {
    this.problems = []; // {cls, where, text}
    this.counts = { draws: 0, commitments: 0, rounds: 0, applied: 0, receipts: 0, signatures: 0 };
  }
  add(cls, where, text) { this.problems.push({ cls, where, text }); }
}

function shape(r, obj, spec, where) {
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

function checkShapes(r, doc) {
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
  }

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
  }

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
    const firstSeq = this.created.client_entropy ? 3 : 2;
    const moveAt = new Map();
    this.log.forEach((x, i) => {
      const want = firstSeq + i;
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
