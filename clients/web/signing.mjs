// Signed commands: every act and commit a seat sends is signed with its
// session key (Ed25519, a fresh pair per session, the public half bound to the session
// through the lobby: POST /api/session-keys). ONE file for the browser (served as
// /static/signing.mjs: play.js, api.js, the verifier) and for Node (clients/js/
// empire-client.mjs), the twin of shared/fairness/signing.py:
//   message = LP("empire-hall/cmd/v1") | LP(game) | LP(seat as decimal) | LP(cmd_id) | LP(kind)
//             | LP(canonical JSON of the body)
//   act:    body = {action, expected_seq}
//   commit: body = {commitment, public (or null), round_id, sealed_sha256, slot}
// Keys and signatures are lowercase hex. Built on the vendored, pinned @noble/curves
// (static/vendor, SHA-256 pinned by tests/unit/platform/test_seal.py), RFC 8032 verification
// (zip215 off), no platform crypto but crypto.getRandomValues.

import { ed25519 } from "./vendor/noble-curves/ed25519.js";
import { actBody, commitBody, hex, sealedDigest, signedMessage as message, unhex }
  from "./fairness-core.mjs";

export { CMD_DOMAIN, actBody, commitBody, sealedDigest, signedMessage as message,
  verifySignature, wellFormed } from "./fairness-core.mjs";

/** One session's key pair: ``public`` (hex) is registered, the secret never leaves it. */
export class SessionKey {
  constructor(secretHex = undefined) {
    this.secret = secretHex ? unhex(secretHex) : ed25519.utils.randomSecretKey();
    this.public = hex(ed25519.getPublicKey(this.secret));
  }

  /** The secret half as hex: only to keep it with its session (clients/web/api.js). */
  get secretHex() {
    return hex(this.secret);
  }

  sign(msg) {
    return hex(ed25519.sign(msg, this.secret));
  }

  /** The ``proof`` that this (the session's current) key hands the session on to newKey. */
  signRekey(sessionId, newKey) {
    return this.sign(new TextEncoder().encode(`empire-hall/rekey/v1\n${sessionId}\n${newKey}`));
  }

  /** The act frame's {key, sig}. */
  signAct(game, seat, cmdId, action, expectedSeq) {
    return { key: this.public,
      sig: this.sign(message(game, seat, cmdId, "act", actBody(action, expectedSeq))) };
  }

  /** The commit frame's {key, sig}. */
  signCommit(game, seat, cmdId, roundId, slot, commitment, sealed, pub) {
    return { key: this.public, sig: this.sign(message(game, seat, cmdId, "commit",
      commitBody(roundId, slot, commitment, sealedDigest(sealed), pub))) };
  }
}
