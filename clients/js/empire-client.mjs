#!/usr/bin/env node
// Empire Hall: a complete minimal client for Node 20+, with no npm dependencies: this file and
// the fairness module it shares with the web page (clients/web/fairness-core.mjs).
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
// The file is also a library: import { Client, commitment, playSeat, ... } from it.
// docs/write-your-own-client.md walks through it; docs/protocol.md is the reference.

import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

// Watches are sent at protocol version 3 (issue 25, docs/protocol.md "Frames per state
// change"): one `view` frame per state change whose `records` carry the record entries up to
// it (applied before the view), and `records` frames for the entries of no view.
export const WATCH_VERSION = 3;

// ---------------------------------------------------------------------------------------
// Fairness: the one JavaScript implementation the web page also runs (canonical JSON, LP,
// commitments, the dealer's draws and the verifier of a finished game), served by the gateway
// as /static/fairness-core.mjs; its vectors are tests/fixtures/fairness-vectors.json, checked
// by Python, Node and the browser alike.

import {
  canonical, commitment, verifyRecord,
} from "../web/fairness-core.mjs";
import { sealOpening } from "../web/seal.mjs";
import { SessionKey } from "../web/signing.mjs";

export {
  ESCROW_DOMAIN, DEFAULT_DOMAIN, SEED_DOMAIN, GAME_KEY_DOMAIN, lp, canonical, canonicalJson,
  sha256, hmac, commitment, defaultCommitment, commitmentsRoot, seedCommitment, gameKey, draw,
  verifyRecord,
} from "../web/fairness-core.mjs";
export { sealOpening, openSealed } from "../web/seal.mjs";
export { SessionKey, message as signedMessage } from "../web/signing.mjs";

// ---------------------------------------------------------------------------------------
// WebSocket: the platform's (WHATWG WebSocket: stable in Node 22+, behind
// --experimental-websocket in Node 20 and 21, in every browser and Deno/Bun)

export const NO_WEBSOCKET =
  "this platform has no WebSocket (globalThis.WebSocket): use Node 22 or newer, "
  + "or run Node 20/21 with --experimental-websocket";

/** A WebSocket to `url` from the platform, or a clear error when there is none. */
export function openSocket(url) {
  const Impl = globalThis.WebSocket;
  if (typeof Impl !== "function") throw new Error(NO_WEBSOCKET);
  return new Impl(url);
}

// ---------------------------------------------------------------------------------------
// The client: HTTP for the lobby, one WebSocket for play

/** Refusals that say the message was not taken and may be sent again as it is. */
export const TRANSIENT_CODES = new Set(["message/unavailable", "message/rate_limited"]);
/** A refused watch that may pass if sent again (a game not yet visible, too). As in the SDK
 * (clients/sdk/client.py): sent again after WATCH_BACKOFF_MS[n] (the last one repeats), at
 * most WATCH_TRIES times in a row for a game (a frame of the game resets the count). */
export const WATCH_AGAIN = new Set([...TRANSIENT_CODES, "game/not_found"]);
export const WATCH_BACKOFF_MS = [200, 400, 800, 1600, 3200, 5000];
export const WATCH_TRIES = 12;

export class ApiError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.code = code;
  }

  get transient() { return TRANSIENT_CODES.has(this.code); }
}

const newId = (prefix) => prefix + randomBytes(8).toString("hex");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

export class Client {
  constructor(baseUrl) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.token = null; // the access token (minutes) or a bot's seat token
    this.refreshToken = null; // spent on every refresh, replaced
    this.accessExpiresMs = 0; // 0: unknown (a token handed in): never refreshed early
    this.sessionId = null;
    this.refreshing = null; // the refresh in flight, shared by concurrent callers
    this.playerId = null;
    this.ws = null;
    this.games = new Map();
    this.chats = new Map(); // "t:<table>" / "g:<game>" -> ChatLog (table talk, opt-in)
    this.muted = new Set(); // players whose messages this player does not see
    this.pending = new Map(); // cmd_id -> {text, resolve}: resent after a reconnect
    this.resent = new Set(); // cmd ids sent again after a reconnect
    this.closing = false;
    this.reconnects = 0;
    this.failure = null; // set when reconnecting gave up
    this.rewatch = new Map(); // game id -> the timer of a refused watch's re-send
    this.rewatchTries = new Map(); // game id -> refusals in a row
    this.rewatched = 0; // watches sent again after a refusal that may pass
    // this session's Ed25519 key: every act and commit is signed with it, once the lobby has
    // registered it for the player (docs/protocol.md "Signed commands")
    this.sessionKey = new SessionKey();
    this.keyFor = null; // the player the key is registered for
  }

  /** Register the session key for the token's player (once per player). */
  async registerSessionKey() {
    if (this.keyFor !== null && (this.playerId === null || this.keyFor === this.playerId)) return;
    const d = await this.call("POST", "/api/session-keys", { key: this.sessionKey.public });
    this.keyFor = d.player_id;
  }

  /** One request; with a session the access token is refreshed first when it is about to
   * expire, and once more if the server says it expired. */
  async call(method, path, body, auth = true) {
    if (auth) await this.freshToken();
    try {
      return await this.callOnce(method, path, body, auth);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "auth/expired_token" || !auth || !this.refreshToken) throw err;
    }
    await this.refresh();
    return this.callOnce(method, path, body, auth);
  }

  async callOnce(method, path, body, auth) {
    const headers = { "content-type": "application/json" };
    if (this.token && auth) headers.authorization = `Bearer ${this.token}`;
    const r = await fetch(this.baseUrl + path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await r.json();
    if (r.status >= 400 || data?.ok === false) {
      throw new ApiError(data?.code ?? `http/${r.status}`, data?.message ?? "");
    }
    return data;
  }

  session(d) {
    this.token = d.token;
    this.playerId = d.player_id;
    this.refreshToken = d.refresh_token ?? null;
    this.accessExpiresMs = d.access_expires_ms ?? 0;
    this.sessionId = d.session_id ?? null;
    return d;
  }
  /** A new guest player, signed in. */
  async signIn(name) {
    return this.session(await this.call("POST", "/api/players", { name }, false));
  }
  /** Sign in to an account (from any device): the same player as before. */
  async signInPassword(name, password) {
    return this.session(await this.call("POST", "/api/session/password", { name, password }, false));
  }
  /** Make this guest an account in place (same player id), or change the password. */
  async setPassword(password, current = undefined) {
    return this.call("POST", "/api/account/password", current === undefined ? { password } : { password, current });
  }
  /** A new access token for the refresh token (which is spent: keep the new one). */
  async refresh() {
    if (!this.refreshing) {
      this.refreshing = (async () => {
        if (!this.refreshToken) throw new ApiError("auth/refresh_invalid", "no session to refresh");
        return this.session(await this.callOnce("POST", "/api/session/refresh", { refresh_token: this.refreshToken }, false));
      })().finally(() => { this.refreshing = null; });
    }
    return this.refreshing;
  }
  async freshToken(marginMs = 30000) {
    if (this.refreshing) await this.refreshing.catch(() => {});
    if (this.refreshToken && this.accessExpiresMs && this.accessExpiresMs - Date.now() < marginMs) {
      await this.refresh();
    }
  }
  async signOut() {
    await this.call("POST", "/api/session/sign-out");
    this.token = this.refreshToken = this.sessionId = null;
  }
  async sessions() {
    return (await this.call("GET", "/api/sessions")).sessions;
  }
  async revokeSession(sessionId) {
    return this.call("DELETE", `/api/sessions/${encodeURIComponent(sessionId)}`);
  }
  async createTable(game, seats, options = {}) {
    return (await this.call("POST", "/api/tables", { game, seats, options })).table;
  }
  async addBot(tableId, kind = "heuristic") {
    return (await this.call("POST", `/api/tables/${tableId}/bots`, { kind })).table;
  }
  async start(tableId) {
    return (await this.call("POST", `/api/tables/${tableId}/start`)).game_id;
  }
  async record(gameId) {
    return this.call("GET", `/api/matches/${gameId}/record`);
  }
  async result(gameId) {
    return this.call("GET", `/api/matches/${gameId}/result`);
  }
  /** A finished game's audit bundle (verifyGame takes it as it is); ApiError
   * replay/not_ended before the end. */
  async audit(gameId) {
    return this.call("GET", `/api/matches/${gameId}/audit`);
  }

  wsUrl() {
    return this.baseUrl.replace(/^http/, "ws") + "/ws"; // the token goes in the first frame
  }

  /** Open the socket and authenticate with the first frame; resolves on "welcome". */
  async connect() {
    await this.freshToken();
    return new Promise((resolve, reject) => {
      const ws = openSocket(this.wsUrl());
      let welcomed = false;
      ws.onopen = () => ws.send(JSON.stringify({ type: "auth", token: this.token }));
      ws.onmessage = (ev) => {
        const msg = JSON.parse(typeof ev.data === "string" ? ev.data : String(ev.data));
        if (!welcomed) {
          welcomed = true;
          if (msg.type !== "welcome") return reject(new ApiError(msg.code, msg.message));
          this.ws = ws;
          return resolve(msg);
        }
        this.dispatch(msg);
      };
      ws.onerror = () => {};
      ws.onclose = () => {
        if (!welcomed) return reject(new Error("connection closed before welcome"));
        if (this.ws === ws && !this.closing) {
          this.reconnect().catch((err) => { this.failure = err; });
        }
      };
    });
  }

  /** Resume every game from its last seq and record id, then re-send unanswered commands
   * under the same cmd_id (the server applies a command id at most once). */
  async reconnect() {
    this.ws = null;
    for (const delay of [100, 200, 500, 1000, 2000, 2000, 5000, 5000]) {
      await sleep(delay);
      if (this.closing) return;
      try {
        await this.connect();
      } catch {
        continue;
      }
      this.reconnects++;
      for (const g of this.games.values()) {
        this.send({ type: "watch", v: WATCH_VERSION, game_id: g.gameId, after_seq: g.seq,
          after_record: g.recordId });
      }
      for (const c of this.chats.values()) { // the history fills the gap (ids are merged)
        this.send({ type: "chat_join", table_id: c.tableId, game_id: c.gameId });
      }
      for (const [cmdId, p] of this.pending) {
        this.resent.add(cmdId);
        this.ws.send(p.text);
      }
      return;
    }
    throw new Error("could not reconnect");
  }

  send(msg) {
    if (this.ws) this.ws.send(JSON.stringify(msg)); // while away, reconnect() catches up
  }

  dispatch(msg) {
    if (msg.type === "chat" || msg.type === "chat_history" || msg.type === "chat_mutes") {
      return this.onChat(msg); // never a GameSession's: a bot's seat never sees chat
    }
    const game = this.games.get(msg.game_id);
    if ((msg.type === "view" || msg.type === "record" || msg.type === "records") && game) {
      this.rewatchTries.delete(game.gameId);
    }
    if (msg.type === "view" && game) { // v3: the entries up to this state change come first
      for (const item of msg.records ?? []) game.onRecord(item);
      return game.onView(msg);
    }
    if (msg.type === "record" && game) return game.onRecord(msg);
    if (msg.type === "records" && game) { // v3: entries that belong to no view, in order
      for (const item of msg.records) game.onRecord(item);
      return;
    }
    // a refused watch (no cmd_id, the game named) that may pass: sent again shortly, whoever
    // sent it (the reconnect's resumed watch too: without this a gateway cut off from storage
    // leaves the seat deaf to its game, its turns waiting out their deadlines)
    if (msg.type === "rejected" && !msg.cmd_id && game && WATCH_AGAIN.has(msg.code)
        && this.watchAgain(game)) return undefined;
    const p = msg.cmd_id ? this.pending.get(msg.cmd_id) : undefined;
    // a re-sent command's refusal is no refusal when its first copy was applied before the
    // drop (command/duplicate); a re-sent commit's first reply goes to commit(), which checks
    const chatCmd = Boolean(p?.chat); // chat refusals never touch a GameSession
    if (msg.type === "rejected" && game && !chatCmd && !(this.resent.has(msg.cmd_id)
        && (p || msg.code === "command/duplicate"))) {
      game.rejections.push(msg);
      game.changed();
    }
    if (p) {
      this.pending.delete(msg.cmd_id);
      p.resolve(msg);
    }
  }

  /** Send a command and resolve with its first reply ("accepted"/"committed"/"rejected"). */
  command(msg, timeoutMs = 30000) {
    return new Promise((resolve, reject) => {
      const text = JSON.stringify(msg);
      const timer = setTimeout(() => {
        this.pending.delete(msg.cmd_id);
        reject(new Error(`no reply to ${msg.cmd_id}`));
      }, timeoutMs);
      this.pending.set(msg.cmd_id, { text, resolve: (m) => { clearTimeout(timer); resolve(m); } });
      if (this.ws) this.ws.send(text);
    });
  }

  // -- table talk (docs/protocol.md, "Table talk") ------------------------------------------

  onChat(msg) {
    if (msg.type === "chat_mutes") { this.muted = new Set(msg.muted); return; }
    const log = this.chats.get(msg.table_id ? `t:${msg.table_id}` : `g:${msg.game_id}`);
    if (!log) return;
    if (msg.type === "chat_history") {
      log.channel = msg.channel;
      this.muted = new Set(msg.muted || []);
      for (const line of msg.messages) log.add(line);
      log.joined = true;
    } else {
      log.add(msg);
    }
    log.changed();
  }

  chatCommand(msg) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.pending.delete(msg.cmd_id); reject(new Error(`no reply to ${msg.cmd_id}`)); }, 30000);
      this.pending.set(msg.cmd_id, { text: JSON.stringify(msg), chat: true, resolve: (m) => {
        clearTimeout(timer);
        if (m.type === "rejected") reject(new ApiError(m.code, m.message)); else resolve(m);
      } });
      if (this.ws) this.ws.send(JSON.stringify(msg));
    });
  }

  /** Follow a table's chat ({tableId}) or a game's ({gameId}); resolves with its ChatLog once
   * the history arrived (a seat gets the seats' channel, anyone else the spectators'). */
  async chatJoin({ tableId = null, gameId = null }, timeoutMs = 30000) {
    if (!this.ws) await this.connect();
    const key = tableId ? `t:${tableId}` : `g:${gameId}`;
    const log = this.chats.get(key) || new ChatLog(tableId, gameId);
    this.chats.set(key, log);
    log.joined = false;
    let refused = null;
    const cmdId = newId("j");
    this.chatCommand({ type: "chat_join", cmd_id: cmdId, table_id: tableId, game_id: gameId })
      .catch((e) => { refused = e; log.changed(); });
    const deadline = Date.now() + timeoutMs;
    while (!log.joined) {
      if (refused) { this.chats.delete(key); throw refused; }
      if (Date.now() > deadline) throw new Error(`no chat history for ${key}`);
      await log.wait(500);
    }
    this.pending.delete(cmdId); // a history, not an "accepted", answers a join
    return log;
  }

  chatLeave({ tableId = null, gameId = null }) {
    this.chats.delete(tableId ? `t:${tableId}` : `g:${gameId}`);
    this.send({ type: "chat_leave", table_id: tableId, game_id: gameId });
  }

  /** Post a message; resolves with its id (cmd_id), or rejects with an ApiError (chat/*). */
  async chat(text, { tableId = null, gameId = null, channel = null, cmdId = null } = {}) {
    if (!this.ws) await this.connect();
    const joined = this.chats.get(tableId ? `t:${tableId}` : `g:${gameId}`);
    const ch = channel || joined?.channel || (tableId ? "table" : "seats");
    const id = cmdId || newId("m");
    await this.chatCommand({ type: "chat", cmd_id: id, channel: ch, table_id: tableId, game_id: gameId, text });
    return id;
  }

  /** Hide (or show again) a player's messages, for this player only. */
  async chatMute(playerId, muted = true) {
    await this.chatCommand({ type: "chat_mute", cmd_id: newId("u"), player_id: playerId, muted });
    if (muted) this.muted.add(playerId); else this.muted.delete(playerId);
  }

  /** Report a message (its id) of a channel this player reads to the operators. */
  async chatReport(msgId, { tableId = null, gameId = null, channel = null, reason = "" } = {}) {
    const joined = this.chats.get(tableId ? `t:${tableId}` : `g:${gameId}`);
    const ch = channel || joined?.channel || (tableId ? "table" : "seats");
    await this.chatCommand({ type: "chat_report", cmd_id: newId("r"), channel: ch, table_id: tableId,
      game_id: gameId, msg_id: msgId, reason });
  }

  /** Follow a game (as its seat when seated, else as a spectator) until the first view. */
  async watch(gameId, timeoutMs = 30000) {
    if (!this.ws) await this.connect();
    let g = this.games.get(gameId);
    if (!g) {
      g = new GameSession(gameId);
      this.games.set(gameId, g);
    }
    this.send({ type: "watch", v: WATCH_VERSION, game_id: gameId, after_seq: g.seq,
      after_record: g.recordId });
    const deadline = Date.now() + timeoutMs; // (a refusal that may pass: watchAgain)
    while (!g.view) {
      if (Date.now() > deadline) throw new Error(`no view of ${gameId}`);
      await g.wait(500);
    }
    return g;
  }

  /** A watch of `game` was refused by a refusal that may pass: send it again from where the
   * session stands, after a backoff. False when the tries are spent (the refusal is the
   * caller's). */
  watchAgain(game) {
    const gid = game.gameId;
    if (this.rewatch.has(gid)) return true; // a re-send is on its way
    const tries = this.rewatchTries.get(gid) ?? 0;
    if (tries >= WATCH_TRIES || this.closing) return false;
    this.rewatchTries.set(gid, tries + 1);
    const delay = WATCH_BACKOFF_MS[Math.min(tries, WATCH_BACKOFF_MS.length - 1)];
    this.rewatch.set(gid, setTimeout(() => {
      this.rewatch.delete(gid);
      if (this.closing || this.games.get(gid) !== game) return; // closed or unwatched
      this.rewatched++;
      this.send({ type: "watch", v: WATCH_VERSION, game_id: gid, after_seq: game.seq,
        after_record: game.recordId });
    }, delay));
    return true;
  }

  /** Take an action in a turn, based on the view at expectedSeq. Resolves on "accepted";
   * the adjudicator's refusal, if any, arrives later in game.rejections. */
  async act(game, action, expectedSeq = game.seq) {
    const cmdId = newId("c");
    await this.registerSessionKey();
    const reply = await this.command({ type: "act", cmd_id: cmdId, game_id: game.gameId,
      expected_seq: expectedSeq, action,
      ...this.sessionKey.signAct(game.gameId, game.seat, cmdId, action, expectedSeq) });
    if (reply.type === "rejected") throw new ApiError(reply.code, reply.message);
  }

  /** Commit a sealed choice: the commitment and its opening, sealed to the escrow key of the
   * round's round_opened entry (only the escrow can read it), go to the escrow, which answers
   * with a receipt ("committed"); only the commitment is ever published before the close. */
  async commit(game, roundId, slot, choice, publicPart = null) {
    const escrowKey = await escrowKeyOf(game, roundId);
    const nonce = randomBytes(32).toString("hex");
    const c = commitment(game.gameId, roundId, slot, game.seat, choice, nonce);
    const sealed = sealOpening(escrowKey, game.gameId, roundId, slot, game.seat, choice, nonce);
    const key = `${roundId}/${slot}`;
    const receipt = { round_id: roundId, slot, choice, nonce, commitment: c, escrow_key: escrowKey,
      acknowledged: false };
    game.receipts.set(key, receipt);
    // a commit not acknowledged (refused, not taken, no answer) leaves no receipt, so the
    // slot is committed again instead of waiting for the round's deadline
    const forget = () => { if (game.receipts.get(key) === receipt) game.receipts.delete(key); };
    let reply;
    try {
      const cmdId = newId("k");
      await this.registerSessionKey();
      reply = await this.command({ type: "commit", v: 2, cmd_id: cmdId, game_id: game.gameId,
        round_id: roundId, slot, commitment: c, sealed, public: publicPart,
        ...this.sessionKey.signCommit(game.gameId, game.seat, cmdId, roundId, slot, c, sealed,
          publicPart) });
    } catch (err) {
      forget();
      throw err;
    }
    if (reply.type === "rejected") {
      const mine = game.commitmentsSeen.get(key) === c; // a re-sent copy of an accepted one
      if (!(mine && ["escrow/already_committed", "escrow/closed"].includes(reply.code))) {
        forget();
        throw new ApiError(reply.code, reply.message);
      }
    }
    receipt.acknowledged = true;
    return receipt;
  }

  /** Drop the connection as a network failure would: the client resumes on its own. */
  drop() {
    this.ws?.close();
  }

  close() {
    this.closing = true;
    for (const timer of this.rewatch.values()) clearTimeout(timer);
    this.rewatch.clear();
    this.ws?.close();
  }
}

// ---------------------------------------------------------------------------------------
// Verification

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

/** The escrow key of a round, from its round_opened record entry. That entry may arrive a
 * little after the view that offers the round: until then the key of the game's latest round
 * (the escrow has one key; another would be refused with escrow/bad_seal); in the game's
 * first round, wait for it (escrow/no_round if it never comes, 10 s). */
async function escrowKeyOf(game, roundId) {
  for (let i = 0; i < 100 && !game.escrowKeys.size; i++) await game.wait(100);
  const key = game.escrowKeys.get(roundId) ?? [...game.escrowKeys.values()].pop();
  if (key === undefined) throw new ApiError("escrow/no_round", `round ${roundId} was never opened by the escrow`);
  return key;
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

// ---------------------------------------------------------------------------------------
// Playing a seat

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
