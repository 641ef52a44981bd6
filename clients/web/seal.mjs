// Sealed openings: a seat's opening (choice and nonce) is encrypted to the
// escrow's public key, so the gateway, the streams and every log carry only the ciphertext and
// the commitment; only the escrow can read it. ONE file for the browser (served as
// /static/seal.mjs: play.js) and for Node (clients/js/empire-client.mjs imports it by relative
// path), the twin of shared/fairness/seal.py.
//
// HPKE, RFC 9180 base mode: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305, one
// message per context (sequence 0), empty AAD:
//   info     = LP("empire-hall/seal/v1") | LP(game) | LP(round/slot) | LP(seat)
//   opening  = canonical JSON of {"choice": choice, "nonce": nonce}
//   sealed   = base64(enc | ciphertext)   (enc: the 32-byte ephemeral public key)
// The info binds the ciphertext to one game, round, slot and seat: replayed anywhere else it
// does not open. Built on vendored, pinned @noble packages (static/vendor, SHA-256 pinned by
// tests/unit/platform/test_seal.py); no platform crypto but crypto.getRandomValues.

import { chacha20poly1305 } from "./vendor/noble-ciphers/chacha.js";
import { x25519 } from "./vendor/noble-curves/ed25519.js";
import { expand, extract } from "./vendor/noble-hashes/hkdf.js";
import { sha256 } from "./vendor/noble-hashes/sha2.js";
import { canonical, concat, hex, lp, unhex } from "./fairness-core.mjs";

export const SEAL_DOMAIN = "empire-hall/seal/v1";
export const SEALED_MAX_CHARS = 16384; // the wire bound of "sealed" (shared/protocol/client.py)

const te = new TextEncoder();
const u16 = (n) => new Uint8Array([(n >> 8) & 0xff, n & 0xff]);
const KEM_ID = 0x0020; // DHKEM(X25519, HKDF-SHA256)
const KDF_ID = 0x0001; // HKDF-SHA256
const AEAD_ID = 0x0003; // ChaCha20-Poly1305
const KEM_SUITE = concat([te.encode("KEM"), u16(KEM_ID)]);
const HPKE_SUITE = concat([te.encode("HPKE"), u16(KEM_ID), u16(KDF_ID), u16(AEAD_ID)]);
const V1 = te.encode("HPKE-v1");

const labeledExtract = (suite, salt, label, ikm) =>
  extract(sha256, concat([V1, suite, te.encode(label), ikm]), salt);
const labeledExpand = (suite, prk, label, info, length) =>
  expand(sha256, prk, concat([u16(length), V1, suite, te.encode(label), info]), length);

function keySchedule(dh, enc, pkR, info) {
  const kemContext = concat([enc, pkR]);
  const eaePrk = labeledExtract(KEM_SUITE, new Uint8Array(0), "eae_prk", dh);
  const shared = labeledExpand(KEM_SUITE, eaePrk, "shared_secret", kemContext, 32);
  const empty = new Uint8Array(0);
  const ctx = concat([new Uint8Array([0]), labeledExtract(HPKE_SUITE, empty, "psk_id_hash", empty),
    labeledExtract(HPKE_SUITE, empty, "info_hash", info)]);
  const secret = labeledExtract(HPKE_SUITE, shared, "secret", empty);
  return { key: labeledExpand(HPKE_SUITE, secret, "key", ctx, 32),
    nonce: labeledExpand(HPKE_SUITE, secret, "base_nonce", ctx, 12) };
}

/** RFC 9180 SingleShotSeal (base mode): enc | ciphertext. ``ephemeral`` (32 bytes) only for
 * test vectors; otherwise a fresh key from the CSPRNG. */
export function hpkeSeal(pkR, info, plaintext, aad = new Uint8Array(0), ephemeral = undefined) {
  const skE = ephemeral ?? x25519.utils.randomSecretKey();
  const enc = x25519.getPublicKey(skE);
  const { key, nonce } = keySchedule(x25519.getSharedSecret(skE, pkR), enc, pkR, info);
  return concat([enc, chacha20poly1305(key, nonce, aad).encrypt(plaintext)]);
}

/** RFC 9180 SingleShotOpen (base mode); throws when it does not open. */
export function hpkeOpen(skR, info, sealed, aad = new Uint8Array(0)) {
  if (sealed.length < 32 + 16) throw new Error("sealed opening too short");
  const enc = sealed.subarray(0, 32);
  const pkR = x25519.getPublicKey(skR);
  const { key, nonce } = keySchedule(x25519.getSharedSecret(skR, enc), enc, pkR, info);
  return chacha20poly1305(key, nonce, aad).decrypt(sealed.subarray(32));
}

/** The HPKE info of one seat's opening for one slot. */
export const sealInfo = (game, round, slot, seat) =>
  concat([lp(SEAL_DOMAIN), lp(game), lp(`${round}/${slot}`), lp(String(seat))]);

export const escrowPublicKey = (privateHex) => hex(x25519.getPublicKey(unhex(privateHex)));

function b64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function unb64(text) {
  const s = atob(text);
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

/** Seal a seat's opening to the escrow's public key (hex, from the round's round_opened
 * entry): the commit frame's ``sealed``. */
export function sealOpening(escrowKeyHex, game, round, slot, seat, choice, nonceHex, ephemeral = undefined) {
  const pt = te.encode(canonical({ choice, nonce: nonceHex }));
  const out = b64(hpkeSeal(unhex(escrowKeyHex), sealInfo(game, round, slot, seat), pt, undefined, ephemeral));
  if (out.length > SEALED_MAX_CHARS) throw new Error("the choice is too large to seal");
  return out;
}

/** The escrow's side (tests): the opening {choice, nonce} of a sealed text. */
export function openSealed(escrowPrivateHex, game, round, slot, seat, sealed) {
  const pt = hpkeOpen(unhex(escrowPrivateHex), sealInfo(game, round, slot, seat), unb64(sealed));
  return JSON.parse(new TextDecoder().decode(pt));
}
