// Runs the JavaScript fairness (clients/web/fairness-core.mjs) under Node for the
// Python tests, on the same inputs Python checks:
//   node tests/support/fairness-node.mjs vectors tests/fixtures/fairness-vectors.json
//   node tests/support/fairness-node.mjs verify cases.json      ([{name, doc, receipts}])
//   node tests/support/fairness-node.mjs client cases.json      (the same through the client)
//   node tests/support/fairness-node.mjs session cases.json     (the client's verifyGame given
//                                                                a GameSession's receipts)
// Prints one JSON document: what JavaScript computed (tests compare it with the vectors and
// with Python's verdicts).

import { readFileSync } from "node:fs";
import * as F from "../../clients/web/fairness-core.mjs";
import * as S from "../../clients/web/seal.mjs";
import * as C from "../../clients/js/empire-client.mjs";
import * as G from "../../clients/web/signing.mjs";

export function runVectors(v, lib = F) {
  const out = {};
  out.canonical = v.canonical.map((x) => {
    try { return lib.canonical(x.value); } catch { return null; }
  });
  out.lp = v.lp.map((x) => F.hex(lib.lp(x.text)));
  out.sha256 = v.sha256.map((x) => F.hex(lib.sha256(F.unhex(x.data))));
  out.hmac = v.hmac.map((x) => F.hex(lib.hmac(F.unhex(x.key))(F.unhex(x.data))));
  out.commitments = v.commitments.map((x) => lib.commitment(x.game, x.round, x.slot, x.seat, x.choice, x.nonce));
  out.defaults = v.defaults.map((x) => lib.defaultCommitment(x.game, x.round, x.slot, x.default, x.salt));
  out.roots = v.roots.map((x) => lib.commitmentsRoot(x.pairs));
  out.seeds = v.seeds.map((x) => lib.seedCommitment(x.game, F.unhex(x.server_seed)));
  out.game_keys = v.game_keys.map((x) => F.hex(lib.gameKey(F.unhex(x.server_seed), x.game, x.rules,
    x.client_seeds.map(F.unhex))));
  out.draws = v.draws.map((d) => {
    const n = typeof d.n === "string" ? BigInt(d.n) : d.n;
    return lib.draw(F.unhex(d.key), d.label, d.kind, n, d.count).map(String);
  });
  // sealed openings: static/seal.mjs (the client re-exports its sealOpening)
  out.hpke = v.hpke.map((x) => F.hex(S.hpkeSeal(F.unhex(x.pkRm), F.unhex(x.info), F.unhex(x.pt),
    F.unhex(x.aad), F.unhex(x.skEm)).subarray(32)));
  const seal = lib.sealOpening ?? S.sealOpening;
  out.seals = v.seals.map((x) => seal(x.escrow_key, x.game, x.round, x.slot, x.seat, x.choice,
    x.nonce, F.unhex(x.ephemeral)));
  out.opened = v.seals.map((x) => S.openSealed(x.escrow_private, x.game, x.round, x.slot, x.seat,
    x.sealed));
  // signed commands: static/signing.mjs (the client re-exports its SessionKey)
  const Key = lib.SessionKey ?? G.SessionKey;
  out.signed = v.signatures.map((x) => F.hex(F.signedMessage(x.game, x.seat, x.cmd_id, x.kind,
    x.body)));
  out.signatures = v.signatures.map((x) => new Key(x.secret).sign(F.unhex(x.message)));
  out.verified = v.signatures.map((x) => [F.verifySignature(x.public, x.sig, F.unhex(x.message)),
    F.verifySignature(x.public, x.sig, F.unhex(x.message + "00"))]);
  return out;
}

const [mode, file] = process.argv.slice(2);
const input = JSON.parse(readFileSync(file, "utf8"));
let out;
if (mode === "vectors") {
  // the library and the client's re-exports (the client must use the same one)
  out = { core: runVectors(input), client: runVectors(input, C) };
} else if (mode === "verify") {
  out = input.map((c) => {
    const r = F.verifyRecord(c.doc, { receipts: c.receipts });
    return { name: c.name, problems: r.problems, counts: r.counts };
  });
} else if (mode === "client") {
  out = input.map((c) => {
    const r = C.verifyGame(c.doc, c.receipts);
    return { name: c.name, problems: r.problems, counts: r.counts };
  });
} else if (mode === "session") {
  // the client's verifyGame given the GameSession that played the seat: its receipts
  // (receiptsOf: acknowledged commits only) go with it; a saved file reads back the same
  out = input.map((c) => {
    let game = null;
    if (c.receipts !== null) {
      game = new C.GameSession(c.receipts.game_id);
      game.seat = c.receipts.seat;
      for (const x of c.receipts.receipts) game.receipts.set(`${x.round_id}/${x.slot}`, { ...x, acknowledged: true });
      game.receipts.set("unanswered/s0", { round_id: "unanswered", slot: "s0", choice: 1, nonce: "00", commitment: "00", acknowledged: false });
    }
    const r = C.verifyGame(c.doc, game);
    const saved = game ? JSON.parse(readFileSync(C.saveReceipts(game, `${file}.receipts.json`), "utf8")) : null;
    return { name: c.name, problems: r.problems, counts: r.counts, saved };
  });
} else {
  throw new Error("mode: vectors | verify | client | session");
}
console.log(JSON.stringify(out));
