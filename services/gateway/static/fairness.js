// The browser's twin of shared/fairness (commitments.py, draws.py, lp.py): the same bytes,
// so a player can check every sealed choice and every draw without trusting the server.
//   LP(x)        = u32be(len(x)) | x
//   commitment   = SHA-256(LP("empire-hall/escrow/v1") | LP(game) | LP(round/slot) | LP(seat)
//                          | LP(canonical JSON of the choice) | LP(32-byte nonce))
//   seed         = SHA-256(LP("empire-hall/dealer/seed/v1") | LP(game) | server_seed)
//   game key     = HMAC-SHA256(server_seed, LP("game-key/v1") | LP(game) | LP(rules) | LP(seeds)...)
//   label stream = HMAC-SHA256(game_key, LP(label) | u32be(block)), block = 0, 1, ...
// Integers: rejection sampling on 8-byte big-endian words; shuffles: Durstenfeld Fisher-Yates.
// SubtleCrypto does the hashing; a small pure-JS SHA-256 stands in where the page is not a
// secure context (plain http on a LAN address), where crypto.subtle does not exist.

export const ESCROW_DOMAIN = "empire-hall/escrow/v1";
export const DEFAULT_DOMAIN = "empire-hall/escrow/default/v1";
export const SEED_DOMAIN = "empire-hall/dealer/seed/v1";
export const GAME_KEY_DOMAIN = "game-key/v1";
const TWO64 = 1n << 64n;
const enc = new TextEncoder();

let subtle = globalThis.crypto && globalThis.crypto.subtle ? globalThis.crypto.subtle : null;

/** Force the pure-JS SHA-256/HMAC (tests) or go back to SubtleCrypto when available. */
export function useFallback(on) {
  subtle = on ? null : (globalThis.crypto && globalThis.crypto.subtle) || null;
}
export const usingSubtle = () => subtle !== null;

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

export function lp(x) {
  const b = asBytes(x);
  const out = new Uint8Array(4 + b.length);
  new DataView(out.buffer).setUint32(0, b.length);
  out.set(b, 4);
  return out;
}

const u32 = (n) => { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, n); return b; };

// Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False): keys sorted
// by code point (not UTF-16 unit), no spaces. (Floats with an integral value such as 1.0 are
// not representable after JSON.parse; no game uses floats in a choice.)
function byCodePoint(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

export function canonical(value) {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new Error("NaN/Infinity");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  const keys = Object.keys(value).sort(byCodePoint);
  return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
}

// ---- SHA-256 / HMAC -------------------------------------------------------------------------

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);

/** Pure-JS SHA-256 (FIPS 180-4), used only without SubtleCrypto. */
export function sha256Sync(data) {
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

function hmacSync(key, msg) {
  const k = key.length > 64 ? sha256Sync(key) : key;
  const block = new Uint8Array(64);
  block.set(k);
  const ipad = block.map((b) => b ^ 0x36);
  const opad = block.map((b) => b ^ 0x5c);
  return sha256Sync(concat([opad, sha256Sync(concat([ipad, msg]))]));
}

export async function sha256(data) {
  if (subtle) return new Uint8Array(await subtle.digest("SHA-256", data));
  return sha256Sync(data);
}

/** A keyed HMAC-SHA256 function (the key imported once). */
export async function hmacKey(key) {
  if (subtle) {
    const k = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false,
      ["sign"]);
    return async (msg) => new Uint8Array(await subtle.sign("HMAC", k, msg));
  }
  return async (msg) => hmacSync(key, msg);
}

// ---- escrow ---------------------------------------------------------------------------------

export function newNonce() {
  const b = new Uint8Array(32);
  crypto.getRandomValues(b);
  return hex(b);
}

export async function commitment(game, round, slot, seat, choice, nonceHex) {
  const nonce = unhex(nonceHex);
  if (nonce.length !== 32) throw new Error("nonce must be 32 bytes");
  return hex(await sha256(concat([lp(ESCROW_DOMAIN), lp(game), lp(round + "/" + slot),
    lp(String(seat)), lp(canonical(choice)), lp(nonce)])));
}

export async function defaultCommitment(game, round, slot, dflt, saltHex) {
  return hex(await sha256(concat([lp(DEFAULT_DOMAIN), lp(game), lp(round + "/" + slot),
    lp(canonical(dflt)), lp(unhex(saltHex || ""))])));
}

/** SHA-256 over the sorted (slot key, commitment) pairs, each element length-prefixed. */
export async function commitmentsRoot(pairs) {
  const sorted = [...pairs].sort((a, b) => byCodePoint(a[0], b[0]) || byCodePoint(a[1], b[1]));
  return hex(await sha256(concat(sorted.map(([k, c]) => concat([lp(k), lp(c)])))));
}

// ---- dealer ---------------------------------------------------------------------------------

export async function seedCommitment(game, serverSeed) {
  return hex(await sha256(concat([lp(SEED_DOMAIN), lp(game), serverSeed])));
}

export async function gameKey(serverSeed, game, rulesVersion, clientSeeds) {
  const mac = await hmacKey(serverSeed);
  return mac(concat([lp(GAME_KEY_DOMAIN), lp(game), lp(rulesVersion), ...clientSeeds.map(lp)]));
}

/** The byte stream of one label. */
export class LabelStream {
  constructor(mac, label) {
    this.mac = mac;
    this.prefix = lp(label);
    this.block = 0;
    this.buf = new Uint8Array(0);
  }

  static async open(key, label) {
    return new LabelStream(await hmacKey(key), label);
  }

  async take(n) {
    while (this.buf.length < n) {
      const next = await this.mac(concat([this.prefix, u32(this.block)]));
      this.block += 1;
      this.buf = concat([this.buf, next]);
    }
    const out = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    return out;
  }

  /** Uniform integer in [0, n) (BigInt) by rejection sampling on 8-byte words. */
  async below(n) {
    const m = BigInt(n);
    if (m < 1n) throw new Error("n must be >= 1");
    const limit = TWO64 - (TWO64 % m);
    for (;;) {
      const b = await this.take(8);
      const x = new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0);
      if (x < limit) return x % m;
    }
  }
}

const num = (x) => (x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x);

export async function shuffle(key, label, n) {
  const s = await LabelStream.open(key, label);
  const items = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Number(await s.below(i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

export async function below(key, label, n, count = 1) {
  const s = await LabelStream.open(key, label);
  const out = [];
  for (let i = 0; i < count; i++) out.push(num(await s.below(n)));
  return out;
}

export async function dice(key, label, sides, count = 1) {
  const s = await LabelStream.open(key, label);
  const out = [];
  for (let i = 0; i < count; i++) out.push(num((await s.below(sides)) + 1n));
  return out;
}

/** Dispatch on the request kind ("shuffle" | "below" | "dice"), as draws.draw does. */
export async function draw(key, label, kind, n, count = 1) {
  if (kind === "shuffle") return shuffle(key, label, n);
  if (kind === "below") return below(key, label, n, count);
  if (kind === "dice") return dice(key, label, n, count);
  throw new Error("unknown draw kind " + kind);
}
