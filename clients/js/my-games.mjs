// "My games" in the JavaScript client, as in the SDK (clients/sdk/my_games.py): every game of
// the signed-in player, the ones waiting for it first (GET /api/me/games), kept up to date by
// the WebSocket's `my_game` frames (docs/protocol.md, section 1.1 "My games"), and clocks as
// people read them.

import { HttpApi } from "./http-api.mjs";

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Time left as a player reads it, as the web page writes it (clients/web/format.js):
 * "4 days 23 h", "1 day", "5 h 12 min", "7 min", "45 s" (rounded down; null: no clock). */
export function clockText(ms) {
  if (ms === null || ms === undefined) return "no clock";
  const t = Math.max(0, Math.trunc(Number(ms)));
  if (t >= DAY_MS) {
    const hours = Math.floor(t / HOUR_MS);
    const d = Math.floor(hours / 24);
    const h = hours % 24;
    const days = d === 1 ? `${d} day` : `${d} days`;
    return h ? `${days} ${h} h` : days;
  }
  if (t >= HOUR_MS) {
    const minutes = Math.floor(t / MINUTE_MS);
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  if (t >= MINUTE_MS) return `${Math.floor(t / MINUTE_MS)} min`;
  return `${Math.floor(t / 1000)} s`;
}

/** The server's order: waiting for me (oldest wait first), running (latest change first),
 * ended (latest first); the game id breaks ties. */
export function orderedGames(games) {
  const key = (g) => (g.my_turn
    ? [0, Number(g.since_ms ?? 0), g.game_id]
    : [g.ended ? 2 : 1, -Number(g.at_ms ?? 0), g.game_id]);
  const cmp = (a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < 2; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
    return ka[2] < kb[2] ? -1 : ka[2] > kb[2] ? 1 : 0;
  };
  return [...games].sort(cmp);
}

/** The HTTP half with "My games": the local copy (`myGamesById`, game id -> the newest entry
 * seen) is filled by myGames() and kept by the `my_game` frames the Client hands to
 * onMyGameFrame(); `onMyGames(game, client)`, when set, is called on every change (so a bot or
 * a UI learns "your turn" without polling), and waitMyGames() resolves on the next one. */
export class MyGamesApi extends HttpApi {
  constructor(baseUrl) {
    super(baseUrl);
    this.myGamesById = new Map();
    this.clockOffsetMs = 0; // the server's clock minus this machine's, from the last answer
    this.onMyGames = null;
    this.myGamesWaiters = [];
  }

  /** Every game of this player, waiting for it first (and the local copy refreshed). */
  async myGames() {
    const answer = await this.call("GET", "/api/me/games");
    this.clockOffsetMs = Number(answer.now_ms ?? 0) - Date.now();
    this.myGamesById = new Map(answer.games.map((g) => [g.game_id, g]));
    this.myGamesChanged(null);
    return [...answer.games];
  }

  /** The local copy, in the server's order (kept by the `my_game` frames). */
  myGamesNow() {
    return orderedGames([...this.myGamesById.values()]);
  }

  /** Time left on this player's clock in `game` (null: it does not wait for this player). */
  timeLeftMs(game) {
    if (!game.my_turn || game.deadline_ms === null || game.deadline_ms === undefined) return null;
    return Math.max(0, Number(game.deadline_ms) - (Date.now() + this.clockOffsetMs));
  }

  /** A `my_game` frame: its entry replaces the one held unless that one is newer (a frame
   * of an older seq arriving late changes nothing of the game). */
  onMyGameFrame(msg) {
    const game = msg.game;
    if (game === null || typeof game !== "object" || typeof game.game_id !== "string") return;
    const held = this.myGamesById.get(game.game_id);
    if (held === undefined || Number(game.seq ?? 0) >= Number(held.seq ?? 0)) {
      this.myGamesById.set(game.game_id, game);
    }
    if (msg.now_ms) this.clockOffsetMs = Number(msg.now_ms) - Date.now();
    this.myGamesChanged(this.myGamesById.get(game.game_id));
  }

  /** Resolves on the next change of the local copy, or after timeoutMs. */
  waitMyGames(timeoutMs = 1000) {
    return new Promise((resolve) => {
      this.myGamesWaiters.push(resolve);
      setTimeout(resolve, timeoutMs);
    });
  }

  myGamesChanged(game) {
    const w = this.myGamesWaiters;
    this.myGamesWaiters = [];
    w.forEach((resolve) => resolve());
    // a callback that throws is the caller's bug, never the socket's: it must not stop the
    // frames that follow
    try {
      this.onMyGames?.(game, this);
    } catch (err) {
      console.error(`onMyGames: ${err?.message ?? err}`);
    }
  }
}
