// Empire Hall's fairness in JavaScript: ONE module for the browser (served as
// /static/fairness-core.mjs with its parts under /static/fairness/, imported by fairness.js,
// verify.js and replay.js) and for Node (clients/js/empire-client.mjs imports it by relative
// path). No platform crypto: a small synchronous SHA-256 / HMAC-SHA256, so it runs the same
// everywhere, also on a page that is not a secure context (plain http on a LAN address has
// no crypto.subtle); one dependency, the vendored @noble/curves, for the Ed25519 signatures
// of seats' commands (class signature).
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
//
// The modules, by subject (fairness/): bytes (LP, canonical JSON, SHA-256, HMAC), signatures,
// commitments (the escrow's), draws (the dealer's), and the verifier: shapes, rounds, verify.

export {
  hex,
  unhex,
  concat,
  lp,
  byCodePoint,
  canonical,
  canonicalJson,
  canon,
  same,
  sha256,
  hmac,
} from "./fairness/bytes.mjs";
export {
  CMD_DOMAIN,
  sealedDigest,
  actBody,
  commitBody,
  signedMessage,
  wellFormed,
  verifySignature,
  keysBySeat,
} from "./fairness/signatures.mjs";
export {
  ESCROW_DOMAIN,
  DEFAULT_DOMAIN,
  newNonce,
  commitment,
  defaultCommitment,
  commitmentsRoot,
} from "./fairness/commitments.mjs";
export {
  SEED_DOMAIN,
  GAME_KEY_DOMAIN,
  SEED_SCHEME,
  seedCommitment,
  gameKey,
  LabelStream,
  shuffle,
  below,
  dice,
  draw,
} from "./fairness/draws.mjs";
export {
  ENTROPY_ROUND,
  DEADLINE_SLACK_MS,
  CLASSES,
} from "./fairness/shapes.mjs";
export {
  verifyRecord,
} from "./fairness/verify.mjs";
