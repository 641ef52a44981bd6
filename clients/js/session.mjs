// What the client holds of one game (its latest view, the public record, its receipts) and of
// one joined chat channel.

import { randomBytes } from "node:crypto";

import { ApiError } from "./errors.mjs";

export const newId = (prefix) => prefix + randomBytes(8).toString("hex");
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What this client holds of one game: its latest view, the public record, its receipts. */
export class GameSession {
  constructor(gameId) {
    this.gameId = gameId;
    this.seat = null;
    this.view = null; // the latest "view" message
    this.seq = -1;
    this.record = []; // public record entries, in order
    this.recordId = "0-0"; // resume point: the last record id held
    this.commitmentsSeen = new Map(); // "<round>/<slot>" -> commitment, seen before close
    this.escrowKeys = new Map(); // round -> the escrow key of its round_opened entry
    this.closedRounds = new Set();
    this.receipts = new Map(); // "<round>/<slot>" -> {round_id, slot, choice, nonce, commitment}
    this.rejections = [];
    this.waiters = [];
  }
  get ended() {
    return this.view?.node?.kind === "terminal";
  }
  changed() {
    const w = this.waiters;
    this.waiters = [];
    w.forEach((resolve) => resolve());
  }
  /** Resolves on the next change, or after timeoutMs. */
  wait(timeoutMs = 1000) {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      setTimeout(resolve, timeoutMs);
    });
  }
  onView(msg) {
    if (msg.seq <= this.seq && !msg.gap) return; // already held
    this.view = msg;
    this.seq = msg.seq;
    this.seat = msg.seat;
    this.changed();
  }
  onRecord(msg) {
    const [ms, n] = msg.id.split("-").map(BigInt);
    const [lms, ln] = this.recordId.split("-").map(BigInt);
    if (ms < lms || (ms === lms && n <= ln)) return; // already held
    this.recordId = msg.id;
    const e = msg.entry;
    this.record.push(e);
    if (e.type === "committed" && !this.closedRounds.has(e.round_id)) {
      this.commitmentsSeen.set(`${e.round_id}/${e.slot}`, e.commitment);
    } else if (e.type === "round_opened" && typeof e.escrow_key === "string") {
      this.escrowKeys.set(e.round_id, e.escrow_key);
    } else if (e.type === "round_closed") {
      this.closedRounds.add(e.round_id);
    }
    this.changed();
  }
  committedSlots(roundId) {
    // done slots: committed, or timed out on their own time in a fixed-order round (P-S1)
    return new Set(this.record.filter((e) => (e.type === "committed" || e.type === "slot_timed_out") && e.round_id === roundId)
      .map((e) => e.slot));
  }
}

/** One joined chat channel: messages {id, player_id, name, text, ts}, oldest first. Shown as
 * text by whoever displays them: a message is never HTML. */
export class ChatLog {
  constructor(tableId, gameId) {
    this.tableId = tableId;
    this.gameId = gameId;
    this.channel = null;
    this.messages = [];
    this.joined = false;
    this.waiters = [];
  }
  add(line) {
    if (this.messages.some((m) => m.id === line.id)) return;
    this.messages.push({ id: line.id, player_id: line.player_id, name: line.name, text: line.text, ts: line.ts });
  }
  changed() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
  wait(timeoutMs = 1000) {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      setTimeout(resolve, timeoutMs);
    });
  }
}

/** The escrow key of a round, from its round_opened record entry. That entry may arrive a
 * little after the view that offers the round: until then the key of the game's latest round
 * (the escrow has one key; another would be refused with escrow/bad_seal); in the game's
 * first round, wait for it (escrow/no_round if it never comes, 10 s). */
export async function escrowKeyOf(game, roundId) {
  for (let i = 0; i < 100 && !game.escrowKeys.size; i++) await game.wait(100);
  const key = game.escrowKeys.get(roundId) ?? [...game.escrowKeys.values()].pop();
  if (key === undefined) throw new ApiError("escrow/no_round", `round ${roundId} was never opened by the escrow`);
  return key;
}

