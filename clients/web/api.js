// HTTP API (services/gateway/app.py) and the one WebSocket per player
// (services/gateway/edge/websocket.py).

import { SessionKey } from "./signing.mjs";

const STORE = "empire-hall";

// {player_id, name, token (access, minutes), refresh_token (spent on every refresh),
//  access_expires_ms, session_id, account}
export const session = {
  me: JSON.parse(localStorage.getItem(STORE) || "null"),
  save(me) { this.me = me; localStorage.setItem(STORE, JSON.stringify(me)); },
  clear() { this.me = null; localStorage.removeItem(STORE); },
};

let refreshing = null; // one refresh at a time: a spent refresh token must not be sent twice

/** A new access token for the stored refresh token (which the server spends). */
export function refresh() {
  if (!refreshing) {
    // tabs share the stored refresh token: one refresh at a time across them (Web Locks), and
    // a tab that finds another tab's newer token takes it instead of spending the old one
    const run = async () => {
      const held = session.me;
      const stored = JSON.parse(localStorage.getItem(STORE) || "null");
      if (stored && held && stored.refresh_token !== held.refresh_token && stored.player_id === held.player_id) {
        session.me = stored;
        return stored;
      }
      if (!held || !held.refresh_token) throw new ApiError("auth/refresh_invalid", "no session", 401);
      const d = await raw("POST", "/api/session/refresh", { refresh_token: held.refresh_token }, false);
      session.save({ ...held, ...d });
      return d;
    };
    refreshing = (navigator.locks ? navigator.locks.request("empire-hall-refresh", run) : run())
      .finally(() => { refreshing = null; });
  }
  return refreshing;
}

/** Refresh the access token when it expires within 30 s. */
export async function freshToken() {
  if (refreshing) await refreshing.catch(() => {});
  const me = session.me;
  if (me && me.refresh_token && me.access_expires_ms && me.access_expires_ms - Date.now() < 30000) await refresh();
}

/** A refusal: ``message`` is the server's sentence (what happened, what to do next), shown to
 * the player as it is; ``code`` (e.g. lobby/quota) is for the program. */
export class ApiError extends Error {
  constructor(code, message, status) { super(message || `The server refused this (${code}).`); this.code = code; this.status = status; }
}

export async function api(method, path, body) {
  await freshToken();
  try {
    return await raw(method, path, body, true);
  } catch (exc) {
    if (!(exc instanceof ApiError) || exc.code !== "auth/expired_token" || !session.me?.refresh_token) throw exc;
  }
  await refresh();
  return raw(method, path, body, true);
}

async function raw(method, path, body, auth) {
  const headers = { "Content-Type": "application/json" };
  if (auth && session.me) headers.Authorization = "Bearer " + session.me.token;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await r.json(); } catch { /* not JSON */ }
  if (!r.ok || (data && data.ok === false)) {
    throw new ApiError((data && data.code) || String(r.status), (data && (data.message || data.detail)) || r.statusText, r.status);
  }
  return data;
}

export const cmdId = () => "w" + Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");

/** A refused watch that may pass if sent again, as the SDK and the Node client do it
 * (clients/sdk/client.py WATCH_AGAIN): after WATCH_BACKOFF_MS[n] (the last repeats), at most
 * WATCH_TRIES in a row (a frame of the game resets the count); then the page shows it. */
export const WATCH_AGAIN = new Set(["message/unavailable", "message/rate_limited", "game/not_found"]);
export const WATCH_BACKOFF_MS = [200, 400, 800, 1600, 3200, 5000];
export const WATCH_TRIES = 12;
/** The protocol version of a watch: 3 gets one `view` frame per state change with its record
 * entries in `records`, and `records` frames for the others (docs/protocol.md). */
export const WATCH_VERSION = 3;

/**
 * One WebSocket for the signed-in player. Watches one game at a time; resumes after a drop
 * from the last view seq and record id (Watch.after_seq / after_record).
 */
export class Socket {
  constructor(onMessage) {
    this.onMessage = onMessage;
    this.ws = null;
    this.watching = null; // {game_id, seq, record}
    this.opening = null;
    this.closedByUs = false;
    this.ping = null;
    this.rewatchTimer = null; // a refused watch's re-send, on its way
    this.rewatchTries = 0;
    this.retryMs = 1000; // the wait before reconnecting after a drop (doubles, at most 10 s)
    this.wanted = () => false; // another reason to stay connected (chat.js: an open panel)
  }

  /** Whether ``m`` was a refusal of this socket's watch that is being sent again (the page
   * need not hear of it): the resumed watch after a drop meets a gateway cut off from its
   * storage, or the connection's rate, and would otherwise leave the board frozen. */
  watchRefused(m) {
    const w = this.watching;
    if (!w || m.game_id !== w.game_id) return false;
    if (m.type === "view" || m.type === "record" || m.type === "records") {
      this.rewatchTries = 0;
      return false;
    }
    if (m.type !== "rejected" || m.cmd_id || !WATCH_AGAIN.has(m.code)) return false;
    if (this.rewatchTimer) return true;
    if (this.rewatchTries >= WATCH_TRIES) return false;
    const delay = WATCH_BACKOFF_MS[Math.min(this.rewatchTries, WATCH_BACKOFF_MS.length - 1)];
    this.rewatchTries += 1;
    this.rewatchTimer = setTimeout(() => {
      this.rewatchTimer = null;
      const v = this.watching;
      if (v && v.game_id === m.game_id) {
        this.send({ type: "watch", v: WATCH_VERSION, game_id: v.game_id, after_seq: v.seq,
          after_record: v.record });
      }
    }, delay);
    return true;
  }

  connect() {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) return Promise.resolve();
    if (this.opening) return this.opening;
    this.closedByUs = false;
    const url = location.origin.replace(/^http/, "ws") + "/ws"; // the token goes in the first frame
    this.opening = freshToken().catch(() => {}).then(() => new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => {
        ws.send(JSON.stringify({ type: "auth", token: session.me.token }));
        this.ws = ws; this.opening = null; this.retryMs = 1000; resolve();
      };
      ws.onerror = () => { this.opening = null; reject(new Error("websocket failed")); };
      ws.onmessage = (ev) => {
        const m = JSON.parse(ev.data);
        if (!this.watchRefused(m)) this.onMessage(m);
      };
      ws.onclose = (ev) => {
        this.ws = null;
        this.opening = null;
        // a drop the page did not ask for: back again while a game is watched or a chat
        // panel is open (its welcome frame makes chat.js join every panel again)
        const keepOpen = () => !this.closedByUs && (this.watching || this.wanted());
        if (ev.code === 4401) { // the token expired, or the session was revoked
          refresh().then(() => { if (keepOpen()) this.resume(); }, () => {
            this.watching = null;
            if (this.onAuthLost) this.onAuthLost();
          });
        } else if (keepOpen()) {
          setTimeout(() => this.resume(), this.retryMs);
          this.retryMs = Math.min(this.retryMs * 2, 10000);
        }
      };
    }));
    clearInterval(this.ping);
    this.ping = setInterval(() => this.send({ type: "ping" }), 25000);
    return this.opening;
  }

  async resume() {
    try {
      await this.connect();
      const w = this.watching;
      if (w) this.send({ type: "watch", v: WATCH_VERSION, game_id: w.game_id, after_seq: w.seq, after_record: w.record });
    } catch {
      // a failed attempt's close event schedules the next one (onclose), later each time
    }
  }

  async watch(gameId) {
    if (this.watching && this.watching.game_id !== gameId) this.unwatch();
    this.watching = { game_id: gameId, seq: -1, record: "0-0" };
    this.rewatchTries = 0;
    await this.connect();
    this.send({ type: "watch", v: WATCH_VERSION, game_id: gameId });
  }

  unwatch() {
    if (this.watching) this.send({ type: "unwatch", game_id: this.watching.game_id });
    this.watching = null;
    clearTimeout(this.rewatchTimer);
    this.rewatchTimer = null;
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) { this.ws.send(JSON.stringify(msg)); return true; }
    return false;
  }

  close() {
    this.closedByUs = true;
    this.watching = null;
    clearTimeout(this.rewatchTimer);
    this.rewatchTimer = null;
    clearInterval(this.ping);
    if (this.ws) this.ws.close();
  }
}

// ---- passkeys (WebAuthn): the server's JSON options <-> the browser's credential API -------

const b64u = {
  decode(s) {
    const b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    return Uint8Array.from(b, (c) => c.charCodeAt(0)).buffer;
  },
  encode(buf) {
    const b = String.fromCharCode(...new Uint8Array(buf));
    return btoa(b).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
};

function credentialJSON(cred) {
  const r = cred.response;
  const response = { clientDataJSON: b64u.encode(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = b64u.encode(r.attestationObject);
    if (r.getTransports) response.transports = r.getTransports();
  } else {
    response.authenticatorData = b64u.encode(r.authenticatorData);
    response.signature = b64u.encode(r.signature);
    if (r.userHandle) response.userHandle = b64u.encode(r.userHandle);
  }
  return { id: cred.id, rawId: b64u.encode(cred.rawId), type: cred.type, response,
    clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
    authenticatorAttachment: cred.authenticatorAttachment || undefined };
}

const ids = (list) => (list || []).map((c) => ({ ...c, id: b64u.decode(c.id) }));

/** Register a passkey for the signed-in player (a guest becomes an account). */
export async function addPasskey(label = "") {
  const begin = await api("POST", "/api/account/passkeys/begin");
  const o = begin.options;
  const cred = await navigator.credentials.create({ publicKey: { ...o, challenge: b64u.decode(o.challenge),
    user: { ...o.user, id: b64u.decode(o.user.id) }, excludeCredentials: ids(o.excludeCredentials) } });
  return api("POST", "/api/account/passkeys/finish", { challenge_id: begin.challenge_id, credential: credentialJSON(cred), label });
}

/** Sign in with a passkey (a discoverable one: the browser offers this site's passkeys). */
export async function signInPasskey() {
  const begin = await raw("POST", "/api/session/passkey/begin", {}, false);
  const o = begin.options;
  const cred = await navigator.credentials.get({ publicKey: { ...o, challenge: b64u.decode(o.challenge),
    allowCredentials: ids(o.allowCredentials) } });
  return raw("POST", "/api/session/passkey/finish", { challenge_id: begin.challenge_id, credential: credentialJSON(cred) }, false);
}

// The session's key (Ed25519): every act and commit is signed with it, once the lobby bound it
// to this session (docs/protocol.md "Signed commands"). The lobby binds a session's first key
// and takes another only signed over by that one, so the key is kept with the session
// (localStorage, beside its refresh token): this page's other tabs and a reload sign with the
// same key. A new session (a sign-in) makes a new key.
let held = null; // {sid, key, registered}: the key of the stored session
let registering = null;

function keyOfSession() {
  const me = session.me;
  const sid = (me && me.session_id) || null;
  if (held && held.sid === sid) return held;
  // the stored session is what the tabs share: a key another tab made for it is this one's
  const stored = JSON.parse(localStorage.getItem(STORE) || "null");
  const secret = (stored && stored.session_id === sid && stored.signing_key) || (me && me.signing_key);
  const key = secret ? new SessionKey(secret) : new SessionKey();
  if (!secret && stored && stored.session_id === sid) {
    // only the key is added to what is stored (this tab's copy may hold a spent refresh token)
    localStorage.setItem(STORE, JSON.stringify({ ...stored, signing_key: key.secretHex }));
  }
  if (me) session.me = { ...me, signing_key: key.secretHex };
  held = { sid, key, registered: false };
  return held;
}

/** The session key, bound to the signed-in session first (once per session). The tabs of a
 * session make and register its key one at a time (Web Locks), so they all take one key. */
export async function signingKey() {
  const run = async () => {
    const mine = keyOfSession();
    if (!mine.registered) {
      await api("POST", "/api/session-keys", { key: mine.key.public });
      mine.registered = true;
    }
    return mine;
  };
  const sid = (session.me && session.me.session_id) || null;
  if (!held || held.sid !== sid || !held.registered) {
    registering = registering || (navigator.locks ? navigator.locks.request("empire-hall-key", run) : run())
      .finally(() => { registering = null; });
    await registering;
  }
  return held.key;
}

/** Sign in to an account with its name and password. */
export function signInPassword(name, password) {
  return raw("POST", "/api/session/password", { name, password }, false);
}

/** A new guest (one click). */
export function signInGuest(name) {
  return raw("POST", "/api/players", { name }, false);
}
