// The play screen: one game watched over the WebSocket as the player's seat (or as a
// spectator). Renders exactly the seat's view (msg.view) with the game's board, its legal
// actions (msg.legal) as controls, sealed choices committed here (nonce from
// crypto.getRandomValues, SHA-256 commitment as shared/fairness/commitments.py), the escrow's
// receipt, and a check of every reveal against the commitment published before the round closed.

import { api, cmdId, session, signingKey } from "./api.js";
import { loadComponents } from "./components.js";
import { durationWords } from "./duration.js";
import { picker } from "./controls.js";
import { $, fill, h, kv, short, table, words } from "./dom.js";
import { canonical, commitment, commitmentsRoot, newNonce } from "./fairness.js";
import { timeLeft } from "./format.js";
import { entropyPanel } from "./games/kit.js";
import { eventText, gameModule, makeCtx, playerName } from "./labels.js";
import { handedNote, handedText } from "./resign.js";
import { sealOpening } from "./seal.mjs";
import { sealedPanel } from "./sealed.js";
import { seedByHand, seedToggle } from "./seedpref.js";

let S = null; // the open game
let socket = null;
let ticker = null;

const receiptsKey = (gid) => `eh:receipts:${gid}:${session.me ? session.me.player_id : ""}`;

export function attach(sock) {
  socket = sock;
}

export async function openGame(gid, catalog) {
  closeGame();
  const meta = await api("GET", `/api/matches/${encodeURIComponent(gid)}`);
  const seat = meta.players.findIndex((p) => p.player_id === session.me.player_id);
  S = {
    id: gid, meta, catalog, seat: seat < 0 ? null : seat, msg: null, busy: null, busyTimer: null,
    seen: {}, timedOut: {}, roundViews: {}, closedSeen: {}, publics: {}, rounds: new Map(), recordQ: Promise.resolve(),
    receipts: JSON.parse(localStorage.getItem(receiptsKey(gid)) || "{}"), cmds: {}, committing: new Set(),
    seed: null, seedRevealed: false, ended: false, resultShown: false, error: null, logCount: 0,
    components: null,
  };
  try { // the game's component data (names, card text) from its data modules
    S.components = await loadComponents(meta.game);
  } catch { S.components = null; }
  const title = (catalog.find((g) => g.name === meta.game) || {}).title || meta.game;
  fill($("play-title"), title);
  subtitle();
  for (const id of ["board", "controls", "sealed", "log", "fairness", "result", "status"]) fill($(id));
  $("result").classList.add("hidden");
  ticker = setInterval(tick, 1000);
  await socket.watch(gid);
}

function subtitle() {
  const { id, meta } = S;
  fill($("play-sub"), `game ${id} · `, S.seat === null ? "spectating" : `you are seat ${S.seat + 1}`,
    " · players: ", meta.players.map(playerName).join(", "),
    " · ", h("a#rules-link", { href: `#/rules/${meta.game}` }, "How to play"));
}

export function closeGame() {
  if (S && socket) socket.unwatch();
  clearInterval(ticker);
  S = null;
}

export const current = () => S;

// ---- messages -------------------------------------------------------------------------------

export function onMessage(m) {
  if (!S) return;
  if (m.type === "view" && m.game_id === S.id) { // protocol v3: its record entries first
    for (const item of m.records || []) queueRecord(item);
    onView(m);
  } else if (m.type === "record" && m.game_id === S.id) queueRecord(m);
  else if (m.type === "records" && m.game_id === S.id) m.records.forEach(queueRecord); // v3
  else if (m.type === "committed" && m.game_id === S.id) {
    const r = S.receipts[`${m.round_id}/${m.slot}`];
    if (r) { r.ack = m.commitment === r.commitment ? "ok" : "bad"; saveReceipts(); renderSealed(); }
  } else if (m.type === "rejected") onRejected(m);
}

/** One public record entry (a v2 `record` frame, or an item of a v3 frame's `records`). */
function queueRecord(item) {
  socket.watching && (socket.watching.record = item.id);
  const st = S;
  S.recordQ = S.recordQ.then(() => onRecord(st, item.entry, item.text)).catch((e) => console.error(e));
}

function onView(m) {
  if (S.msg && m.seq <= S.msg.seq && !m.gap) return;
  S.msg = m;
  if ("seat" in m && m.seat !== S.seat) { S.seat = m.seat; subtitle(); } // a seat handed to a bot: watching on
  if (socket.watching) socket.watching.seq = m.seq;
  if (S.busy) clearBusy();
  // the state each sealed round opened in: its choices are labelled from it (sealed.js)
  if (m.node.kind === "simultaneous" && !S.roundViews[m.node.round_id]) S.roundViews[m.node.round_id] = m.view;
  // The public events of the whole game arrive as record entries with their sentence (a
  // spectator who joins late gets them all); a view adds only the events private to this
  // seat. Events without a sentence (an older gateway) are logged from the view, as before.
  for (const e of m.events) if (e.private || !("text" in e)) addLog(m.seq, e);
  render();
  autoSeed();
  if (m.node.kind === "terminal" || m.stage === "ended") {
    S.ended = true;
    showResult();
  }
}

function onRejected(m) {
  const key = m.cmd_id && S.cmds[m.cmd_id];
  if (key && S.receipts[key] && !S.receipts[key].ack) { // the commit never reached the escrow
    delete S.receipts[key];
    saveReceipts();
  }
  if (m.cmd_id && m.cmd_id === S.busy) clearBusy();
  S.error = `${m.code}: ${m.message}`;
  renderStatus();
  renderControls(true);
  renderSealed();
}

function clearBusy() {
  S.busy = null;
  clearTimeout(S.busyTimer);
}

function addLog(seq, e) {
  const ctx = context();
  const text = eventText(e, ctx);
  const li = h("li", { class: "ev" + (e.private ? " private" : ""), title: text, dataset: { seq, type: e.type } },
    h("small", `#${seq} `), text);
  const log = $("log");
  log.append(li);
  S.logCount += 1;
  while (log.childElementCount > 5000) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
}

function context() {
  return makeCtx(S.meta.game, S.meta.players, S.seat, { view: S.msg && S.msg.view, act: (a) => act(a),
    components: S.components, legal: S.msg ? S.msg.legal : [], seq: S.msg ? S.msg.seq : 0, busy: !!S.busy,
    redraw: () => render(), slot: openSlot(), seedSlot: seedSlot(), commit: (slot, choice) => commitChoice(slot.round_id, slot, choice) });
}

/** The seat's sealed slot that may be committed now (none committed yet, its turn in a
 * fixed order), with the round id and what may be chosen: boards offer it on the board. */
function openSlot() {
  const n = S && S.msg && S.msg.node;
  if (!n || n.kind !== "simultaneous" || n.platform || S.seat === null) return null;
  const order = n.order.map((o) => o.key);
  for (const slot of n.my_slots) {
    const key = `${n.round_id}/${slot.key}`;
    if (S.receipts[key] || S.seen[key] || S.committing.has(key)) continue;
    if (n.ordered && order.slice(0, order.indexOf(slot.key)).some((k) => !done(`${n.round_id}/${k}`))) return null;
    // narrowed by what is already public (the Engine's second placement, EE-1/EE-2), as the
    // side panel offers it
    return { ...slot, round_id: n.round_id, allowed: allowedNow(slot, n, { game: gameModule(S.meta.game), view: S.msg.view, seat: S.seat }) };
  }
  return null;
}

/** The opening entropy round's slot of this seat while it is not yet committed (the board
 * offers "Add my random seed" with it). */
function seedSlot() {
  const n = S && S.msg && S.msg.node;
  if (!n || n.kind !== "simultaneous" || !n.platform || S.seat === null) return null;
  for (const slot of n.my_slots) {
    const key = `${n.round_id}/${slot.key}`;
    if (S.receipts[key] || S.seen[key] || S.committing.has(key)) continue;
    return { ...slot, round_id: n.round_id };
  }
  return null;
}

/** The page commits the seat's random seed by itself unless the player opted to add it by
 * hand (seedpref.js): a fresh nonce from crypto.getRandomValues, sealed like any choice. */
function autoSeed() {
  const slot = seedSlot();
  if (slot && !seedByHand()) commitChoice(slot.round_id, slot, newNonce());
}

const slotKeyNow = () => { const sl = openSlot(); return sl ? `${sl.round_id}/${sl.key}` : ""; };

/** A commit on the record may open this seat's turn in a fixed-order round: the board (which
 * offers the slot) is redrawn then, else only the side panel. */
function redrawForSlot() {
  if (!S) return;
  if (slotKeyNow() !== S.boardSlot) render();
  else renderControls();
}

// ---- rendering ------------------------------------------------------------------------------

function render() {
  if (!S) return; // the game was closed meanwhile (a board's handler or timer)
  const m = S.msg;
  const ctx = context();
  S.boardSlot = ctx.slot ? `${ctx.slot.round_id}/${ctx.slot.key}` : "";
  let board;
  try {
    board = ctx.game.board(m.view, ctx);
  } catch (exc) {
    board = h("p.bad", "This view could not be drawn: " + exc.message);
  }
  fill($("board"), entropyPanel(ctx), board, h("details.raw", h("summary", "raw view (exactly what this seat receives)"),
    h("pre", JSON.stringify(m.view, null, 1))));
  renderStatus();
  renderControls(true);
  renderSealed();
}

function renderStatus() {
  if (!S) return;
  const m = S.msg;
  if (!m) return;
  const ctx = context();
  const n = m.node;
  let text;
  if (n.kind === "turn") {
    const mine = S.seat !== null && n.seats.includes(S.seat);
    text = mine ? "Your turn" : `Waiting for ${n.seats.map(ctx.name).join(", ")}`;
  } else if (n.kind === "simultaneous") text = `Sealed round ${n.round_id}${n.ordered ? " (fixed commit order)" : ""}`;
  else if (n.kind === "chance") text = `The dealer draws ${n.label}`;
  else if (n.kind === "terminal") text = "Game over";
  else text = `Setting up (${n.stage || n.kind})`;
  fill($("status"), h("b", text), h("span#deadline"), ` · seq ${m.seq}`,
    S.error ? h("span.bad", ` · refused: ${S.error}`) : null);
  tick();
}

function deadline() {
  const n = S && S.msg && S.msg.node;
  if (!n) return null;
  if (n.kind === "turn") return n.deadline_ms;
  if (n.kind === "simultaneous") return (S.rounds.get(n.round_id) || {}).deadline_ms || null;
  return null;
}

function tick() {
  const el = $("deadline");
  const d = deadline();
  if (el) el.textContent = d ? ` · ${timeLeft(d)}` : "";
}

/** What the controls depend on: re-drawing them only when it changes keeps a player's
 * half-made selection (and a click in flight) when unrelated record entries arrive. */
function controlsKey(m) {
  const n = m.node;
  const slots = n.kind === "simultaneous" ? n.my_slots.map((sl) => {
    const key = `${n.round_id}/${sl.key}`;
    const order = n.order.map((o) => o.key);
    const waiting = order.slice(0, order.indexOf(sl.key)).filter((k) => !done(`${n.round_id}/${k}`)).length;
    return [!!S.receipts[key], !!S.seen[key], n.ordered ? waiting : 0];
  }) : null;
  return JSON.stringify([S.id, m.seq, S.seat, S.busy, slots]);
}

function renderControls(force = false) {
  if (!S) return;
  const box = $("controls");
  const m = S.msg;
  if (!m) return;
  const key = controlsKey(m);
  if (!force && box.dataset.key === key) return;
  box.dataset.key = key;
  const ctx = context();
  const n = m.node;
  const parts = [];
  if (S.seat === null) parts.push(h("p.muted", "You are watching as a spectator: you see only public information."));
  else if (n.kind === "turn") {
    const mayAct = n.seats.includes(S.seat) || n.open_to.includes(S.seat);
    // moves the board takes (clicks on the map, any amount by a stepper) leave the buttons
    const onBoard = ctx.game.boardActions && S.components ? ctx.game.boardActions : new Set();
    const rest = m.legal.filter((a) => !(a && onBoard.has(a.type)));
    if (mayAct && m.legal.length && !rest.length) parts.push(h("p.yourmove", "Your move: play it on the board."));
    else if (mayAct && m.legal.length) {
      parts.push(picker(rest, { label: ctx.actionLabel, valueLabel: ctx.valueLabel, onPick: act, disabled: !!S.busy, cls: "act" }));
    } else parts.push(h("p.muted", `Waiting for ${n.seats.map(ctx.name).join(", ")}.`));
  } else if (n.kind === "simultaneous") parts.push(...sealedControls(n, ctx));
  else if (n.kind === "chance") parts.push(h("p.muted", `The dealer is drawing ${n.label}…`));
  else if (n.kind === "terminal") parts.push(h("p.muted", "The game is over."));
  else parts.push(h("p.muted", "The dealer commits to its seed…"));
  if (S.seat !== null && ctx.game.extra) parts.push(ctx.game.extra(m.view, m, ctx));
  fill(box, parts);
  // ready: a move can be made here or on the board (a highlighted card, spot or button)
  box.dataset.state = box.querySelector("button.go:not([disabled])")
    || $("board").querySelector("button.go:not([disabled]), .legal[role=button]") ? "ready" : "wait";
  box.dataset.seq = String(m.seq);
}

function sealedControls(n, ctx) {
  const out = [];
  const order = n.order.map((o) => o.key);
  for (const slot of n.my_slots) {
    const key = `${n.round_id}/${slot.key}`;
    if (S.receipts[key] || S.seen[key]) continue;
    const before = n.ordered ? order.slice(0, order.indexOf(slot.key)).filter((k) => !done(`${n.round_id}/${k}`)) : [];
    if (before.length) {
      const who = [...new Set(n.order.filter((o) => before.includes(o.key)).map((o) => ctx.name(o.seat)))];
      out.push(h("p.muted", `Your placement ${slot.key} comes after ${before.length} more in the commit order (${who.join(", ")}).`));
      break; // later slots wait too
    }
    const about = n.platform ? "Add your own random seed to the dealer's: nobody, not even the server, can then choose the game's randomness alone."
      : ctx.game.slotContext && ctx.game.slotContext(slot, ctx);
    const body = n.platform
      ? h("div.picker", h("button.go.choose", { type: "button", onclick: () => commitChoice(n.round_id, slot, newNonce()) }, "Add my random seed"))
      : picker(allowedNow(slot, n, ctx), { label: (c) => ctx.choiceLabel(c, { ...slot, round_id: n.round_id }), valueLabel: ctx.valueLabel,
        onPick: (c) => commitChoice(n.round_id, slot, c), cls: "choose" });
    out.push(h("div.slot", h("p", h("b", `Sealed choice ${slot.key}`), about ? " — " + about : ""), body));
    if (n.ordered) break; // one placement at a time
  }
  if (!out.length) out.push(h("p.muted", "Your choice is sealed. Waiting for the other seats…"));
  return out;
}

/** A slot's allowed choices as far as the game can narrow them by what is already public
 * (e.g. the Engine's second placement must use the other engine, EE-1/EE-2). */
function allowedNow(slot, n, ctx) {
  const all = slot.allowed || [slot.default];
  if (!ctx.game.allowedNow) return all;
  const mine = (k) => k.startsWith(n.round_id + "/");
  const publics = Object.fromEntries(Object.entries(S.publics)
    .filter(([k]) => mine(k)).map(([k, v]) => [k.slice(n.round_id.length + 1), v]));
  for (const [k, r] of Object.entries(S.receipts)) { // this seat's own sealed choices, whole
    if (mine(k) && r && r.choice && typeof r.choice === "object") publics[k.slice(n.round_id.length + 1)] = r.choice;
  }
  const narrowed = ctx.game.allowedNow(slot, all, publics, ctx);
  return narrowed && narrowed.length ? narrowed : all;
}

// ---- acting ---------------------------------------------------------------------------------

async function act(action) {
  if (!S || !S.msg || S.busy) return;
  const id = cmdId();
  const st = S;
  const seq = S.msg.seq;
  S.error = null;
  S.busy = id; // (signing may wait for the key's registration)
  let signed;
  try {
    signed = (await signingKey()).signAct(S.id, S.seat, id, action, seq);
  } catch (exc) {
    if (S === st) {
      clearBusy();
      S.error = "could not sign the action: " + exc.message;
      renderStatus();
      renderControls();
    }
    return;
  }
  if (S !== st) return;
  if (!socket.send({ type: "act", cmd_id: id, game_id: S.id, expected_seq: seq, action, ...signed })) {
    S.busy = null;
    S.error = "not connected; retrying";
  } else {
    S.busy = id;
    S.busyTimer = setTimeout(() => { if (S && S.busy === id) { clearBusy(); renderControls(); } }, 8000);
  }
  renderStatus();
  renderControls();
}

async function commitChoice(roundId, slot, choice) {
  const key = `${roundId}/${slot.key}`;
  if (!S || S.receipts[key] || S.committing.has(key)) return;
  S.committing.add(key);
  const st = S;
  const nonce = newNonce();
  let c, sealed, escrowKey, key25519;
  try {
    // the escrow key of the round's round_opened entry (it may follow the view by a moment)
    for (let i = 0; i < 50 && S === st && !(st.rounds.get(roundId) || {}).escrow_key; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (S !== st) return;
    escrowKey = (S.rounds.get(roundId) || {}).escrow_key;
    if (!escrowKey) throw new Error("the escrow has not opened this round yet; try again");
    c = await commitment(S.id, roundId, slot.key, S.seat, choice, nonce);
    // only the escrow can read the opening: the gateway carries the ciphertext alone
    sealed = sealOpening(escrowKey, S.id, roundId, slot.key, S.seat, choice, nonce);
    key25519 = await signingKey(); // registered for this player through the lobby
    if (S !== st) return;
  } catch (exc) {
    if (S === st) {
      S.error = "could not seal the choice: " + exc.message;
      renderStatus();
    }
    return;
  } finally {
    st.committing.delete(key);
  }
  const pub = slot.public_keys && slot.public_keys.length
    ? Object.fromEntries(slot.public_keys.map((k) => [k, choice[k] ?? null])) : null;
  const id = cmdId();
  S.receipts[key] = { round_id: roundId, slot: slot.key, choice, nonce, commitment: c, escrow_key: escrowKey, ack: null, verified: null, label: slot.allowed === null && roundId === "entropy" ? "random seed" : context().choiceLabel(choice, { ...slot, round_id: roundId }) };
  S.cmds[id] = key;
  saveReceipts();
  S.error = null;
  socket.send({ type: "commit", v: 2, cmd_id: id, game_id: S.id, round_id: roundId, slot: slot.key, commitment: c, sealed, public: pub,
    ...key25519.signCommit(S.id, S.seat, id, roundId, slot.key, c, sealed, pub) });
  if (S.msg) render(); // the board drops its offer of this slot too
  else { renderStatus(); renderControls(); renderSealed(); }
}

// Receipts stay in this browser after the game (the replay viewer verifies with them, the
// result screen offers them for download), for the last KEPT_GAMES games: the oldest go first.
const KEPT_GAMES = 50;
const KEPT_INDEX = "eh:receipts-index";

function saveReceipts() {
  if (!S || S.seat === null) return;
  const key = receiptsKey(S.id);
  localStorage.setItem(key, JSON.stringify(S.receipts));
  let kept = [];
  try { kept = JSON.parse(localStorage.getItem(KEPT_INDEX) || "[]") || []; } catch { kept = []; }
  kept = kept.filter((k) => k !== key).concat([key]);
  while (kept.length > KEPT_GAMES) localStorage.removeItem(kept.shift());
  localStorage.setItem(KEPT_INDEX, JSON.stringify(kept));
}

/** This seat's receipts as the verifier's `--receipts FILE` reads them (`python -m
 * empire_hall_sdk.shared.fairness.verify`, or `python -m shared.fairness.verify` in a checkout)
 * (docs/fairness.md): the commits the escrow acknowledged. */
export function receiptsFile(gid, seat, stored) {
  const receipts = Object.values(stored || {}).filter((r) => r && r.ack === "ok")
    .map((r) => ({ round_id: r.round_id, slot: r.slot, choice: r.choice, nonce: r.nonce, commitment: r.commitment, escrow_key: r.escrow_key ?? null }));
  return { game_id: gid, seat, receipts };
}

function downloadJson(name, doc) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 1) + "\n"], { type: "application/json" }));
  const a = h("a", { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ---- the public record: commitments, closes, reveals, the dealer ----------------------------

// a slot of a sealed round is done once committed, or timed out in a fixed order (P-S1)
const done = (key) => !!S.seen[key] || !!S.timedOut[key];

async function onRecord(st, e, text) {
  if (S !== st) return; // another game was opened meanwhile
  const t = e.type;
  if (t === "seed_committed") S.seed = e.commitment;
  else if (t === "seed_revealed") S.seedRevealed = true;
  else if (t === "round_opened") {
    S.rounds.set(e.round_id, { id: e.round_id, ordered: e.ordered, deadline_ms: e.deadline_ms, slots: e.slots, escrow_key: e.escrow_key ?? null, status: "open", ok: null, problems: [] });
  } else if (t === "slot_timed_out") { // P-S1: a fixed-order slot let its own time pass
    const key = `${e.round_id}/${e.slot}`;
    S.timedOut[key] = true;
    if (e.public) S.publics[key] = e.public;
    if (S.msg && S.msg.node.kind === "simultaneous") redrawForSlot();
  } else if (t === "committed") {
    const key = `${e.round_id}/${e.slot}`;
    S.seen[key] = e.commitment;
    if (e.public) S.publics[key] = e.public;
    const r = S.receipts[key];
    if (r && r.commitment !== e.commitment) r.ack = "bad";
    if (S.msg && S.msg.node.kind === "simultaneous") redrawForSlot();
  } else if (t === "round_closed") {
    const round = S.rounds.get(e.round_id);
    S.closedSeen[e.round_id] = Object.fromEntries(Object.entries(S.seen).filter(([k]) => k.startsWith(e.round_id + "/")));
    if (round) Object.assign(round, { status: "closed", root: e.root, defaulted: e.defaulted });
  } else if (t === "round_revealed") await checkReveal(st, e);
  else if (t === "game_ended") S.ended = true;
  else if (t === "seat_handed_over") addLog(e.seq, { type: t, data: {}, text: handedText(e) });
  else if (t === "event") { // a public event, with the server's sentence
    S.recordEvents = true;
    addLog(e.seq, { type: e.event, data: e.data, text });
  }
  if (S !== st) return;
  renderSealed();
  renderFairness();
}

async function checkReveal(st, e) {
  const rid = e.round_id;
  const before = st.closedSeen[rid] || {};
  const round = st.rounds.get(rid) || { id: rid, slots: [] };
  st.rounds.set(rid, round);
  const problems = [];
  const pairs = [];
  for (const o of e.openings) {
    const key = `${rid}/${o.slot}`;
    const mine = st.receipts[key];
    if (o.defaulted) {
      if (mine && mine.ack === "ok") { mine.verified = false; problems.push(`${o.slot}: committed, but shown as defaulted`); }
      continue;
    }
    const c = await commitment(st.id, rid, o.slot, o.seat, o.choice, o.nonce);
    pairs.push([o.slot, c]);
    const ok = c === o.commitment && c === before[key] && c === st.seen[key];
    if (!ok) problems.push(`${o.slot}: the reveal does not match the commitment published before the close`);
    if (mine) {
      mine.verified = ok && mine.commitment === c && mine.nonce === o.nonce && canonical(mine.choice) === canonical(o.choice);
      if (!mine.verified && ok) problems.push(`${o.slot}: not the choice this browser sealed`);
    }
  }
  if (round.root && (await commitmentsRoot(pairs)) !== round.root) problems.push("the commitments root does not match");
  Object.assign(round, { status: "revealed", ok: problems.length === 0, problems, openings: e.openings });
  if (st === S) saveReceipts();
}

function renderSealed() {
  if (!S) return;
  fill($("sealed"), sealedPanel(S, context(), roundCtx));
}

/** A label context on the seat's view as of the round's opening (sealed.js): null view for a
 * round this page never saw open. */
function roundCtx(rid) {
  return makeCtx(S.meta.game, S.meta.players, S.seat, { view: S.roundViews[rid] || null, components: S.components });
}

function renderFairness() {
  if (!S) return;
  const items = {
    "The dealer's seed": S.seed ? "committed before the first draw" : "—",
    "Seed revealed": S.seedRevealed ? "yes (the game is over)" : "at the end of the game",
  };
  fill($("fairness"), kv(items), S.seed ? h("details.hashes", h("summary", "details: the seed's commitment"),
    h("span.mono", { title: S.seed }, S.seed)) : null, S.seedRevealed
    ? h("a.button", { href: `#/replay/${S.id}` }, "Open the replay and verify every draw") : null,
  S.seat === null ? null : seedToggle());
}

// ---- the result screen ----------------------------------------------------------------------

async function showResult() {
  if (!S || S.resultShown) return;
  S.resultShown = true;
  const gid = S.id;
  for (let i = 0; i < 60 && S && S.id === gid; i++) {
    try {
      const r = await api("GET", `/api/matches/${encodeURIComponent(gid)}/result`);
      if (S && S.id === gid) renderResult(r);
      return;
    } catch {
      await new Promise((ok) => setTimeout(ok, 500));
    }
  }
}

const heading = (k) => { const t = words(k); return t.charAt(0).toUpperCase() + t.slice(1); };

function renderResult(r) {
  const ctx = makeCtx(r.game, r.players, S.seat);
  const results = r.outcome.results.slice().sort((a, b) => a.place - b.place || a.seat - b.seat);
  const figureKeys = [...new Set(results.flatMap((x) => Object.keys(x.figures)))];
  // each cell names its column (data-label): on a phone a row shows as a small card
  const rows = results.map((x) => h("tr", { class: x.seat === S.seat ? "me" : "" },
    h("td", { dataset: { label: "Place" } }, String(x.place)), h("td", { dataset: { label: "Player" } }, ctx.name(x.seat)),
    figureKeys.map((k) => h("td", { dataset: { label: heading(k) } }, ctx.valueLabel(k, x.figures[k]))),
    h("td.num", { dataset: { label: "Rating" } }, r.ratings && r.ratings[x.seat] ? r.ratings[x.seat].ordinal.toFixed(2) : "—")));
  const mine = results.find((x) => x.seat === S.seat);
  const file = S.seat === null ? null : receiptsFile(r.game_id, S.seat, S.receipts);
  fill($("result"), h("h2", mine ? (mine.place === 1 ? "You won!" : `You placed ${mine.place}`) : "Final result"),
    table(["Place", "Player", ...figureKeys.map(heading), "Rating"], rows, "result"),
    h("p.muted", "Tie-breaks: " + r.outcome.tiebreak), handedNote(r),
    h("div.row", h("a#replay-link.button", { href: `#/replay/${r.game_id}` }, "Replay & verify"),
      file && file.receipts.length ? h("button#receipts-btn", { type: "button", title: "Your commitments and openings, for the verifier: python -m empire_hall_sdk.shared.fairness.verify <url> <game> --receipts FILE (pip install empire-hall-sdk; in a checkout: python -m shared.fairness.verify)",
        onclick: () => downloadJson(`receipts-${r.game_id}.json`, file) }, "Download my receipts") : null,
      h("a.button", { href: `#/leaderboard/${r.game}` }, "Leaderboard"), h("a.button", { href: "#/lobby" }, "Back to the lobby")));
  $("result").classList.remove("hidden");
  // the game is over: show the result where the player is looking (on a phone the board and
  // the side panel are far below it)
  $("result").scrollIntoView({ block: "start" });
}

