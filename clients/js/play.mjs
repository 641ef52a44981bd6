// Playing a seat: legal actions in turns, sealed choices committed, until the game ends.

import { randomBytes } from "node:crypto";

import { ApiError } from "./errors.mjs";
import { canonical } from "./fairness.mjs";

const pick = (items) => items[randomBytes(4).readUInt32BE() % items.length];

/** Play our seat until the game ends. ``chooseAction(view, legal)`` and
 * ``chooseSealed(view, slot)`` default to uniformly random legal choices. */
export async function playSeat(client, game, {
  chooseAction = (view, legal) => pick(legal),
  chooseSealed = (view, slot) => pick(slot.allowed),
  log = () => {},
  dropEvery = 0, // > 0: drop the connection after every n-th decision (to exercise resume)
} = {}) {
  let actedSeq = -1;
  let decisions = 0;
  const decided = () => {
    if (dropEvery > 0 && ++decisions % dropEvery === 0) {
      log(`seq ${game.seq}: dropping the connection`);
      client.drop();
    }
  };
  while (!game.ended) {
    if (client.failure) throw client.failure;
    const msg = game.view;
    const node = msg.node;
    try {
      if (node.kind === "turn" && msg.legal.length && game.seq !== actedSeq
          && (node.seats.includes(game.seat) || node.open_to.includes(game.seat))) {
        actedSeq = game.seq;
        const action = chooseAction(msg.view, msg.legal);
        log(`seq ${game.seq}: act ${canonical(action)}`);
        const sent = client.act(game, action, game.seq);
        decided();
        await sent;
      } else if (node.kind === "simultaneous") {
        const done = game.committedSlots(node.round_id);
        const order = node.order.map((o) => o.key);
        for (const slot of node.my_slots) {
          const key = `${node.round_id}/${slot.key}`;
          if (game.receipts.has(key) || done.has(slot.key)) continue;
          if (node.ordered && order.slice(0, order.indexOf(slot.key)).some((k) => !done.has(k))) break;
          let choice;
          let publicPart = null;
          if (node.platform) {
            choice = randomBytes(32).toString("hex"); // our entropy for the dealer's game key
          } else {
            choice = chooseSealed(msg.view, slot);
            if (slot.public_keys?.length && choice && typeof choice === "object") {
              publicPart = Object.fromEntries(slot.public_keys.map((k) => [k, choice[k] ?? null]));
            }
          }
          const sent = client.commit(game, node.round_id, slot.key, choice, publicPart);
          decided();
          const r = await sent;
          log(`seq ${game.seq}: sealed ${key} -> commitment ${r.commitment.slice(0, 16)}… (receipt)`);
        }
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.transient) actedSeq = -1; // not taken: act again at this seq after the wait
      log(`refused: ${err.message}`); // stale or refused: decide again on the next view
    }
    await game.wait(2000);
  }
}
