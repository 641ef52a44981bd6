// Controls for a list of legal JSON values (turn actions or a slot's allowed sealed choices).
// Actions are grouped by "type"; a group is a row of buttons when small, else one select per
// varying parameter (each narrowed by the ones before it, so only legal combinations can be
// formed) and a button that names exactly what will be sent.

import { h, words } from "./dom.js";
import { canonical } from "./fairness.js";

const fields = (x) => (x !== null && typeof x === "object" && !Array.isArray(x) ? x : { "": x });

export function defaultLabel(x, valueLabel = (k, v) => plain(v)) {
  if (x === null || typeof x !== "object" || Array.isArray(x)) return valueLabel("", x);
  const { type, ...rest } = x;
  const args = Object.entries(rest).map(([k, v]) => `${words(k)} ${valueLabel(k, v)}`);
  return [type ? words(type) : "", ...args].filter(Boolean).join(" · ");
}

export function plain(v) {
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v)) return v.map(plain).join(" ");
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${k} ${plain(x)}`).join(", ");
  return String(v);
}

function groups(items) {
  const out = new Map();
  for (const it of items) {
    const t = it !== null && typeof it === "object" && typeof it.type === "string" ? it.type : "";
    if (!out.has(t)) out.set(t, []);
    out.get(t).push(it);
  }
  return out;
}

function varying(items) {
  const keys = [];
  for (const it of items) for (const k of Object.keys(fields(it))) if (!keys.includes(k)) keys.push(k);
  return keys.filter((k) => new Set(items.map((it) => canonical(fields(it)[k] ?? null))).size > 1);
}

/**
 * @param items   legal values
 * @param opts    {label(x), valueLabel(key, v), onPick(x), disabled, cls}
 */
export function picker(items, opts) {
  const label = opts.label || ((x) => defaultLabel(x, opts.valueLabel));
  const valueLabel = opts.valueLabel || ((k, v) => plain(v));
  const box = h("div.picker");
  for (const [type, group] of groups(items)) {
    const keys = varying(group);
    const row = h("div.group", { dataset: { type } });
    const asButtons = group.length === 1 || group.length <= 6 || (keys.length <= 1 && group.length <= 12);
    if (asButtons) {
      for (const it of group) row.append(button(label(it), () => opts.onPick(it), opts));
    } else {
      row.append(h("span.gtitle", type ? words(type) : "choose"), selects(group, keys, label, valueLabel, opts));
    }
    box.append(row);
  }
  return box;
}

function button(text, onclick, opts) {
  return h("button.go" + (opts.cls ? "." + opts.cls : ""), { type: "button", onclick, disabled: !!opts.disabled }, text);
}

function selects(group, keys, label, valueLabel, opts) {
  const sel = {};
  const wrap = h("span.selects");
  const matching = (upto) => group.filter((it) => keys.slice(0, upto).every((k) => canonical(fields(it)[k] ?? null) === sel[k]));
  const render = () => {
    wrap.replaceChildren();
    keys.forEach((k, i) => {
      const options = [];
      for (const it of matching(i)) {
        const c = canonical(fields(it)[k] ?? null);
        if (!options.some((o) => o.c === c)) options.push({ c, v: fields(it)[k] ?? null });
      }
      if (!options.some((o) => o.c === sel[k])) sel[k] = options[0].c;
      const s = h("select", { name: k || "choice", title: words(k), "aria-label": words(k || "choice"), onchange: () => { sel[k] = s.value; render(); } },
        options.map((o) => h("option", { value: o.c }, (k ? words(k) + ": " : "") + valueLabel(k, o.v))));
      s.value = sel[k];
      wrap.append(s);
    });
    const chosen = matching(keys.length)[0];
    wrap.append(button(label(chosen), () => opts.onPick(chosen), opts));
  };
  render();
  return wrap;
}

/**
 * Any amount from min to max (the rules allow any): a number field with − and + steppers
 * and a button that sends it. ``label(n)`` names what the button will do.
 */
export function amount({ min, max, value, label, onPick, disabled, name = "amount" }) {
  const input = h("input", { type: "number", min, max, step: 1, value: value ?? max, name, inputMode: "numeric",
    "aria-label": `${words(name)} (${min} to ${max})` });
  const clamp = () => Math.min(max, Math.max(min, Math.round(Number(input.value) || min)));
  const go = h("button.go.amount-go", { type: "button", disabled: !!disabled, onclick: () => onPick(clamp()) });
  const sync = () => { go.textContent = label(clamp()); };
  const step = (d) => () => { input.value = String(Math.min(max, Math.max(min, clamp() + d))); sync(); };
  input.addEventListener("input", sync);
  sync();
  return h("div.amount", h("button.step", { type: "button", onclick: step(-1), "aria-label": "one less" }, "−"),
    input, h("button.step", { type: "button", onclick: step(1), "aria-label": "one more" }, "+"), go);
}
