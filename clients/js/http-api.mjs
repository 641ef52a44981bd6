// The client's HTTP half: one request with its access token refreshed, the player's account
// and sessions, tables and finished games (docs/protocol.md "Accounts and sessions").

import { ApiError } from "./errors.mjs";

export class HttpApi {
  constructor(baseUrl) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.token = null; // the access token (minutes) or a bot's seat token
    this.refreshToken = null; // spent on every refresh, replaced
    this.accessExpiresMs = 0; // 0: unknown (a token handed in): never refreshed early
    this.sessionId = null;
    this.refreshing = null; // the refresh in flight, shared by concurrent callers
    this.playerId = null;
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
  /** A new table; `extra` takes the table's other fields (`pace`, `turn_timeout_ms`,
   * `round_timeout_ms`, `time_bank_ms`: docs/protocol.md section 1.1 "Pace"). */
  async createTable(game, seats, options = {}, extra = {}) {
    return (await this.call("POST", "/api/tables", { game, seats, options, ...extra })).table;
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
}
