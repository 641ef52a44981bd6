// Drawn boards in SVG: blocks that know their size and draw themselves at a place,
// so a board lays out cards, plaques and buttons for the width it has (one SVG user unit is
// one CSS pixel at that width; the SVG scales with its viewBox when the page narrows later).
//
// A block is {w, h, draw(x, y) -> SVG node}. Every target is an SVG group with role=button,
// tabindex 0 and an aria-label (svg.js clickable: Enter and Space act): a move sends at once
// (class "go"); a spot (class "legal", no "go") selects a thing on the board first. Targets
// are at least 44 by 44 px. Text is wrapped here with the page's font metrics (SVG text has
// no wrapping of its own).
import { h, words } from "../dom.js";
import { canonical } from "../fairness.js";
import { clickable, s } from "../svg.js";

export const TAP = 44;
const FONT = "system-ui, sans-serif";
let c2d = null;

/** The width of ``text`` in px at ``size`` (the page's font; a rough guess without a canvas). */
export function textWidth(text, size, weight = "normal") {
  if (!c2d) c2d = document.createElement("canvas").getContext("2d");
  if (!c2d) return String(text).length * size * 0.56;
  c2d.font = `${weight} ${size}px ${FONT}`;
  return c2d.measureText(String(text)).width;
}

/** ``text`` cut into lines of at most ``width`` px (a word longer than a line is cut). */
export function wrap(text, width, size, weight = "normal") {
  const lines = [];
  for (const para of String(text ?? "").split("\n")) {
    let line = "";
    for (const word of para.split(/\s+/).filter(Boolean)) {
      const next = line ? `${line} ${word}` : word;
      if (!line || textWidth(next, size, weight) <= width) { line = next; continue; }
      lines.push(line);
      line = word;
    }
    while (textWidth(line, size, weight) > width && line.length > 1) {
      let n = line.length - 1;
      while (n > 1 && textWidth(line.slice(0, n), size, weight) > width) n -= 1;
      lines.push(line.slice(0, n));
      line = line.slice(n);
    }
    lines.push(line);
  }
  return lines;
}

/** The width the board may draw in now (the #board element's), within sensible bounds. */
export function boardWidth() {
  const el = document.getElementById("board");
  const w = el ? el.clientWidth : 0;
  return Math.max(288, Math.min(1100, Math.floor(w || 900)));
}

// a board redraws itself when the page's width changes much (a turned phone); the SVG
// scales with its viewBox meanwhile, so nothing ever scrolls sideways
let redrawLast = null;
let drawnAt = 0;
let resizeTimer = null;
export function redrawOnResize(ctx) {
  redrawLast = ctx.redraw;
  drawnAt = boardWidth();
  if (resizeTimer !== null) return;
  resizeTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (redrawLast && document.querySelector("#board svg.drawn") && Math.abs(boardWidth() - drawnAt) > 40) redrawLast();
    }, 200);
  });
}

// ---- blocks -------------------------------------------------------------------------------

export const block = (w, h, draw) => ({ w, h, draw });
export const gap = (h) => block(0, h, () => null);

/** Wrapped text: ``size`` px, ``cls`` for its colour/weight (style.css ``svg.drawn text.*``). */
export function text(str, w, { size = 14, cls = "", weight = "normal", lh = Math.round(size * 1.3), center = false } = {}) {
  const lines = wrap(str, w, size, weight);
  return block(w, lines.length * lh, (x, y) => s("text", { x: center ? x + w / 2 : x, y, class: `t ${cls}`.trim(),
    "font-size": size, "font-weight": weight === "normal" ? null : weight, "text-anchor": center ? "middle" : null },
  lines.map((l, i) => s("tspan", { x: center ? x + w / 2 : x, dy: i ? lh : Math.round(size * 1.0) }, i < lines.length - 1 || !center ? l + " " : l))));
}

/** Blocks one under the other. */
export function vstack(blocks, sp = 6) {
  const bs = blocks.filter(Boolean);
  const w = Math.max(0, ...bs.map((b) => b.w));
  const h = bs.reduce((a, b) => a + b.h, 0) + Math.max(0, bs.length - 1) * sp;
  return block(w, h, (x, y) => {
    let yy = y;
    return s("g", {}, bs.map((b) => { const n = b.draw(x, yy); yy += b.h + sp; return n; }));
  });
}

/** Blocks left to right, wrapped into rows of at most ``w`` px (rows as tall as their tallest). */
export function flow(blocks, w, sp = 6) {
  const rows = [];
  let row = [], used = 0;
  for (const b of blocks.filter(Boolean)) {
    if (row.length && used + sp + b.w > w) { rows.push(row); row = []; used = 0; }
    used += (row.length ? sp : 0) + b.w;
    row.push(b);
  }
  if (row.length) rows.push(row);
  const hs = rows.map((r) => Math.max(...r.map((b) => b.h)));
  const h = hs.reduce((a, b) => a + b, 0) + Math.max(0, rows.length - 1) * sp;
  return block(w, h, (x, y) => {
    let yy = y;
    return s("g", {}, rows.map((r, i) => {
      let xx = x;
      const g = s("g", {}, r.map((b) => { const n = b.draw(xx, yy); xx += b.w + sp; return n; }));
      yy += hs[i] + sp;
      return g;
    }));
  });
}

/** Cards in a grid of equal columns (as many of at least ``min`` px as fit in ``w``). */
export function grid(w, min, make, items, sp = 8) {
  const cols = Math.max(1, Math.min(items.length || 1, Math.floor((w + sp) / (min + sp))));
  const cw = Math.floor((w - sp * (cols - 1)) / cols);
  return flow(items.map((it, i) => make(it, cw, i)), w, sp);
}

/** A boxed group: a rounded rectangle around ``inner(innerWidth)``, with a heading. */
export function box(w, { title = null, cls = "", inner, padX = 8, padY = 6, data = null, label = null, onPick = null, go = false } = {}) {
  const iw = w - 2 * padX;
  const head = title ? text(title, iw, { size: 15, weight: "600", cls: "title" }) : null;
  const body = vstack([head, ...(inner ? [].concat(inner(iw)) : [])], 5);
  const h = body.h + 2 * padY;
  return block(w, h, (x, y) => {
    const parts = [s("rect", { x, y, width: w, height: h, rx: 8, class: "bg" }), body.draw(x + padX, y + padY)];
    const attrs = { class: `box ${cls}`.trim(), dataset: data || undefined };
    // a card that is itself a target is named by all it shows (axe: the visible text must be
    // part of the name)
    if (onPick) return clickable({ ...attrs, class: `${attrs.class} legal${go ? " go" : ""}` }, onPick, ...parts);
    return s("g", { ...attrs, role: label ? "group" : null, "aria-label": label }, ...parts);
  });
}

/**
 * A target: a move (``go``: sends at once) or a spot (selects). At least 44 by 44 px; the
 * label wraps to more lines when it is long.
 */
export function button(label, onPick, w, { go = true, cls = "", data = null, disabled = false, size = 14, pressed = null, min = TAP } = {}) {
  const lines = wrap(label, Math.max(10, w - 16), size, "600");
  const lh = Math.round(size * 1.25);
  const h = Math.max(min, lines.length * lh + 14);
  return block(w, h, (x, y) => {
    const ty = y + (h - lines.length * lh) / 2 + size * 0.95;
    const parts = [s("rect", { x, y, width: w, height: h, rx: 6, class: "btn" }),
      s("text", { x: x + w / 2, y: ty, "text-anchor": "middle", class: "t btnt", "font-size": size, "font-weight": 600 },
        lines.map((l, i) => s("tspan", { x: x + w / 2, dy: i ? lh : 0 }, i < lines.length - 1 ? l + " " : l)))];
    const c = `${go ? "go" : "legal spot"} ${cls}`.trim();
    if (disabled) return s("g", { class: `off ${cls}`.trim(), "aria-disabled": "true", role: "img", "aria-label": label }, ...parts);
    return clickable({ class: c, "aria-label": label, dataset: data || undefined, "aria-pressed": pressed === null ? null : String(pressed) }, onPick, ...parts);
  });
}

/** A button sized to its label (at least 44 px wide), for rows of short choices. */
export function chipButton(label, onPick, opts = {}) {
  const w = Math.max(TAP, Math.ceil(textWidth(label, opts.size || 14, "600")) + 20);
  return button(label, onPick, w, opts);
}

/** A small coloured pill: "3 gold" (class ``cls`` picks the colour). */
export function pill(label, cls = "") {
  const w = Math.ceil(textWidth(label, 12)) + 14;
  return block(w, 20, (x, y) => s("g", { class: `pill ${cls}`.trim() },
    s("rect", { x, y, width: w, height: 20, rx: 10, class: "pbg" }),
    s("text", { x: x + w / 2, y: y + 14, "text-anchor": "middle", class: "t", "font-size": 12 }, label)));
}

/**
 * Any amount from ``min`` to ``max`` (the rules allow any): − and + (44 px each), the amount,
 * and a move button that names exactly what it sends (``label(n)``); a value the rules do
 * not allow (``legal``) reads "(not allowed)" and sends nothing.
 */
export function stepper({ w, min, max, value = min, label, onPick, legal = null, name = "amount" }) {
  let n = Math.min(max, Math.max(min, value));
  const ok = (k) => !legal || legal.has(k);
  const say = (k) => label(k) + (ok(k) ? "" : " (not allowed)");
  const longest = [min, max].map(say).sort((a, b) => b.length - a.length)[0];
  const go = button(longest, () => { if (ok(n)) onPick(n); }, w, { cls: "amount-go" });
  const h = TAP + 6 + go.h;
  return block(w, h, (x, y) => {
    const out = s("text", { x: x + TAP + 34, y: y + 29, "text-anchor": "middle", class: "t amt", "font-size": 18, "font-weight": 700,
      "aria-live": "polite" }, String(n));
    const goNode = go.draw(x, y + TAP + 6);
    const sync = () => {
      out.textContent = String(n);
      const t = goNode.querySelector("text");
      const lines = wrap(say(n), Math.max(10, w - 16), 14, "600");
      const lh = 17;
      const ty = y + TAP + 6 + (go.h - lines.length * lh) / 2 + 13;
      t.setAttribute("y", String(ty));
      t.replaceChildren(...lines.map((l, i) => s("tspan", { x: x + w / 2, dy: i ? lh : 0 }, i < lines.length - 1 ? l + " " : l)));
      goNode.setAttribute("aria-label", say(n));
      goNode.classList.toggle("notallowed", !ok(n));
    };
    const step = (d) => () => { n = Math.min(max, Math.max(min, n + d)); sync(); };
    const minus = button("−", step(-1), TAP, { go: false, cls: "step", size: 20 }).draw(x, y);
    minus.setAttribute("aria-label", `one ${name} less`);
    const plus = button("+", step(1), TAP, { go: false, cls: "step", size: 20 }).draw(x + TAP + 68, y);
    plus.setAttribute("aria-label", `one ${name} more`);
    const g = s("g", { class: "stepper", role: "group", "aria-label": `${name}: ${min} to ${max}` },
      minus, s("rect", { x: x + TAP + 4, y, width: 60, height: TAP, rx: 6, class: "amtbox" }), out, plus, goNode);
    sync();
    return g;
  });
}

/**
 * The legal ``actions`` as targets ``w`` px wide: one move button each, and a run of actions
 * that differ only in the integer ``amountKey`` as one stepper (any amount in it).
 */
export function moveBlocks(actions, ctx, w, { amountKey = null, amountLabel = null, value = "min", cls = "" } = {}) {
  const out = [];
  const runs = new Map();
  for (const a of actions) {
    if (amountKey && Number.isInteger(a[amountKey])) {
      const { [amountKey]: _n, ...rest } = a;
      const k = canonical(rest);
      if (!runs.has(k)) { runs.set(k, { rest, ns: [] }); out.push(runs.get(k)); }
      runs.get(k).ns.push(a[amountKey]);
    } else out.push(a);
  }
  return out.map((x) => {
    if (!x || !x.ns) return button(ctx.actionLabel(x), () => ctx.act(x), w, { disabled: !!ctx.busy, cls, data: { type: x.type } });
    const { rest, ns } = x;
    const min = Math.min(...ns), max = Math.max(...ns);
    const make = (n) => ({ ...rest, [amountKey]: n });
    if (min === max) return button(ctx.actionLabel(make(min)), () => ctx.act(make(min)), w, { disabled: !!ctx.busy, cls });
    return stepper({ w, min, max, value: value === "max" ? max : min, legal: new Set(ns), name: amountKey,
      label: (n) => (amountLabel ? amountLabel(n) : ctx.actionLabel(make(n))), onPick: (n) => { if (!ctx.busy) ctx.act(make(n)); } });
  });
}

/**
 * Moves of many combinations (a target, a rank, a suit) chosen on the board one field at a
 * time: the values of the next field as spots, narrowed by those already chosen, and then
 * the one move they make. ``state`` keeps the choices between redraws.
 */
export function pickBlocks(actions, ctx, w, state, { valueLabel = (k, v) => String(v), amountKey = null, amountLabel = null } = {}) {
  const byType = new Map();
  for (const a of actions) {
    if (!byType.has(a.type)) byType.set(a.type, []);
    byType.get(a.type).push(a);
  }
  const out = [];
  for (const [type, group] of byType) {
    const amt = amountKey && group.some((a) => Number.isInteger(a[amountKey])) ? amountKey : null;
    const combos = new Set(group.map((a) => { const { [amountKey]: _n, ...rest } = a; return canonical(amt ? rest : a); })).size;
    if (combos <= (amt ? 3 : 6)) { out.push(...moveBlocks(group, ctx, w, { amountKey: amt, amountLabel })); continue; }
    const keys = [];
    for (const a of group) for (const k of Object.keys(a)) if (k !== "type" && k !== amt && !keys.includes(k)) keys.push(k);
    const vary = keys.filter((k) => new Set(group.map((a) => canonical(a[k] ?? null))).size > 1);
    const chosen = state[type] || (state[type] = {});
    const match = (upto) => group.filter((a) => vary.slice(0, upto).every((k) => !(k in chosen) || canonical(a[k] ?? null) === chosen[k]));
    const i = vary.findIndex((k) => !(k in chosen) || !match(vary.indexOf(k) + 1).length);
    const title = words(type);
    if (i < 0) {
      const all = match(vary.length);
      const a = all[0];
      out.push(vstack([text(`${title}: ${vary.map((k) => `${words(k)} ${valueLabel(k, a[k])}`).join(", ")}`, w, { size: 13, cls: "muted" }),
        ...moveBlocks(all, ctx, w, { amountKey: amt, amountLabel }),
        chipButton("Choose again", () => { state[type] = {}; ctx.redraw(); }, { go: false, cls: "back" })]));
      continue;
    }
    for (const k of vary.slice(i)) delete chosen[k];
    const k = vary[i];
    const vals = [];
    for (const a of match(i)) if (!vals.some((v) => canonical(v) === canonical(a[k] ?? null))) vals.push(a[k] ?? null);
    out.push(vstack([text(`${title}: choose ${words(k)}`, w, { size: 13, weight: "600" }),
      flow(vals.map((v) => chipButton(valueLabel(k, v), () => { chosen[k] = canonical(v); ctx.redraw(); }, { go: false, data: { field: k } })), w),
      i > 0 ? chipButton("Back", () => { state[type] = {}; ctx.redraw(); }, { go: false, cls: "back" }) : null]));
  }
  return out;
}

// a keyboard user keeps their place: a target focused before a redraw is focused again after
// it (the same name on the new drawing), as long as nothing else took the focus meanwhile
let focusKey = null;
const keyOf = (el) => el.getAttribute("aria-label") || el.textContent;
document.addEventListener("focusin", (e) => {
  const t = e.target;
  focusKey = t instanceof SVGElement && t.getAttribute("role") === "button" && t.closest("svg.drawn") ? keyOf(t) : null;
});
let restoring = false;
function restoreFocus() {
  restoring = false;
  const a = document.activeElement;
  if (!focusKey || (a && a !== document.body)) return;
  const el = [...document.querySelectorAll("#board svg.drawn [role=button]")].find((x) => keyOf(x) === focusKey);
  if (el) el.focus({ preventScroll: true });
}

/** One drawn SVG: ``b`` at the origin, ``w`` wide, scaled with its viewBox when narrower. */
export function drawing(b, label, cls = "") {
  if (!restoring) { restoring = true; queueMicrotask(restoreFocus); }
  const w = Math.max(1, Math.ceil(b.w)), ht = Math.max(1, Math.ceil(b.h)) + 2;
  return s("svg", { viewBox: `0 0 ${w} ${ht}`, width: w, class: `drawn ${cls}`.trim(), role: "group", "aria-label": label,
    preserveAspectRatio: "xMinYMin meet" }, b.draw(0, 1));
}

/** A titled drawn section (HTML heading for the page outline, the drawing under it). */
export function sectionSvg(title, b, cls = "") {
  return h("section.panel.drawnpanel", h("h3", title), drawing(b, title, cls));
}

// choices half-made on the board (a card tapped, a field chosen), kept until the next view
const states = new Map();
/** A board's scratch state named ``name``, emptied when a new view (``ctx.seq``) arrives. */
export function seqState(name, ctx) {
  const seq = ctx.seq ?? 0;
  const st = states.get(name);
  if (st && st.seq === seq) return st.data;
  const data = {};
  states.set(name, { seq, data });
  return data;
}

/**
 * A sealed choice of several integer fields (e.g. axes and coins in a fist) from the slot's
 * allowed list: − and + per field (narrowed to allowed values) and a seal button naming exactly
 * what will be sealed (committed as the side panel does: ctx.commit).
 */
export function sealFieldsBlock(ctx, slot, keys, label, w, state) {
  const allowed = (slot.allowed || []).filter((c) => c && typeof c === "object");
  if (!allowed.length) return null;
  const id = `${slot.round_id}/${slot.key}`;
  if (state.id !== id) { state.id = id; state.pick = { ...allowed[0] }; }
  const pick = state.pick;
  const rows = keys.map((k) => {
    const vals = [...new Set(allowed.map((x) => x[k]))].sort((a, b) => a - b);
    const i = vals.indexOf(pick[k]);
    const step = (d) => () => { pick[k] = vals[Math.min(vals.length - 1, Math.max(0, i + d))]; ctx.redraw(); };
    return block(w, TAP, (x, y) => {
      const minus = button("−", step(-1), TAP, { go: false, cls: "step", size: 20 }).draw(x + 70, y);
      minus.setAttribute("aria-label", `one ${k} less`);
      const plus = button("+", step(1), TAP, { go: false, cls: "step", size: 20 }).draw(x + 70 + TAP + 64, y);
      plus.setAttribute("aria-label", `one ${k} more`);
      return s("g", { class: "field", role: "group", "aria-label": `${k}: ${pick[k]}` },
        s("text", { x, y: y + 28, class: "t", "font-size": 15, "font-weight": 600 }, k), minus,
        s("rect", { x: x + 74 + TAP, y, width: 56, height: TAP, rx: 6, class: "amtbox" }),
        s("text", { x: x + 102 + TAP, y: y + 29, "text-anchor": "middle", class: "t amt", "font-size": 18, "font-weight": 700 }, String(pick[k])), plus);
    });
  });
  const found = allowed.find((x) => keys.every((k) => x[k] === pick[k]));
  return vstack([...rows, found ? button(label(pick), () => ctx.commit(slot, { ...found }), Math.min(w, 300), { cls: "seal" })
    : text(`${label(pick)}: not allowed`, w, { size: 13, cls: "muted" })]);
}
