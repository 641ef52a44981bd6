// Tiny DOM helpers. Text always goes through textContent: names and game data are never
// parsed as HTML.

export const $ = (id) => document.getElementById(id);

/** h("div#id.cls.cls2", {onclick, title, dataset: {...}}, child, "text", [more]) */
export function h(spec, attrs, ...children) {
  const [tag, ...marks] = spec.split(/(?=[.#])/);
  const el = document.createElement(tag && !/^[.#]/.test(tag) ? tag : "div");
  if (/^[.#]/.test(tag)) marks.unshift(tag);
  for (const m of marks) {
    if (m[0] === "#") el.id = m.slice(1);
    else el.classList.add(m.slice(1));
  }
  if (attrs !== null && attrs !== undefined && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "class") el.className += (el.className ? " " : "") + v;
    else if (k in el && k !== "list") el[k] = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A table from a header row and body rows (cells: text, nodes or null). */
export function table(head, rows, cls) {
  return h("table" + (cls ? "." + cls : ""),
    h("thead", h("tr", head.map((x) => h("th", x)))),
    h("tbody", rows.map((r) => (r instanceof Node ? r : h("tr", r.map((x) => (x instanceof Node && x.tagName === "TD" ? x : h("td", x))))))));
}

/** key: value pairs as a compact definition list. */
export function kv(pairs) {
  return h("dl.kv", Object.entries(pairs).filter(([, v]) => v !== undefined)
    .map(([k, v]) => [h("dt", k), h("dd", v === null ? "—" : v)]));
}

export const words = (s) => String(s).replace(/[_-]+/g, " ");
export const short = (hexText, n = 12) => (hexText ? hexText.slice(0, n) + "…" : "—");

export function section(title, ...body) {
  return h("section.panel", h("h3", title), ...body);
}
