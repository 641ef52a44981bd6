// Escrow commitments in the browser (FAIRNESS.md): the same bytes as shared/fairness.
// c = SHA-256(LP("empire-hall/escrow/v1") | LP(game) | LP(round/slot) | LP(seat) |
//             LP(canonical JSON of the choice) | LP(32-byte nonce))
"use strict";

const Fairness = (() => {
  const enc = new TextEncoder();

  function canonical(value) {
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    const keys = Object.keys(value).sort();
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
  }

  function lp(bytes) {
    const out = new Uint8Array(4 + bytes.length);
    new DataView(out.buffer).setUint32(0, bytes.length);
    out.set(bytes, 4);
    return out;
  }

  function concat(parts) {
    const n = parts.reduce((a, p) => a + p.length, 0);
    const out = new Uint8Array(n);
    let i = 0;
    for (const p of parts) { out.set(p, i); i += p.length; }
    return out;
  }

  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const unhex = (h) => new Uint8Array(h.match(/../g).map((x) => parseInt(x, 16)));

  function newNonce() {
    const b = new Uint8Array(32);
    crypto.getRandomValues(b);
    return hex(b);
  }

  async function commitment(game, round, slot, seat, choice, nonceHex) {
    const msg = concat([
      lp(enc.encode("empire-hall/escrow/v1")), lp(enc.encode(game)),
      lp(enc.encode(round + "/" + slot)), lp(enc.encode(String(seat))),
      lp(enc.encode(canonical(choice))), lp(unhex(nonceHex)),
    ]);
    return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", msg)));
  }

  return { canonical, commitment, newNonce };
})();
