// Verification: while playing, every reveal against the commitment seen before the close;
// after the end, the whole game from its public record (the page's verifier) with this
// seat's receipts.

import { writeFileSync } from "node:fs";

import { canonical, commitment, verifyRecord } from "./fairness.mjs";
import { GameSession } from "./session.mjs";

/** While playing: every reveal against the commitment this client saw in the record before
 * that round closed (what a later rewrite of the record cannot change), and our own openings
 * against our receipts. The whole game is verified after the end by verifyGame. */
export function verifyReveals(game) {
  const problems = [];
  let checked = 0;
  for (const e of game.record) {
    if (e.type !== "round_revealed") continue;
    for (const o of e.openings) {
      const key = `${e.round_id}/${o.slot}`;
      const seen = game.commitmentsSeen.get(key);
      if (o.defaulted) {
        if (seen !== undefined) problems.push(`${key}: committed but shown as defaulted`);
        continue;
      }
      const c = commitment(game.gameId, e.round_id, o.slot, o.seat, o.choice, o.nonce);
      checked++;
      if (seen === undefined || c !== seen || c !== o.commitment) {
        problems.push(`${key}: the reveal does not match the commitment seen before the close`);
      }
      const mine = game.receipts.get(key);
      if (mine && (mine.commitment !== c || canonical(mine.choice) !== canonical(o.choice))) {
        problems.push(`${key}: my choice was altered`);
      }
    }
  }
  return { problems, checked };
}

/** This seat's receipts as the verifier takes them (verify --receipts FILE): only commits the
 * escrow acknowledged; an unanswered one may never have been stored. */
export function receiptsOf(game) {
  const receipts = [...game.receipts.values()].filter((r) => r.acknowledged)
    .map((r) => ({ round_id: r.round_id, slot: r.slot, choice: r.choice, nonce: r.nonce,
      commitment: r.commitment, ...(r.escrow_key ? { escrow_key: r.escrow_key } : {}) }));
  return { game_id: game.gameId, seat: game.seat, receipts };
}

/** Write this seat's receipts (receiptsOf) to a JSON file for `verify --receipts FILE`. */
export function saveReceipts(game, path) {
  writeFileSync(path, JSON.stringify(receiptsOf(game), null, 1) + "\n");
  return path;
}

/** The whole game from its public record and move log (GET /api/matches/<id>/record once
 * the game has ended, or its audit bundle), with the same checks and problem texts as
 * `python -m shared.fairness.verify` and the web page's replay viewer, plus a seat's
 * receipts (its choices reached the record unchanged): pass the GameSession that played the
 * seat (its receiptsOf) or a receipts document; a receipt mismatch is a `receipt: …` problem. */
export function verifyGame(doc, receipts = null) {
  const mine = receipts instanceof GameSession ? receiptsOf(receipts) : receipts;
  return verifyRecord(doc, { receipts: mine });
}
