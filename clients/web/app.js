// Empire Hall web client: sign in, lobby (tables, invites, bots, live games, leaderboards),
// the play screen (play.js) and the replay viewer (replay.js). Routes live in the URL hash:
// #/lobby, #/table/<id>, #/game/<id>, #/replay/<id>, #/leaderboard/<game>, #/account,
// #/games ("My games": mygames.js).
// Signing in: a guest (one click), an account's password, or a passkey; the account screen
// upgrades a guest, adds passkeys, lists and revokes sessions, exports and deletes.

import { addPasskey, api, ApiError, session, signingKey, signInGuest, signInPasskey, signInPassword, Socket } from "./api.js";
import { $, fill, h, table } from "./dom.js";
import * as chat from "./chat.js";
import { playerName } from "./labels.js";
import * as play from "./play.js";
import { loadBundle, openReplay, runVerify } from "./replay.js";
import { openRules } from "./rules.js";
import { inviteBlock, joinByInvite, pendingInvite, rememberInvite, takeInvite } from "./invite.js";
import { mountResign } from "./resign.js";
import { confirmSignOut } from "./signout.js";
import * as mygames from "./mygames.js";
import { durationPicker, durationWords, MAX_MS, MAX_TURN_BASED_MS } from "./duration.js";
import { optionsForm, valueWords, why } from "./schemaform.js";
import { notificationsPanel } from "./notifications.js";

let catalog = [];
let optionsBox = null;
// the pace sets the longest clock (shared/protocol/lobby.py MAX_CLOCK_MS)
const timeoutBox = durationPicker("turn-timeout", "Time per move",
  () => ($("pace").value === "turn-based" ? MAX_TURN_BASED_MS : MAX_MS));
$("turn-timeout-row").append(" ", timeoutBox);
let tablePoll = null;
const socket = new Socket((m) => { if (!chat.onMessage(m) && !mygames.onMessage(m)) play.onMessage(m); });
play.attach(socket);
mygames.attach(socket, (name) => titleOf(name));
chat.attach(socket, () => session.me);
socket.onAuthLost = () => { session.clear(); flash("Please sign in again."); route(); };

const SCREENS = ["signin", "lobby", "table", "play", "replay", "account", "rules", "mygames"];
function show(name) {
  for (const s of SCREENS) $(s).classList.toggle("hidden", s !== name);
  document.body.dataset.screen = name;
}

function flash(text, bad = true) {
  const el = $("flash");
  fill(el, text);
  el.className = bad ? "bad" : "ok";
  clearTimeout(flash.t);
  flash.t = setTimeout(() => fill(el), 6000);
}

async function guarded(fn) {
  try {
    return await fn();
  } catch (exc) {
    if (exc instanceof ApiError && exc.status === 401) { session.clear(); route(); }
    flash(exc.message || String(exc));
    $("flash").dataset.code = exc.code || ""; // the sentence is shown; the code kept for tools
    return undefined;
  }
}

const titleOf = (name) => (catalog.find((g) => g.name === name) || {}).title || name;
const recent = () => JSON.parse(localStorage.getItem("eh:recent") || "[]");
function remember(gid) {
  localStorage.setItem("eh:recent", JSON.stringify([gid, ...recent().filter((x) => x !== gid)].slice(0, 10)));
}

// ---- routing --------------------------------------------------------------------------------

// Navigations overlap (a hash set in code fires hashchange while an explicit route() runs):
// each route() takes a number, and one that a newer route() has overtaken while it waited for
// the catalog shows nothing, so a slow lobby load never hides the screen navigated to after it.
let routing = 0;

async function route() {
  const turn = ++routing;
  const [, screen = "lobby", arg = ""] = location.hash.split("/");
  clearInterval(tablePoll);
  if (screen === "join" && arg) rememberInvite(decodeURIComponent(arg)); // (invite.js)
  if (!session.me) {
    play.closeGame();
    mygames.reset();
    fill($("who"));
    $("signin-invite").classList.toggle("hidden", !pendingInvite());
    return show("signin");
  }
  if (screen !== "games") { mygames.close(); mygames.prime(); }
  if (screen === "join" || pendingInvite()) return joinPending();
  fill($("who"), `signed in as ${session.me.name} `, h("button.link", { type: "button", onclick: signOut }, "sign out"));
  if (!catalog.length) catalog = (await guarded(() => api("GET", "/api/games")) || { games: [] }).games;
  if (turn !== routing) return;
  if (screen !== "game") play.closeGame();
  chat.closeAll(screen === "game" ? "game-chat" : screen === "table" ? "table-chat" : null);
  if (screen === "game" && arg) {
    show("play");
    remember(arg);
    await guarded(() => play.openGame(arg, catalog));
    await guarded(() => mountResign($("resign-box"), arg, flash));
    await guarded(() => chat.open("game-chat", { game_id: arg }));
  } else if (screen === "replay" && arg) {
    show("replay");
    await guarded(() => openReplay(arg, catalog));
  } else if (screen === "rules" && arg) {
    show("rules");
    const g = catalog.find((x) => x.name === decodeURIComponent(arg));
    fill($("rules-title"), `How to play ${g ? g.title : decodeURIComponent(arg)}`);
    await guarded(() => openRules(decodeURIComponent(arg)));
  } else if (screen === "games") {
    show("mygames");
    await guarded(mygames.show);
  } else if (screen === "account") {
    show("account");
    await guarded(account);
  } else if (screen === "table" && arg) {
    show("table");
    await guarded(() => showTable(arg));
  } else {
    show("lobby");
    await guarded(() => lobby(screen === "leaderboard" ? decodeURIComponent(arg) : null));
  }
}
window.addEventListener("hashchange", route);

async function signOut() {
  if (!(await confirmSignOut(session.me.name))) return; // a guest is asked first (signout.js)
  socket.close();
  await api("POST", "/api/session/sign-out").catch(() => {}); // ends the session server-side
  session.clear();
  location.hash = "#/lobby";
  route();
}

async function signedIn(me) {
  session.save(me);
  signingKey().catch(() => {}); // bind this session's key at once (docs/protocol.md "Signed commands")
  if (pendingInvite()) return joinPending();
  if (location.hash !== "#/lobby") { location.hash = "#/lobby"; return; } // hashchange routes
  await route();
}

/** Join the table of the invite the visitor came with (invite.js), then show it. */
async function joinPending() {
  const code = takeInvite();
  const t = code ? await guarded(() => joinByInvite(code)) : null;
  location.hash = t ? `#/table/${t.table_id}` : "#/lobby";
  if (!t) await route();
}

$("signin-form").addEventListener("submit", (e) => {
  e.preventDefault();
  guarded(async () => signedIn(await signInGuest($("name").value.trim())));
});
$("password-form").addEventListener("submit", (e) => {
  e.preventDefault();
  guarded(async () => {
    const me = await signInPassword($("acct-name").value.trim(), $("acct-password").value);
    $("acct-password").value = "";
    await signedIn(me);
  });
});
$("passkey-signin").addEventListener("click", () => guarded(async () => signedIn(await signInPasskey())));

// ---- account --------------------------------------------------------------------------------

async function account() {
  const [me, sess, notify] = await Promise.all([api("GET", "/api/me"), api("GET", "/api/sessions"), notificationsPanel(flash, account)]);
  const pw = h("input#new-password", { type: "password", placeholder: "new password (8+ characters)", autocomplete: "new-password", maxlength: 256 });
  const cur = h("input#current-password", { type: "password", placeholder: "current password", autocomplete: "current-password", maxlength: 256 });
  const confirm = h("input#delete-confirm", { placeholder: `type ${me.name} to confirm` });
  const when = (ms) => (ms ? new Date(ms).toLocaleString() : "—");
  fill($("account-body"),
    h("p#account-status", me.account
      ? `${me.name} is an account: sign in from any browser or device with ${[me.password && "the password", me.passkeys.length && "a passkey"].filter(Boolean).join(" or ")}.`
      : `${me.name} is a guest: add a password or a passkey to keep this player (rating, history and games stay).`),
    h("form#password-set.row", { onsubmit: (e) => { e.preventDefault(); guarded(async () => {
      await api("POST", "/api/account/password", me.password ? { password: pw.value, current: cur.value } : { password: pw.value });
      pw.value = cur.value = "";
      flash(me.password ? "Password changed." : "This player is now an account.", false);
      await account();
    }); } }, me.password ? cur : null, pw, h("button", { type: "submit" }, me.password ? "Change password" : "Set a password")),
    h("div.row", h("button#add-passkey", { type: "button", onclick: () => guarded(async () => {
      await addPasskey("this browser");
      flash("Passkey added.", false);
      await account();
    }) }, "Add a passkey"), h("span.muted", `${me.passkeys.length} passkey(s)`)),
    notify,
    h("h3", "Sessions"),
    table(["Signed in", "Last used", "Client", ""], sess.sessions.map((x) => [when(x.created_ms), when(x.used_ms), x.agent || "—",
      x.current ? h("span.muted", "this one") : h("button", { type: "button", dataset: { session: x.session_id }, onclick: () => guarded(async () => {
        await api("DELETE", `/api/sessions/${encodeURIComponent(x.session_id)}`);
        await account();
      }) }, "Revoke")])),
    h("h3", "Your data"),
    h("div.row", h("button#export", { type: "button", onclick: () => guarded(async () => {
      const data = await api("GET", "/api/account/export");
      const a = h("a", { href: URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" })), download: "empire-hall-data.json" });
      a.click();
      URL.revokeObjectURL(a.href);
    }) }, "Download my data")),
    h("div.row", confirm, h("button#delete-account", { type: "button", onclick: () => guarded(async () => {
      await api("DELETE", "/api/account", { confirm: confirm.value });
      socket.close();
      session.clear();
      flash("Account deleted.", false);
      location.hash = "#/lobby";
      await route();
    }) }, "Delete this player")));
}

// ---- lobby ----------------------------------------------------------------------------------

async function lobby(leaderboardGame) {
  const sel = $("game");
  if (!sel.options.length) {
    for (const g of catalog) sel.append(h("option", { value: g.name }, `${g.title} (${g.min_seats}–${g.max_seats} seats)`));
    for (const g of catalog) $("lb-game").append(h("option", { value: g.name }, g.title));
    onGameChange();
  }
  if (leaderboardGame) $("lb-game").value = leaderboardGame;
  await Promise.all([refreshTables(), leaderboard()]);
  if (leaderboardGame) $("leaderboard-panel").scrollIntoView();
}

function onGameChange() {
  const g = catalog.find((x) => x.name === $("game").value);
  if (!g) return;
  const seats = $("seats");
  seats.min = g.min_seats;
  seats.max = g.max_seats;
  seats.value = Math.max(g.min_seats, Math.min(3, g.max_seats));
  $("howto-link").href = `#/rules/${g.name}`;
  fill($("howto-link"), `How to play ${g.title}`);
  optionsBox = optionsForm(g.options);
  fill($("options"), optionsBox);
  timeoutBox.clear(); // a new table starts from the server default, not the last table's
  $("time-bank").value = "";
}
$("game").addEventListener("change", onGameChange);

/** The table's variant options with their labels (from the game's schema), not raw JSON. */
function optionsSummary(t) {
  const g = catalog.find((x) => x.name === t.game);
  const props = (g && g.options && g.options.properties) || {};
  const rows = Object.entries(props).map(([k, p]) => {
    const v = k in (t.options || {}) ? t.options[k] : p.default;
    return h("li", h("b", p.title || k), ": ", valueWords(p, v),
      p.description ? h("span.opt-desc", p.description) : null, why(p));
  });
  return rows.length ? h("details.table-options", h("summary", "Variant options"), h("ul", rows)) : null;
}

/** A listed table's options in words ("Rules version: beginner"); "defaults" when none. */
function optionsWords(t) {
  const g = catalog.find((x) => x.name === t.game);
  const props = (g && g.options && g.options.properties) || {};
  const set = Object.entries(t.options || {});
  return set.length ? set.map(([k, v]) => `${(props[k] || {}).title || k}: ${valueWords(props[k] || {}, v)}`).join("; ") : "defaults";
}

$("create-form").addEventListener("submit", (e) => {
  e.preventDefault();
  guarded(async () => {
    const body = { game: $("game").value, seats: +$("seats").value, options: optionsBox ? optionsBox.read() : {},
      public: $("public").checked, client_entropy: $("entropy").checked,
      on_expiry: $("on-expiry").checked ? "bot" : "default" };
    const timeout = timeoutBox.read(); // milliseconds, or null for the server's default
    if (timeout) { body.turn_timeout_ms = timeout; body.round_timeout_ms = timeout; }
    body.pace = $("pace").value;
    const bank = +$("time-bank").value * 3600000;
    if (bank) body.time_bank_ms = bank;
    const t = (await api("POST", "/api/tables", body)).table;
    location.hash = `#/table/${t.table_id}`;
  });
});

$("invite-form").addEventListener("submit", (e) => {
  e.preventDefault();
  guarded(async () => {
    const t = (await api("POST", `/api/invites/${encodeURIComponent($("invite").value.trim())}/join`)).table;
    location.hash = `#/table/${t.table_id}`;
  });
});
$("refresh").addEventListener("click", () => guarded(refreshTables));
$("lb-game").addEventListener("change", () => guarded(leaderboard));

async function refreshTables() {
  const data = await api("GET", "/api/tables");
  const rows = data.tables.map((t) => [titleOf(t.game), t.players.map((p) => p.name).join(", "), `${t.players.length}/${t.seats}`,
    `${t.pace || "real-time"}, ${durationWords(t.turn_timeout_ms)} a move`, optionsWords(t), h("button", { type: "button", onclick: () => guarded(async () => {
      await api("POST", `/api/tables/${t.table_id}/join`);
      location.hash = `#/table/${t.table_id}`;
    }) }, "Join")]);
  fill($("tables"), rows.length ? table(["Game", "Players", "Seats", "Pace", "Options", ""], rows) : h("p.muted", "No open tables. Create one!"));
  const ids = data.live_games.slice(0, 20);
  const metas = await Promise.all(ids.map((id) => api("GET", `/api/matches/${id}`).catch(() => null)));
  const live = metas.filter(Boolean).map((m) => {
    const mine = m.players.some((p) => p.player_id === session.me.player_id);
    return h("tr", { dataset: { game: m.game_id, stage: m.stage || "" } }, h("td", titleOf(m.game)),
      h("td", m.players.map((p) => p.name).join(", ")), h("td", m.stage || "starting"),
      h("td", m.stage === "ended"
        ? h("a.button", { href: `#/replay/${m.game_id}` }, "Replay")
        : h("a.button", { href: `#/game/${m.game_id}` }, mine ? "Play" : "Watch")));
  });
  fill($("live"), live.length ? table(["Game", "Players", "Stage", ""], live) : h("p.muted", "No games yet."));
  fill($("recent"), recent().map((gid) => h("li", h("a", { href: `#/game/${gid}` }, gid), " · ", h("a", { href: `#/replay/${gid}` }, "replay"))));
}

async function leaderboard() {
  const game = $("lb-game").value;
  if (!game) return;
  const lb = await api("GET", `/api/leaderboard/${encodeURIComponent(game)}`);
  const rows = lb.entries.map((e, i) => h("tr", { class: e.player_id === session.me.player_id ? "me" : "" },
    h("td", String(i + 1)), h("td", playerName(e)), h("td.num", e.rating.toFixed(2)),
    h("td.num", String(e.games ?? "—")), h("td.num", String(e.wins ?? "—"))));
  fill($("leaderboard"), rows.length ? table(["#", "Player", "Rating", "Games", "Wins"], rows) : h("p.muted", `No rated ${titleOf(game)} games yet.`));
}

// ---- a table before it starts ---------------------------------------------------------------

async function showTable(tid) {
  const t = (await api("GET", `/api/tables/${tid}`)).table;
  if (t.game_id) { location.hash = `#/game/${t.game_id}`; return; }
  const host = t.host === session.me.player_id;
  const seated = t.players.some((p) => p.player_id === session.me.player_id);
  const kind = h("select#bot-kind", { "aria-label": "Bot to add" }, h("option", { value: "heuristic" }, "heuristic bot"), h("option", { value: "random" }, "random bot"));
  fill($("table-body"),
    h("h2", titleOf(t.game)),
    h("p", `Table ${t.table_id} · ${t.public ? "public" : "private"} · ${t.pace || "real-time"} · time per move (turns and sealed rounds) ${durationWords(t.turn_timeout_ms)}${t.time_bank_ms ? ` + a bank of ${durationWords(t.time_bank_ms)}` : ""}${t.on_expiry === "bot" ? " (then a bot takes the seat)" : ""} · `,
      h("a#table-howto", { href: `#/rules/${t.game}` }, "How to play")),
    optionsSummary(t),
    inviteBlock(t, seated, flash),
    h("ol#seats-list", Array.from({ length: t.seats }, (_, i) => {
      const p = t.players[i];
      return h("li", p ? `${playerName(p)}${p.player_id === t.host ? " — host" : ""}` : h("span.muted", "empty seat"));
    })),
    h("div.row",
      host ? [kind, h("button#add-bot", { type: "button", disabled: t.players.length >= t.seats, onclick: () => guarded(async () => {
        await api("POST", `/api/tables/${tid}/bots`, { kind: kind.value });
        await showTable(tid);
      }) }, "Add bot"),
      h("button#start", { type: "button", onclick: () => guarded(async () => {
        const r = await api("POST", `/api/tables/${tid}/start`);
        location.hash = `#/game/${r.game_id}`;
      }) }, "Start")] : h("span.muted", "Waiting for the host to start…"),
      seated ? h("button", { type: "button", onclick: () => guarded(async () => {
        await api("POST", `/api/tables/${tid}/leave`);
        location.hash = "#/lobby";
      }) }, "Leave") : h("button", { type: "button", onclick: () => guarded(async () => {
        await api("POST", `/api/tables/${tid}/join`);
        await showTable(tid);
      }) }, "Join")));
  clearInterval(tablePoll);
  tablePoll = setInterval(() => guarded(async () => {
    if (!location.hash.startsWith(`#/table/${tid}`)) return clearInterval(tablePoll);
    const fresh = (await api("GET", `/api/tables/${tid}`)).table;
    if (fresh.game_id) { clearInterval(tablePoll); location.hash = `#/game/${fresh.game_id}`; }
    else if (fresh.players.length !== t.players.length) await showTable(tid);
  }), 1500);
  await chat.open("table-chat", { table_id: tid }); // (joins again once seated)
}

// ---- replay ---------------------------------------------------------------------------------

$("verify-btn").addEventListener("click", () => guarded(runVerify));
$("bundle-file").addEventListener("change", (e) => {
  const file = e.target.files[0];
  e.target.value = "";
  if (file) guarded(() => loadBundle(file));
});

route();
