// Fairness: the one JavaScript implementation the web page also runs (canonical JSON, LP,
// commitments, the dealer's draws and the verifier of a finished game), served by the gateway
// as /static/fairness-core.mjs; its vectors are tests/fixtures/fairness-vectors.json, checked
// by Python, Node and the browser alike. The sealing of openings to the escrow's key and the
// signing of commands with the session key come from the page's modules too. The client's
// other modules import them from here.

export {
  ESCROW_DOMAIN, DEFAULT_DOMAIN, SEED_DOMAIN, GAME_KEY_DOMAIN, lp, canonical, canonicalJson,
  sha256, hmac, commitment, defaultCommitment, commitmentsRoot, seedCommitment, gameKey, draw,
  verifyRecord,
} from "../web/fairness-core.mjs";
export { sealOpening, openSealed } from "../web/seal.mjs";
export { SessionKey, message as signedMessage } from "../web/signing.mjs";
