// Table talk (docs/protocol.md, "Table talk"): one chat panel per table (before the start)
// and per game (a seat gets the seats' channel, a spectator the spectators'). Every name and
// message goes through textContent (dom.js): nothing typed by a player is parsed as HTML.
// Hooked in by app.js: chat.onMessage(frame) takes the chat frames (and the refusals of its
// own commands) before play.js sees anything.

import { h, fill, $ } from "./dom.js";

const MAX_CHARS = 500; // the gateway's default EMPIRE_CHAT_MAX_CHARS (it refuses longer: chat/too_long)
let socket = null;
let me = null;
let muted = new Set();
const names = new Map(); // player id -> the last name seen
const panels = new Map(); // container id -> panel
const mine = new Map(); // cmd_id -> {panel, what}

const CHANNEL_LABEL = {
  table: "Table chat (players at this table)",
  seats: "Players' chat (spectators never see it)",
  spectators: "Spectators' chat (players do not see it)",
};

const newId = (p) => p + Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
const keyOf = (place) => (place.table_id ? `t:${place.table_id}` : `g:${place.game_id}`);
const clock = (ts) => new Date(ts).toTimeString().slice(0, 5);

export function attach(s, whoami) {
  socket = s;
  me = whoami;
  socket.wanted = () => panels.size > 0; // a dropped socket comes back while a panel is open
}

/** Open a panel in the container for a place ({table_id} or {game_id}). */
export async function open(containerId, place) {
  const box = $(containerId);
  if (!box || !socket) return;
  const old = panels.get(containerId);
  if (old && old.key === keyOf(place)) {
    if (!old.channel) { await socket.connect(); join(old); } // refused before (not seated yet)
    return;
  }
  if (old) close(containerId);
  const panel = { containerId, place, key: keyOf(place), channel: null, ids: new Set() };
  panel.title = h("h3.chat-title", "Table talk");
  panel.lines = h("ol.chat-lines", { "aria-live": "polite" });
  panel.status = h("p.chat-status.muted");
  panel.mutedBox = h("p.chat-muted.muted");
  panel.input = h("input.chat-input", { type: "text", maxLength: MAX_CHARS, placeholder: "say something…", "aria-label": "chat message", autocomplete: "off" });
  panel.form = h("form.chat-form.row", { onsubmit: (e) => { e.preventDefault(); send(panel); } },
    panel.input, h("button.chat-send", { type: "submit" }, "Send"));
  fill(box, panel.title, panel.lines, panel.form, panel.status, panel.mutedBox);
  box.classList.add("chat");
  panels.set(containerId, panel);
  await socket.connect();
  join(panel);
}

export function close(containerId) {
  const panel = panels.get(containerId);
  if (!panel) return;
  panels.delete(containerId);
  if (socket) socket.send({ type: "chat_leave", ...panel.place });
  const box = $(containerId);
  if (box) fill(box);
}

export function closeAll(except) {
  for (const id of [...panels.keys()]) if (id !== except) close(id);
}

function join(panel) {
  const cmd_id = newId("j");
  mine.set(cmd_id, { panel, what: "join" });
  socket.send({ type: "chat_join", cmd_id, ...panel.place });
}

function send(panel) {
  const text = panel.input.value;
  if (!text.trim()) return;
  const channel = panel.channel || (panel.place.table_id ? "table" : "seats");
  const cmd_id = newId("m");
  mine.set(cmd_id, { panel, what: "send" });
  if (socket.send({ type: "chat", cmd_id, channel, text, ...panel.place })) {
    panel.input.value = "";
    fill(panel.status);
  } else { // the text stays in the box; the panel joins again once the socket is back
    fill(panel.status, "Not connected; reconnecting, try again in a moment.");
    socket.connect().catch(() => {});
  }
}

function mute(panel, playerId, on) {
  const cmd_id = newId("u");
  mine.set(cmd_id, { panel, what: on ? "mute" : "unmute", playerId });
  socket.send({ type: "chat_mute", cmd_id, player_id: playerId, muted: on });
}

function report(panel, line) {
  const cmd_id = newId("r");
  mine.set(cmd_id, { panel, what: "report" });
  socket.send({ type: "chat_report", cmd_id, channel: panel.channel, msg_id: line.id, ...panel.place });
}

function panelFor(frame) {
  const key = frame.table_id ? `t:${frame.table_id}` : `g:${frame.game_id}`;
  for (const p of panels.values()) if (p.key === key) return p;
  return null;
}

function addLine(panel, line) {
  if (panel.ids.has(line.id) || muted.has(line.player_id)) return;
  panel.ids.add(line.id);
  names.set(line.player_id, line.name);
  const self = me && me() && me().player_id === line.player_id;
  const tools = self ? null : h("span.chat-tools",
    h("button.link.chat-mute", { type: "button", title: `hide ${line.name}'s messages from you`, onclick: () => mute(panel, line.player_id, true) }, "mute"),
    h("button.link.chat-report", { type: "button", title: "report this message to the operators", onclick: () => report(panel, line) }, "report"));
  panel.lines.append(h("li.chat-line", { dataset: { id: line.id, player: line.player_id } },
    h("time.muted", clock(line.ts)), " ", h("strong.chat-name", line.name), " ", h("span.chat-text", line.text), tools));
  panel.lines.scrollTop = panel.lines.scrollHeight;
}

function showMuted() {
  for (const p of panels.values()) {
    for (const li of [...p.lines.children]) if (muted.has(li.dataset.player)) li.remove();
    fill(p.mutedBox, muted.size ? ["Muted: ", [...muted].map((pid) => h("button.link.chat-unmute", { type: "button", title: "show this player's messages again", onclick: () => mute(p, pid, false) }, `${names.get(pid) || pid} ✕`))] : null);
  }
}

const REFUSAL = {
  "chat/rate_limited": "Slow down a little.",
  "chat/too_long": `At most ${MAX_CHARS} characters.`,
  "chat/empty": "Nothing to send.",
  "chat/closed": "The table has started: talk in the game.",
  "chat/kicked": "The host removed you from this table.",
  "chat/muted": "You are silenced for now.",
  "chat/not_member": "This chat is for the table's players.",
  "chat/wrong_channel": "You cannot write in that channel.",
};

/** Take a frame if it is chat's (returns true), else leave it to the play screen. */
export function onMessage(m) {
  if (m.type === "welcome") { // a (re)connection: join every open panel again (history merges)
    for (const p of panels.values()) join(p);
    return false;
  }
  if (m.type === "chat_history") {
    const panel = panelFor(m);
    if (!panel) return true;
    panel.channel = m.channel;
    fill(panel.title, CHANNEL_LABEL[m.channel] || "Table talk");
    panel.form.dataset.channel = m.channel;
    muted = new Set(m.muted || []);
    for (const line of m.messages) addLine(panel, line);
    showMuted();
    return true;
  }
  if (m.type === "chat") {
    const panel = panelFor(m);
    if (panel) addLine(panel, m);
    return true;
  }
  if (m.type === "chat_mutes") {
    muted = new Set(m.muted);
    showMuted();
    return true;
  }
  if ((m.type === "accepted" || m.type === "rejected") && m.cmd_id && mine.has(m.cmd_id)) {
    const { panel, what } = mine.get(m.cmd_id);
    mine.delete(m.cmd_id);
    if (m.type === "rejected") fill(panel.status, REFUSAL[m.code] || m.message, " (", h("code", m.code), ")");
    else if (what === "report") fill(panel.status, "Reported to the operators. Thank you.");
    return true;
  }
  if (m.type === "rejected" && !m.cmd_id && String(m.code).startsWith("chat/")) {
    for (const p of panels.values()) if (p.place.table_id) fill(p.status, REFUSAL[m.code] || m.message);
    return true;
  }
  return false;
}
