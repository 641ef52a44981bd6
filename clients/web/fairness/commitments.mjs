// The escrow's commitments: a seat's choice bound to a nonce, a slot's default, the round's
// root (shared/fairness/commitments.py).

import { byCodePoint, canonical, concat, hex, lp, sha256, unhex } from "./bytes.mjs";

export const ESCROW_DOMAIN = "empire-hall/escrow/v1";
export const DEFAULT_DOMAIN = "empire-hall/escrow/default/v1";

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
