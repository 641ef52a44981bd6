// Readable text for seats, actions, sealed choices, events and logged moves, with each game's
// own wording where it has one (games/*.js) and a generic fallback otherwise.

import { defaultLabel, plain } from "./controls.js";
import { words } from "./dom.js";
import { GAMES } from "./games/index.js";

// keys whose integer values are seats
const SEAT_KEYS = new Set(["seat", "winner", "target", "attacker", "defender", "instigator", "initiator",
  "caster", "opener", "to_act", "from", "to", "dealer", "bidder", "start_player", "first", "first_player",
  "by", "hand_winner", "overlord"]);

/** A player's name as shown: a bot's in words ("Heuristic bot 2", named so by the lobby; a
 * bot of an older table, "bot-heuristic-909f", reads "Heuristic bot"), "(bot)" added when the
 * name does not say so itself. Only the shown text: ids stay as they are. */
export function playerName(p) {
  if (!p) return "";
  const name = String(p.name ?? p.player_id ?? "");
  if (!p.bot) return name;
  const old = /^bot-([a-z]+)-[0-9a-f]+$/.exec(name);
  if (old) return `${old[1].charAt(0).toUpperCase()}${old[1].slice(1)} bot`;
  return /\bbot\b/i.test(name) ? name : `${name} (bot)`;
}

export function gameModule(name) {
  return GAMES[name] || { board: () => null };
}

/** The context a board renders with: seat names from the match's players. */
export function makeCtx(gameName, players, seat, extra = {}) {
  const ctx = {
    game: gameModule(gameName),
    seat,
    players,
    name: (s) => {
      const p = players[s];
      if (!p) return s === null || s === undefined ? "—" : `seat ${s + 1}`;
      return playerName(p) + (s === seat ? " (you)" : "");
    },
    ...extra,
  };
  ctx.valueLabel = (k, v) => {
    const own = safe(ctx.game.valueLabel, k, v, ctx);
    if (own !== undefined && own !== null) return own;
    return SEAT_KEYS.has(k) && Number.isInteger(v) ? ctx.name(v) : plain(v);
  };
  ctx.actionLabel = (a) => (a && typeof a === "object" && safe(ctx.game.label, a, ctx)) || defaultLabel(a, ctx.valueLabel);
  ctx.choiceLabel = (c, slot) => safe(ctx.game.choiceLabel, c, slot || {}, ctx) || defaultLabel(c, ctx.valueLabel);
  return ctx;
}

/** A game's own wording, or null when it has none (or it fails on an unexpected shape). */
function safe(fn, ...args) {
  if (!fn) return null;
  try {
    return fn(...args);
  } catch {
    return null;
  }
}

const clip = (s, n = 140) => (s.length > n ? s.slice(0, n - 1) + "…" : s);

/** An event's sentence: the server's (shared/rules/narrate.py, sent as ``text``), else a
 * whole (never cut) fallback built from its fields. */
export function eventText(ev, ctx) {
  if (typeof ev.text === "string" && ev.text) return ev.text;
  const parts = Object.entries(ev.data || {}).map(([k, v]) => `${words(k)} ${ctx.valueLabel(k, v)}`);
  return words(ev.type) + (parts.length ? ": " + parts.join(", ") : "");
}

/** A logged move (the replay's move log) as text; `events`, the public events of the same
 * seq ({type, data}), give a game's sealed choices what the live view reads from its board
 * (the Engine's "→ 2 turns: arm on top"). */
export function moveText(entry, ctx, events = []) {
  const m = entry.move || {};
  if (m.kind === "act") {
    const who = ctx.name(m.seat);
    return (entry.by === "timeout" ? `${who} timed out → ` : `${who}: `) + ctx.actionLabel(m.action);
  }
  if (m.kind === "joint") { // each seat's choice in the game's words, the seat by its name
    const picks = Object.entries(m.choices).map(([slot, c]) => {
      const k = /^s(\d+)/.exec(slot);
      const seat = k ? Number(k[1]) : null;
      const what = m.round_id === "entropy" ? "a random seed" : clip(ctx.choiceLabel(c, { key: slot, seat, round_id: m.round_id, events }), 80);
      return `${seat === null ? slot : ctx.name(seat)}: ${what}`;
    }).join("; ");
    const late = m.defaulted && m.defaulted.length ? ` (the default for ${m.defaulted.join(", ")})` : "";
    return `${roundTitle(ctx, m.round_id)}, sealed choices revealed: ${picks}${late}`;
  }
  if (m.kind === "chance_outcome") return `The dealer draws ${m.label}: ${clip(m.values.join(" "), 80)}`;
  return JSON.stringify(m);
}

/** A sealed round's title for people: the game's own (the Engine's "plan:3" is "Round 3"),
 * else the round id in words. */
export function roundTitle(ctx, rid) {
  if (rid === "entropy") return "Random seeds";
  const own = ctx.game.roundTitle && safe(ctx.game.roundTitle, rid);
  if (own) return own;
  const text = words(String(rid).replace(/:/g, " "));
  return text.charAt(0).toUpperCase() + text.slice(1);
}
