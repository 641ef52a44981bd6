// The replay viewer for a finished game: the public record, the full move log (published at
// the end), the board after any step as any seat or a spectator saw it (re-applied by the
// gateway from the public log), the dealer's revealed seed, and a "verify" that re-checks the
// whole game in this browser (fairness-core.mjs through verify.js: the same checks and problem
// texts as verify.py; docs/fairness.md) and, when this browser played a seat of the game, that
// seat's receipts kept by play.js: its own choices reached the record unchanged. An audit
// bundle (GET /api/matches/<id>/audit, or a file chosen here) is shown and verified alike.

import { api, session } from "./api.js";
import { $, fill, h, kv, section, short, table, words } from "./dom.js";
import { loadComponents } from "./components.js";
import { eventText, makeCtx, moveText, playerName } from "./labels.js";
import { verifyRecord } from "./verify.js";

let doc = null;
let games = [];

export async function openReplay(gid, catalog) {
  doc = null;
  games = catalog;
  fill($("replay-body"), h("p.muted", "Loading the record…"));
  fill($("verify-out"));
  const d = await api("GET", `/api/matches/${encodeURIComponent(gid)}/record`);
  show(d, await componentsOf(d.game));
}

/** The game's component data (the Engine's wheels and gears), or null: a replay without it
 * still reads, its labels without what only the data can tell. */
async function componentsOf(game) {
  try {
    return await loadComponents(game);
  } catch {
    return null;
  }
}

/** A bundle file (the audit route's answer, saved): shown as the replay and verified here,
 * with this browser's receipts of the game if it played a seat. */
export async function loadBundle(file) {
  let d;
  try {
    d = JSON.parse(await file.text());
  } catch (exc) {
    throw new Error(`${file.name} is not JSON: ${exc.message}`);
  }
  if (!d || typeof d !== "object" || typeof d.game_id !== "string" || !Array.isArray(d.record)) {
    throw new Error(`${file.name} is not an audit bundle or record document`);
  }
  doc = null;
  fill($("verify-out"));
  show(d, await componentsOf(d.game));
  return runVerify();
}

function show(d, components = null) {
  doc = d;
  const gid = d.game_id;
  const catalog = games;
  const title = (catalog.find((g) => g.name === d.game) || {}).title || d.game;
  fill($("replay-title"), `Replay: ${title}`);
  $("verify-btn").disabled = !d.ended;
  const ctx = makeCtx(d.game, d.players, null, { components });
  const created = d.record.find((e) => e.type === "game_created") || {};
  const ended = d.record.find((e) => e.type === "game_ended");
  const seedC = d.record.find((e) => e.type === "seed_committed");
  const seed = d.record.find((e) => e.type === "seed_revealed");
  const parts = [kv({ Game: gid, Players: d.players.map((p, i) => `${i + 1}: ${playerName(p)}`).join(", "),
    Options: JSON.stringify(created.options || {}), "Rules version": created.rules_version,
    "Client entropy": created.client_entropy ? "yes" : "no", Status: d.ended ? "finished" : "in progress" }),
  d.ended && d.audit === undefined ? h("p", h("a#audit-link.button", { href: `/api/matches/${encodeURIComponent(gid)}/audit`, download: `audit-${gid}.json` }, "Download the audit bundle"))
    : d.audit !== undefined ? h("p.muted", "Shown from an audit bundle file.") : null];
  if (!d.ended) {
    parts.push(h("p", "The move log and the dealer's seed are published when the game ends. ",
      h("a", { href: `#/game/${gid}` }, "Watch it live")));
  }
  if (ended) {
    parts.push(section("Result", table(["Place", "Player", "Figures"], ended.outcome.results.slice()
      .sort((a, b) => a.place - b.place).map((r) => [String(r.place), ctx.name(r.seat),
        Object.entries(r.figures).map(([k, v]) => `${words(k)} ${ctx.valueLabel(k, v)}`).join(", ")]))));
  }
  parts.push(section("The dealer", kv({
    "Seed commitment (before play)": seedC ? h("span.mono", seedC.commitment) : "—",
    "Revealed server seed": seed ? h("span#server-seed.mono", seed.server_seed) : "not yet",
    "Client seeds (entropy round)": seed ? h("span.mono", seed.client_seeds.map((s) => short(s, 16)).join(" ")) : "—",
    Draws: seed ? String(seed.draws.length) : "—",
  }), seed ? h("details", h("summary", "Every draw"), table(["Label", "Kind", "n", "Count", "Values"],
    seed.draws.map((x) => [x.label, x.draw, String(x.n), String(x.count), x.values.join(" ")]), "compact")) : null));
  parts.push(timeline(d, ctx, gid));
  fill($("replay-body"), parts);
}

// The board after a step: the gateway re-applies the public log with the engine
// (GET /api/matches/{id}/replay, finished games only) and returns the view of the chosen seat
// (or the spectator's); drawn read-only with the game's own board.
function boardPanel(d, gid) {
  const out = h("div#replay-board.board");
  const pick = h("select#replay-seat", h("option", { value: "" }, "spectator"),
    d.players.map((p, i) => h("option", { value: String(i) }, `seat ${i + 1}: ${playerName(p)}`)));
  let asked = 0;
  const show = async (step) => {
    const mine = ++asked;
    const seat = pick.value === "" ? null : +pick.value;
    const q = `?step=${step}` + (seat === null ? "" : `&seat=${seat}`);
    try {
      const r = await api("GET", `/api/matches/${encodeURIComponent(gid)}/replay${q}`);
      if (mine !== asked) return; // a later step was asked meanwhile
      const ctx = makeCtx(d.game, d.players, seat, { view: r.view, act: () => {} });
      let board;
      try { board = ctx.game.board(r.view, ctx); } catch (exc) { board = h("p.bad", "This view could not be drawn: " + exc.message); }
      fill(out, h("p.muted", `Board after ${r.step} of ${r.steps} moves, as ${seat === null ? "a spectator" : `seat ${seat + 1} (${playerName(d.players[seat])})`} saw it`), board);
    } catch (exc) {
      if (mine === asked) fill(out, h("p.muted", exc.code === "replay/not_ended" ? "Boards of past steps are shown once the game has ended." : String(exc.message || exc)));
    }
  };
  return { el: h("div", h("div.row", h("label", "Board as ", pick)), out), show, pick };
}

function timeline(d, ctx, gid) {
  const events = {};
  // each public event with the live log's sentence (the record route's narration)
  d.record.forEach((e, i) => {
    if (e.type !== "event") return;
    const text = (d.narration || [])[i];
    (events[e.seq] = events[e.seq] || []).push({ type: e.event, data: e.data, ...(text ? { text } : {}) });
  });
  const steps = (d.log || []).slice().sort((a, b) => a.seq - b.seq);
  if (!steps.length) return section("Moves", h("p.muted", "No move log yet."));
  const rows = steps.map((s) => h("tr", { dataset: { seq: s.seq } }, h("td", String(s.seq)), h("td", words(s.by)),
    h("td", moveText(s, ctx, events[s.seq]), h("ul.evs", (events[s.seq] || []).map((e) => h("li", eventText(e, ctx)))))));
  const range = h("input", { type: "range", min: 0, max: steps.length - 1, value: 0, "aria-label": "Step of the replay" });
  const label = h("span");
  const now = h("div.step");
  const board = d.ended ? boardPanel(d, gid) : null;
  const go = (i) => {
    const k = Math.max(0, Math.min(steps.length - 1, i));
    if (board) board.show(k + 1);
    range.value = k;
    rows.forEach((r, j) => r.classList.toggle("now", j === k));
    label.textContent = ` step ${k + 1} of ${steps.length} (seq ${steps[k].seq}) `;
    fill(now, h("b", moveText(steps[k], ctx, events[steps[k].seq])), h("ul", (events[steps[k].seq] || []).map((e) => h("li", eventText(e, ctx)))));
    rows[k].scrollIntoView({ block: "nearest" });
  };
  range.oninput = () => go(+range.value);
  const body = h("div.steps", table(["Seq", "By", "Move and its public events"], rows, "compact"));
  const ctl = h("div.row", h("button", { type: "button", onclick: () => go(+range.value - 1) }, "◀ Prev"), range,
    h("button", { type: "button", onclick: () => go(+range.value + 1) }, "Next ▶"), label);
  if (board) board.pick.onchange = () => go(+range.value);
  setTimeout(() => go(0));
  return section("Moves", ctl, now, board ? board.el : null, body);
}

// The receipts play.js keeps for this player in this browser (its key: eh:receipts:<game>:<me>),
// as the verifier takes them; only commits the escrow acknowledged.
function myReceipts(d) {
  const me = session.me ? session.me.player_id : null;
  const seat = me ? d.players.findIndex((p) => p.player_id === me) : -1;
  if (seat < 0) return null;
  let stored = {};
  try {
    stored = JSON.parse(localStorage.getItem(`eh:receipts:${d.game_id}:${me}`) || "{}") || {};
  } catch {
    return null;
  }
  const receipts = Object.values(stored).filter((r) => r && r.ack === "ok")
    .map((r) => ({ round_id: r.round_id, slot: r.slot, choice: r.choice, nonce: r.nonce, commitment: r.commitment, escrow_key: r.escrow_key ?? null }));
  return receipts.length ? { game_id: d.game_id, seat, receipts } : null;
}

export async function runVerify() {
  if (!doc) return null;
  const out = $("verify-out");
  fill(out, h("p.muted", "Re-deriving every commitment and draw in this browser…"));
  const t0 = performance.now();
  const receipts = myReceipts(doc);
  const res = await verifyRecord(doc, { receipts });
  const ms = Math.round(performance.now() - t0);
  const c = res.counts;
  const summary = `${c.draws} draws recomputed, ${c.commitments} commitments in ${c.rounds} sealed rounds verified, ${c.applied} applied moves match`
    + (receipts ? `, ${c.receipts} of my receipts hold` : "");
  const bad = res.checks.filter((x) => !x.ok).length;
  fill(out, h("p", { class: res.ok ? "ok verdict" : "bad verdict", dataset: { ok: res.ok } },
    res.ok ? `✔ All verified: ${summary} (${ms} ms).` : `✖ ${res.problems.length} problem(s) found.`),
  res.problems.length ? h("ul.bad", res.problems.map((p) => h("li", p))) : null,
  h("details.checks", { open: bad > 0 }, h("summary", h("span", { class: bad ? "bad" : "ok" }, bad ? "✖" : "✔"),
    ` ${res.checks.length - bad} of ${res.checks.length} kinds of check hold`),
  h("ul", res.checks.map((x) => h("li", { class: x.ok ? "ok" : "bad" }, `${x.ok ? "✔" : "✖"} ${words(x.kind)}: ${x.label}`,
    x.detail ? h("small.mono", " " + x.detail) : null)))),
  receipts ? null : h("p.muted", "This browser holds no receipts of a seat in this game: the check that no seat's choice was rewritten in every public trace needs that seat's own receipts (docs/fairness.md)."));
  return res;
}
