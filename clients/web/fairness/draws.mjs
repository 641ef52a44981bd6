// The dealer's draws: the seed commitment, the game key and the labelled streams every
// shuffle, number and die is taken from (shared/fairness/draws.py).

import { concat, hex, hmac, lp, sha256, u32 } from "./bytes.mjs";

export const SEED_DOMAIN = "empire-hall/dealer/seed/v1";
export const GAME_KEY_DOMAIN = "game-key/v1";
export const SEED_SCHEME = "sha256(lp('empire-hall/dealer/seed/v1')|lp(game)|seed)";
const TWO64 = 1n << 64n;

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
