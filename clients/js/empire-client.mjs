#!/usr/bin/env node
// Empire Hall: a complete minimal client for Node 20+, with no npm dependencies: the modules
// of clients/js and the fairness module they share with the web page
// (clients/web/fairness-core.mjs).
//
//   node [--experimental-websocket: Node 20/21 only] clients/js/empire-client.mjs \
//        --url http://127.0.0.1:8000 --name ada [--game duel] [--seats 2] \
//        [--options '{"rounds":2}'] [--bots 1] [--timeout 120] [--drop N] [--receipts FILE]
//
// It signs in, creates a table, fills the other seats with bots, starts the game and plays
// its own seat to the end: legal actions in turns, sealed choices committed with
// SHA-256(LP(domain) ‖ LP(game) ‖ LP(round/slot) ‖ LP(seat) ‖ LP(choice) ‖ LP(nonce)) exactly
// as shared/fairness/commitments.py. When the game is over it checks every reveal against
// the commitment it saw before that round closed, then fetches the public record and move log
// and verifies the whole game as `python -m shared.fairness.verify` does (seed commitment,
// client seeds, every draw, every sealed round's seats, slots, defaults and public parts,
// every applied move), with its own receipts (docs/fairness.md). The last line
// printed is `RESULT {json}`; the exit status is 0 only when the game finished and verified.
// --drop N drops the connection after every N-th decision, to show resuming (section 2 of
// docs/protocol.md): the client reconnects, re-watches from its last seq and record id and
// re-sends unanswered commands under the same cmd_id. --receipts FILE saves this seat's
// receipts after the game, in the format `python -m shared.fairness.verify --receipts` reads.
//
// WebSocket: the platform's own (globalThis.WebSocket): Node 22+ has it, Node 20 and 21 with
// --experimental-websocket; without one the client stops with a message that says so.
// The client is also a library: import { Client, commitment, playSeat, ... } from this file,
// which re-exports the public names of the modules beside it (client.mjs: the Client and its
// socket; http-api.mjs: its HTTP half; my-games.mjs: "My games"; session.mjs: a game's and a
// chat's state; errors.mjs; verification.mjs; play.mjs: playing a seat; fairness.mjs: the
// page's fairness modules).
// docs/write-your-own-client.md walks through it; docs/protocol.md is the reference.

import { pathToFileURL } from "node:url";

import { Client } from "./client.mjs";
import { playSeat } from "./play.mjs";
import { sleep } from "./session.mjs";
import { saveReceipts, verifyGame, verifyReveals } from "./verification.mjs";

export {
  ESCROW_DOMAIN, DEFAULT_DOMAIN, SEED_DOMAIN, GAME_KEY_DOMAIN, lp, canonical, canonicalJson,
  sha256, hmac, commitment, defaultCommitment, commitmentsRoot, seedCommitment, gameKey, draw,
  verifyRecord, sealOpening, openSealed, SessionKey, signedMessage,
} from "./fairness.mjs";
export {
  Client, NO_WEBSOCKET, openSocket, WATCH_AGAIN, WATCH_BACKOFF_MS, WATCH_TRIES, WATCH_VERSION,
} from "./client.mjs";
export { ApiError, TRANSIENT_CODES } from "./errors.mjs";
export { ChatLog, GameSession } from "./session.mjs";
export { clockText, MyGamesApi, orderedGames } from "./my-games.mjs";
export { receiptsOf, saveReceipts, verifyGame, verifyReveals } from "./verification.mjs";
export { playSeat } from "./play.mjs";

// ---------------------------------------------------------------------------------------
// Command line

function parseArgs(argv) {
  const args = { url: "http://127.0.0.1:8000", name: "js-client", game: "duel", seats: "2",
    options: "{}", bots: null, timeout: "300", drop: "0", receipts: null };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z]+)$/.exec(argv[i]);
    if (!m || !(m[1] in args)) throw new Error(`unknown argument ${argv[i]}`);
    args[m[1]] = argv[++i];
  }
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const say = (line) => console.log(line);
  const seats = Number(args.seats);
  const client = new Client(args.url);
  const deadline = setTimeout(() => {
    say(`RESULT ${JSON.stringify({ finished: false, verified: false, error: "timeout" })}`);
    process.exit(1);
  }, Number(args.timeout) * 1000);
  const me = await client.signIn(args.name);
  say(`signed in as ${me.name} (${me.player_id})`);
  const table = await client.createTable(args.game, seats, JSON.parse(args.options));
  say(`table ${table.table_id} (${args.game}, ${seats} seats, invite ${table.invite})`);
  for (let i = 0; i < Number(args.bots ?? seats - 1); i++) await client.addBot(table.table_id);
  const gameId = await client.start(table.table_id);
  say(`game ${gameId} started`);
  const game = await client.watch(gameId);
  say(`seat ${game.seat}`);
  await playSeat(client, game, { log: say, dropEvery: Number(args.drop) });
  say(`game over at seq ${game.seq}`);
  // the dealer reveals its seed just after the end, and the move log is public once ended:
  // fetch the whole public record and verify it (with our receipts)
  let doc = null;
  for (let i = 0; i < 100; i++) {
    doc = await client.record(gameId);
    if (doc.ended && doc.log && doc.record.some((e) => e.type === "seed_revealed")) break;
    await sleep(200);
  }
  const reveals = verifyReveals(game); // against what we saw live, before each close
  const verdict = verifyGame(doc, game);
  if (args.receipts) say(`receipts saved to ${saveReceipts(game, args.receipts)}`);
  const ended = doc.record.find((e) => e.type === "game_ended");
  const problems = [...reveals.problems, ...verdict.problems];
  const c = verdict.counts;
  const summary = {
    game_id: gameId, finished: game.ended, seat: game.seat, seq: game.seq,
    reveals_verified: c.commitments, rounds_verified: c.rounds, my_commitments: game.receipts.size,
    receipts_verified: c.receipts, draws_verified: c.draws, applied_verified: c.applied,
    reconnects: client.reconnects, rejections: game.rejections.map((r) => r.code), problems,
    verified: game.ended && problems.length === 0,
    outcome: ended?.outcome ?? null,
  };
  say(problems.length ? problems.map((p) => `FAIL ${p}`).join("\n")
    : `verified ${c.commitments} reveals in ${c.rounds} rounds, ${c.draws} draws, ${c.applied} `
      + `applied moves and ${c.receipts} of my receipts`);
  say(`RESULT ${JSON.stringify(summary)}`);
  clearTimeout(deadline);
  client.close();
  process.exitCode = summary.verified ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(`empire-client: ${err.message ?? err}`);
    console.log(`RESULT ${JSON.stringify({ finished: false, verified: false, error: String(err) })}`);
    process.exit(1);
  });
}
