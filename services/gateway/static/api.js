// HTTP API (services/gateway/app.py) and the one WebSocket per player (ws.py, hub.py).

const STORE = "empire-hall";

export const session = {
  me: JSON.parse(localStorage.getItem(STORE) || "null"), // {player_id, name, token}
  save(me) { this.me = me; localStorage.setItem(STORE, JSON.stringify(me)); },
  clear() { this.me = null; localStorage.removeItem(STORE); },
};

export class ApiError extends Error {
  constructor(code, message, status) { super(`${code}: ${message}`); this.code = code; this.status = status; }
}

export async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (session.me) headers.Authorization = "Bearer " + session.me.token;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await r.json(); } catch { /* not JSON */ }
  if (!r.ok || (data && data.ok === false)) {
    throw new ApiError((data && data.code) || String(r.status), (data && (data.message || data.detail)) || r.statusText, r.status);
  }
  return data;
}

export const cmdId = () => "w" + Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");

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
  }

  connect() {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) return Promise.resolve();
    if (this.opening) return this.opening;
    this.closedByUs = false;
    const url = location.origin.replace(/^http/, "ws") + "/ws?token=" + encodeURIComponent(session.me.token);
    this.opening = new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => { this.ws = ws; this.opening = null; resolve(); };
      ws.onerror = () => { this.opening = null; reject(new Error("websocket failed")); };
      ws.onmessage = (ev) => this.onMessage(JSON.parse(ev.data));
      ws.onclose = (ev) => {
        this.ws = null;
        this.opening = null;
        if (ev.code === 4401) { // the token is no longer valid (e.g. the server's secret changed)
          this.watching = null;
          if (this.onAuthLost) this.onAuthLost();
        } else if (!this.closedByUs && this.watching) setTimeout(() => this.resume(), 1000);
      };
    });
    clearInterval(this.ping);
    this.ping = setInterval(() => this.send({ type: "ping" }), 25000);
    return this.opening;
  }

  async resume() {
    try {
      await this.connect();
      const w = this.watching;
      if (w) this.send({ type: "watch", game_id: w.game_id, after_seq: w.seq, after_record: w.record });
    } catch {
      setTimeout(() => this.resume(), 2000);
    }
  }

  async watch(gameId) {
    if (this.watching && this.watching.game_id !== gameId) this.unwatch();
    this.watching = { game_id: gameId, seq: -1, record: "0-0" };
    await this.connect();
    this.send({ type: "watch", game_id: gameId });
  }

  unwatch() {
    if (this.watching) this.send({ type: "unwatch", game_id: this.watching.game_id });
    this.watching = null;
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) { this.ws.send(JSON.stringify(msg)); return true; }
    return false;
  }

  close() {
    this.closedByUs = true;
    this.watching = null;
    clearInterval(this.ping);
    if (this.ws) this.ws.close();
  }
}
