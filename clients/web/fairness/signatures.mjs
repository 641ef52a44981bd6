// Signed commands: the message a seat's session key signs and its check
// (shared/fairness/signing.py; signing.mjs signs).

import { ed25519 } from "../vendor/noble-curves/ed25519.js";
import { canonical, concat, get, hex, isObj, lp, sha256, unhex } from "./bytes.mjs";

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
