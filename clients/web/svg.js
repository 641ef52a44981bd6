// SVG elements with the same calling style as dom.js's h(): s("circle", {cx, cy, r}, ...).
// Attributes only (no inline style: the CSP forbids it); classes style them in style.css.

const NS = "http://www.w3.org/2000/svg";

export function s(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  // s("title", "text"): a child in the place of the attributes (as dom.js's h() takes it)
  if (attrs !== null && attrs !== undefined && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** A clickable SVG group reachable by keyboard (role button, Enter/Space act). */
export function clickable(attrs, onPick, ...children) {
  const g = s("g", { ...attrs, role: "button", tabindex: 0 }, ...children);
  g.addEventListener("click", onPick);
  g.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onPick(e); }
  });
  return g;
}
