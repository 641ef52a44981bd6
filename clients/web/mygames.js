// "My games": every game of the signed-in player, the ones waiting for it first (the oldest
// wait first) with the time left on its clock in days, hours or minutes (GET /api/me/games;
// format.js writes the clocks),
// kept up to date by the socket's my_game frames (docs/protocol.md, section 1.1 "My games").
// The header's "My games" link counts the games waiting for the player.

import { api, session } from "./api.js";
import { $, fill, h, table } from "./dom.js";
import { duration } from "./format.js";

let socket = null;
let games = new Map(); // game id -> its entry (the newest seen)
let offsetMs = 0; // the server's clock minus this browser's
let open = false;
let ticker = null;
let titleOf = (name) => name;

/** Time left as people read it ("4 days 23 h", "2 h 59 min"): the page's one formatter. */
export function clockText(ms) {
  return ms === null || ms === undefined ? "no clock" : duration(ms);
}

function ordered() {
  const rank = (g) => (g.my_turn ? 0 : g.ended ? 2 : 1);
  return [...games.values()].sort((a, b) => rank(a) - rank(b)
    || (rank(a) === 0 ? a.since_ms - b.since_ms : b.at_ms - a.at_ms)
    || (a.game_id < b.game_id ? -1 : 1));
}

function badge() {
  const el = $("mygames-count");
  if (!el) return;
  const n = [...games.values()].filter((g) => g.my_turn).length;
  fill(el, n ? String(n) : "");
  el.title = n ? `${n} game${n > 1 ? "s" : ""} waiting for you` : "";
}

function render() {
  badge();
  if (!open) return;
  const now = Date.now() + offsetMs;
  const list = ordered();
  const rows = list.map((g) => {
    const left = g.my_turn && g.deadline_ms ? g.deadline_ms - now : null;
    const state = g.ended ? "ended" : g.my_turn ? "your turn"
      : g.pace !== "turn-based" ? "live: its table shows whose move it is"
      : g.waiting.length ? `waiting for ${g.waiting.length} other seat${g.waiting.length > 1 ? "s" : ""}` : "in play";
    return h("tr", { class: g.my_turn ? "my-turn" : "", dataset: { game: g.game_id, turn: g.my_turn ? "mine" : "" } },
      h("td", titleOf(g.game)), h("td", g.pace === "turn-based" ? "turn-based" : "real-time"),
      h("td.state", state), h("td.clock", left === null ? "—" : `${clockText(left)} left`),
      h("td", g.ended ? h("a.button", { href: `#/replay/${g.game_id}` }, "Replay")
        : h("a.button", { href: `#/game/${g.game_id}` }, g.my_turn ? "Play" : "Open")));
  });
  fill($("mygames-body"), rows.length
    ? table(["Game", "Pace", "State", "Your clock", ""], rows, "mygames")
    : h("p.muted", "No games yet: start one from the lobby."));
}

function take(entry, nowMs) {
  const held = games.get(entry.game_id);
  if (!held || entry.seq >= held.seq) games.set(entry.game_id, entry);
  if (nowMs) offsetMs = nowMs - Date.now();
}

/** A socket frame: true when it was "My games"' (a my_game frame). */
export function onMessage(m) {
  if (m.type !== "my_game") return false;
  take(m.game, m.now_ms);
  render();
  return true;
}

/** Keep the socket open while the page shows "My games" (its frames arrive on it). */
export function attach(s, title) {
  socket = s;
  titleOf = title;
  const before = s.wanted;
  s.wanted = () => before() || open;
}

let primed = false;

/** Once per page load: the header's count before the page is opened. */
export function prime() {
  if (primed) return;
  primed = true;
  load().catch(() => { primed = false; });
}

export async function load() {
  const answer = await api("GET", "/api/me/games");
  games = new Map();
  for (const g of answer.games) take(g, answer.now_ms);
  render();
}

export async function show() {
  open = true;
  await load();
  if (socket && session.me) await socket.connect().catch(() => {});
  clearInterval(ticker);
  ticker = setInterval(render, 30000); // the clocks move; frames bring the changes
}

export function close() {
  open = false;
  clearInterval(ticker);
  ticker = null;
}

export function reset() {
  close();
  primed = false;
  games = new Map();
  badge();
}
