// Empire Hall web client: lobby over HTTP, play over one WebSocket. Shows exactly the seat's
// view; legal actions become buttons; sealed choices are committed here (nonce + SHA-256)
// and each reveal is checked against the commitment seen before the round closed.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { token: null, me: null, ws: null, game: null, seat: null, view: null,
  seen: {}, receipts: {}, closed: new Set(), catalog: [], pending: {} };

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (state.token) headers.Authorization = "Bearer " + state.token;
  const r = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const data = await r.json();
  if (!r.ok || data.ok === false) throw new Error((data.code || r.status) + ": " + (data.message || ""));
  return data;
}

function show(section) {
  for (const s of ["signin", "lobby", "play"]) $(s).classList.toggle("hidden", s !== section);
}

function li(text, onclick, label) {
  const el = document.createElement("li");
  el.textContent = text + " ";
  if (onclick) { const b = document.createElement("button"); b.textContent = label; b.onclick = onclick; el.append(b); }
  return el;
}

// ---- lobby ---------------------------------------------------------------------------------

$("signin-form").onsubmit = async (e) => {
  e.preventDefault();
  const me = await api("POST", "/api/players", { name: $("name").value.trim() });
  Object.assign(state, { token: me.token, me });
  localStorage.setItem("empire-hall", JSON.stringify(me));
  await enterLobby();
};

async function enterLobby() {
  $("who").textContent = state.me.name;
  show("lobby");
  state.catalog = (await api("GET", "/api/games")).games;
  for (const sel of [$("game"), $("lb-game")]) {
    sel.innerHTML = "";
    for (const g of state.catalog) sel.append(new Option(`${g.title} (${g.min_seats}-${g.max_seats})`, g.name));
  }
  await refresh();
}

async function refresh() {
  const data = await api("GET", "/api/tables");
  $("tables").innerHTML = "";
  for (const t of data.tables) {
    $("tables").append(li(`${t.game} · ${t.players.length}/${t.seats} · host ${t.players[0]?.name || "?"}`,
      async () => showTable((await api("POST", `/api/tables/${t.table_id}/join`)).table), "Join"));
  }
  $("live").innerHTML = "";
  for (const gid of data.live_games) $("live").append(li(gid, () => openGame(gid), "Watch"));
  await leaderboard();
}

async function leaderboard() {
  const lb = await api("GET", "/api/leaderboard/" + $("lb-game").value);
  $("leaderboard").innerHTML = "";
  for (const e of lb.entries) $("leaderboard").append(li(`${e.name} — ${e.rating} (${e.wins}/${e.games} won)`));
}
$("lb-game").onchange = leaderboard;
$("refresh").onclick = refresh;

$("create-form").onsubmit = async (e) => {
  e.preventDefault();
  let options;
  try { options = JSON.parse($("options").value || "{}"); } catch { return alert("options must be JSON"); }
  const t = (await api("POST", "/api/tables", { game: $("game").value, seats: +$("seats").value,
    options, public: $("public").checked })).table;
  showTable(t);
};

$("invite-form").onsubmit = async (e) => {
  e.preventDefault();
  showTable((await api("POST", `/api/invites/${$("invite").value.trim()}/join`)).table);
};
$("spectate").onclick = () => openGame($("spectate-id").value.trim());

function showTable(t) {
  const box = $("my-table");
  box.innerHTML = `<p><b>${t.game}</b> table ${t.table_id} · invite <code>${t.invite}</code> · ` +
    `${t.players.map((p) => p.name).join(", ")} (${t.players.length}/${t.seats})</p>`;
  const add = document.createElement("button");
  add.textContent = "Add bot";
  add.onclick = async () => showTable((await api("POST", `/api/tables/${t.table_id}/bots`, { kind: "heuristic" })).table);
  const start = document.createElement("button");
  start.textContent = "Start";
  start.onclick = async () => openGame((await api("POST", `/api/tables/${t.table_id}/start`)).game_id);
  const reload = document.createElement("button");
  reload.textContent = "Reload";
  reload.onclick = async () => {
    const fresh = (await api("GET", `/api/tables/${t.table_id}`)).table;
    if (fresh.game_id) openGame(fresh.game_id); else showTable(fresh);
  };
  box.append(add, start, reload);
}

// ---- play ----------------------------------------------------------------------------------

function connect() {
  return new Promise((resolve) => {
    if (state.ws && state.ws.readyState === 1) return resolve();
    const url = location.origin.replace("http", "ws") + "/ws?token=" + encodeURIComponent(state.token);
    state.ws = new WebSocket(url);
    state.ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
    state.ws.onopen = () => resolve();
    state.ws.onclose = () => setTimeout(() => state.game && resume(), 1000);
  });
}

async function resume() {
  await connect();
  send({ type: "watch", game_id: state.game, after_seq: state.view ? state.view.seq : -1,
    after_record: state.lastRecord || "0-0" });
}

const send = (msg) => state.ws.send(JSON.stringify(msg));
const cmdId = () => "w" + Math.random().toString(36).slice(2, 12);

async function openGame(gid) {
  Object.assign(state, { game: gid, view: null, seen: {}, receipts: {}, closed: new Set(), lastRecord: "0-0" });
  $("log").innerHTML = ""; $("record").innerHTML = ""; $("receipts").innerHTML = "";
  $("result").classList.add("hidden"); $("verify-game").classList.add("hidden");
  $("play-title").textContent = gid;
  show("play");
  await connect();
  send({ type: "watch", game_id: gid });
}
$("back").onclick = () => { state.game = null; show("lobby"); refresh(); };

function onMessage(m) {
  if (m.type === "view" && m.game_id === state.game) renderView(m);
  else if (m.type === "record" && m.game_id === state.game) onRecord(m);
  else if (m.type === "rejected") $("status").textContent = `refused: ${m.code} — ${m.message}`;
  else if (m.type === "committed") {
    const r = state.receipts[m.round_id + "/" + m.slot];
    if (r) { r.ack = true; renderReceipts(); }
  }
}

function renderView(m) {
  if (state.view && m.seq <= state.view.seq && !m.gap) return;
  state.view = m;
  state.seat = m.seat;
  for (const e of m.events) $("log").append(li(`#${m.seq} ${e.type} ${JSON.stringify(e.data)}`));
  $("log").scrollTop = 1e9;
  $("view").textContent = JSON.stringify(m.view, null, 1);
  const who = m.seat === null ? "spectating" : `seat ${m.seat}`;
  $("status").textContent = `${who} · seq ${m.seq} · ${describe(m.node)}`;
  renderControls(m);
  if (m.node.kind === "terminal") showResult();
}

function describe(node) {
  if (node.kind === "turn") return `waiting for seat(s) ${node.seats.join(", ")}`;
  if (node.kind === "simultaneous") return `sealed round ${node.round_id}`;
  if (node.kind === "chance") return `dealer draws ${node.label}`;
  if (node.kind === "terminal") return "game over";
  return node.kind + (node.stage ? " " + node.stage : "");
}

function renderControls(m) {
  const box = $("controls");
  box.innerHTML = "";
  if (m.node.kind === "simultaneous") {
    for (const slot of m.node.my_slots) {
      const key = m.node.round_id + "/" + slot.key;
      if (state.receipts[key]) continue;
      if (m.node.platform) {
        const b = document.createElement("button");
        b.textContent = "Add my random seed to the dealer's";
        b.onclick = () => commit(m.node.round_id, slot, Fairness.newNonce());
        box.append(b);
        continue;
      }
      for (const choice of slot.allowed || [slot.default]) {
        const b = document.createElement("button");
        b.textContent = label(choice);
        b.onclick = () => commit(m.node.round_id, slot, choice);
        box.append(b);
      }
    }
    return;
  }
  for (const action of m.legal) {
    const b = document.createElement("button");
    b.textContent = label(action);
    b.onclick = () => send({ type: "act", cmd_id: cmdId(), game_id: state.game, expected_seq: state.view.seq, action });
    box.append(b);
  }
}

function label(x) {
  if (x === null || typeof x !== "object") return String(x);
  const { type, ...rest } = x;
  const args = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`);
  return (type || "") + (args.length ? " " + args.join(" ") : "");
}

async function commit(roundId, slot, choice) {
  const nonce = Fairness.newNonce();
  const c = await Fairness.commitment(state.game, roundId, slot.key, state.seat, choice, nonce);
  const pub = slot.public_keys && slot.public_keys.length && typeof choice === "object"
    ? Object.fromEntries(slot.public_keys.map((k) => [k, choice[k]])) : null;
  state.receipts[roundId + "/" + slot.key] = { choice, nonce, commitment: c, ack: false, verified: null };
  send({ type: "commit", cmd_id: cmdId(), game_id: state.game, round_id: roundId, slot: slot.key,
    commitment: c, choice, nonce, public: pub });
  renderReceipts();
  renderControls(state.view);
}

function renderReceipts() {
  $("receipts").innerHTML = "";
  for (const [key, r] of Object.entries(state.receipts)) {
    const el = li(`${key}: ${label(r.choice)} · c=${r.commitment.slice(0, 16)}… ` + (r.ack ? "(receipt)" : "(sent)"));
    if (r.verified !== null) {
      const s = document.createElement("span");
      s.className = r.verified ? "ok" : "bad";
      s.textContent = r.verified ? " ✔ verified" : " ✖ MISMATCH";
      el.append(s);
    }
    $("receipts").append(el);
  }
}

async function onRecord(m) {
  state.lastRecord = m.id;
  const e = m.entry;
  $("record").append(li(`${e.type} ${e.round_id || e.label || e.event || ""}`));
  if (e.type === "committed") state.seen[e.round_id + "/" + e.slot] = e.commitment;
  if (e.type === "round_closed") state.closed.add(e.round_id);
  if (e.type === "round_revealed") {
    let all = true;
    for (const o of e.openings) {
      if (o.defaulted) continue;
      const key = e.round_id + "/" + o.slot;
      const c = await Fairness.commitment(state.game, e.round_id, o.slot, o.seat, o.choice, o.nonce);
      const ok = c === o.commitment && c === state.seen[key];
      all = all && ok;
      const mine = state.receipts[key];
      if (mine) { mine.verified = ok && mine.commitment === c; }
    }
    renderReceipts();
    $("record").append(li(all ? "  ✔ every reveal matches its commitment" : "  ✖ a reveal does not match!"));
  }
  if (e.type === "seed_revealed") $("verify-game").classList.remove("hidden");
}

async function showResult() {
  try {
    const r = await api("GET", `/api/matches/${state.game}/result`);
    const rows = r.outcome.results.map((x) => `${r.players[x.seat].name}: place ${x.place} ${JSON.stringify(x.figures)}`);
    $("result").innerHTML = "<b>Result</b><br>" + rows.join("<br>");
    $("result").classList.remove("hidden");
  } catch { setTimeout(showResult, 500); }
}

$("verify-game").onclick = async () => {
  const rec = await api("GET", `/api/matches/${state.game}/record`);
  const revealed = rec.record.filter((e) => e.type === "round_revealed");
  let ok = 0, bad = 0;
  const seen = {};
  for (const e of rec.record) if (e.type === "committed") seen[e.round_id + "/" + e.slot] = e.commitment;
  for (const e of revealed) for (const o of e.openings) {
    if (o.defaulted) continue;
    const c = await Fairness.commitment(state.game, e.round_id, o.slot, o.seat, o.choice, o.nonce);
    if (c === seen[e.round_id + "/" + o.slot]) ok++; else bad++;
  }
  const seed = rec.record.find((e) => e.type === "seed_revealed");
  alert(`${ok} commitments verified, ${bad} mismatches. Dealer seed: ${seed ? seed.server_seed : "not yet revealed"}.\n` +
    `Re-derive every draw with: python -m shared.fairness.verify ${location.origin} ${state.game}`);
};

// ---- start ---------------------------------------------------------------------------------
(async () => {
  const saved = localStorage.getItem("empire-hall");
  if (saved) {
    state.me = JSON.parse(saved);
    state.token = state.me.token;
    try { await enterLobby(); return; } catch { localStorage.removeItem("empire-hall"); }
  }
  show("signin");
})();
