// Clocks in words: a duration picker (a number and a unit: minutes, hours or days) for a
// table's time per move, and durations shown the same way ("2 hours", "4 days 23 hours").
// The API stays in milliseconds (CreateTable.turn_timeout_ms: 1 second to 1 day at a real-time
// table, 14 days at a turn-based one: the picker's ``maxMs`` follows the chosen pace).

import { h } from "./dom.js";

export const UNITS = [["minutes", 60_000], ["hours", 3_600_000], ["days", 86_400_000]];
export const MIN_MS = 60_000; // the picker's own floor; the API takes 1 second
export const MAX_MS = 86_400_000; // a real-time table's longest clock
export const MAX_TURN_BASED_MS = 1_209_600_000; // a turn-based table's: 14 days

const plural = (n, unit) => `${n} ${n === 1 ? unit : unit + "s"}`;

/** ``ms`` in words: its two largest parts ("1 hour 30 minutes"), seconds only below 2 minutes. */
export function durationWords(ms) {
  let s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return plural(s, "second");
  const parts = [];
  for (const [n, unit] of [[86_400, "day"], [3_600, "hour"], [60, "minute"]]) {
    const q = Math.floor(s / n);
    if (q && parts.length < 2) { parts.push(plural(q, unit)); s -= q * n; } else if (parts.length) break;
  }
  return parts.join(" ");
}

/** A number and a unit; empty = the server's default. ``read()``: milliseconds or null, and
 * throws an Error whose message is a sentence when the value is out of the API's range. */
export function durationPicker(id, label, maxMs = () => MAX_MS) {
  const num = h(`input#${id}`, { type: "number", min: 1, step: 1, placeholder: "server default", "aria-label": `${label}: number` });
  const unit = h(`select#${id}-unit`, { "aria-label": `${label}: unit` },
    UNITS.map(([name, ms]) => h("option", { value: String(ms), selected: name === "minutes" }, name)));
  const shown = h("span.muted.duration-words", { "aria-live": "polite" });
  const box = h("span.duration", num, unit, shown);
  const ms = () => (num.value === "" ? null : Math.round(Number(num.value) * Number(unit.value)));
  const update = () => {
    const v = ms();
    shown.textContent = v === null ? "" : v < MIN_MS || v > maxMs() ? `between 1 minute and ${durationWords(maxMs())}` : `= ${durationWords(v)}`;
  };
  num.addEventListener("input", update);
  unit.addEventListener("change", update);
  box.read = () => {
    const v = ms();
    if (v !== null && (!Number.isFinite(v) || v < MIN_MS || v > maxMs())) {
      throw new Error(`${label} must be between 1 minute and ${durationWords(maxMs())}: choose a smaller number or another unit.`);
    }
    return v;
  };
  box.clear = () => { num.value = ""; unit.value = String(UNITS[0][1]); update(); };
  return box;
}
