// The client: HTTP for the lobby (HttpApi), one WebSocket for play, resumed after a drop: it
// reconnects, re-watches every game from its last seq and record id and re-sends unanswered
// commands under the same cmd_id (section 2 of docs/protocol.md). Its "My games" (the HTTP
// list and the `my_game` frames that keep it) are my-games.mjs's.

import { randomBytes } from "node:crypto";

import { ApiError, TRANSIENT_CODES } from "./errors.mjs";
import { commitment, sealOpening, SessionKey } from "./fairness.mjs";
import { MyGamesApi } from "./my-games.mjs";
import { ChatLog, escrowKeyOf, GameSession, newId, sleep } from "./session.mjs";

// Watches are sent at protocol version 3 (docs/protocol.md "Frames per state change"): one
// `view` frame per state change whose `records` carry the record entries up to it (applied
// before the view), and `records` frames for the entries of no view.
export const WATCH_VERSION = 3;

/** A refused watch that may pass if sent again (a game not yet visible, too). As in the SDK
 * (clients/sdk/connection.py): sent again after WATCH_BACKOFF_MS[n] (the last one repeats), at
 * most WATCH_TRIES times in a row for a game (a frame of the game resets the count). */
export const WATCH_AGAIN = new Set([...TRANSIENT_CODES, "game/not_found"]);
export const WATCH_BACKOFF_MS = [200, 400, 800, 1600, 3200, 5000];
export const WATCH_TRIES = 12;

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

export class Client extends MyGamesApi {
  constructor(baseUrl) {
    super(baseUrl);
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

  session(d) {
    if ((d.session_id ?? null) !== this.sessionId) {
      // a new session gets a new key: the lobby binds a session's first key to it
      this.sessionKey = new SessionKey();
      this.keyFor = null;
    }
    return super.session(d);
  }

  /** Register the session key for the token's player (once per player). */
  async registerSessionKey() {
    if (this.keyFor !== null && (this.playerId === null || this.keyFor === this.playerId)) return;
    const d = await this.call("POST", "/api/session-keys", { key: this.sessionKey.public });
    this.keyFor = d.player_id;
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
    // one of this player's games changed who it waits for, or ended: whatever it watches
    if (msg.type === "my_game") return this.onMyGameFrame(msg);
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
