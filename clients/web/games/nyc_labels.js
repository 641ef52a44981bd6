// Where New York's neighborhood names go on the map: each name is put where it crosses no
// other name, no neighborhood and no legend, trying below its circle first, then above, to the
// right, to the left and the corners, on one line or (two words or more) on two. The font is
// sized for the map's width on screen, so a name reads at about 10 px on a phone as on a
// desktop, and the layout is made for that size: at 390 px the map fits the screen and its
// names still do not overlap.
import { textWidth } from "./drawn.js";

// the smallest name on screen, in CSS px, and the font in map units at full size
const MIN_SCREEN_PX = 9.5;
const BASE_UNITS = 14;
const GAP = 3; // map units kept clear around a name

/** The names' font size in map units for a map drawn ``screenPx`` wide (viewBox ``mapW``). */
export function nameFont(screenPx, mapW) {
  const scale = Math.max(0.1, screenPx / mapW);
  return Math.max(BASE_UNITS, Math.ceil(MIN_SCREEN_PX / scale));
}

const hits = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
const area = (a, b) => Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));

/** The name in one line, and in two lines split where they are most even. */
function variants(name, size) {
  const out = [[name]];
  const w = name.split(" ");
  if (w.length > 1) {
    let best = null;
    for (let i = 1; i < w.length; i++) {
      const lines = [w.slice(0, i).join(" "), w.slice(i).join(" ")];
      const width = Math.max(...lines.map((l) => textWidth(l, size)));
      if (!best || width < best.width) best = { lines, width };
    }
    out.push(best.lines);
  }
  return out;
}

/**
 * Label boxes for ``nodes`` ([{id, name, x, y}]) with circles of radius ``r``, avoiding
 * ``obstacles`` (boxes {x0, y0, x1, y1}) inside the viewbox ``[x, y, w, h]``: a greedy
 * placement, most crowded names first, then a few passes that move each name to its best
 * place given all the others. A name never crosses another name when there is any room; it
 * crosses another neighborhood's circle only when nothing else is left.
 * Returns {id -> {lines, x, y (first baseline), lineH, box}}.
 */
export function placeNames(nodes, r, size, viewbox, obstacles = []) {
  const lineH = Math.round(size * 1.15);
  const circles = nodes.map((n) => ({ id: n.id, x0: n.x - r, y0: n.y - r, x1: n.x + r, y1: n.y + r }));
  const options = Object.fromEntries(nodes.map((n) => [n.id, candidates(n, r, size, lineH, viewbox)]));
  const at = {}; // id -> chosen candidate
  const cost = (id, c) => {
    let k = c.pref + c.out;
    for (const o of circles) if (o.id !== id && hits(c.box, o)) k += 1e5 + area(c.box, o);
    for (const o of obstacles) if (hits(c.box, o)) k += 1e6 + area(c.box, o);
    for (const [other, p] of Object.entries(at)) if (other !== id && hits(c.box, p.box)) k += 1e7 + area(c.box, p.box);
    return k;
  };
  const best = (id) => options[id].reduce((b, c) => {
    const k = cost(id, c);
    return !b || k < b.k ? { c, k } : b;
  }, null).c;
  const order = nodes.slice().sort((a, b) => crowd(b, nodes) - crowd(a, nodes));
  for (const n of order) at[n.id] = best(n.id);
  for (let pass = 0; pass < 6; pass++) {
    let moved = false;
    for (const n of order) {
      const now = at[n.id];
      delete at[n.id];
      const c = best(n.id);
      at[n.id] = c;
      if (c !== now) moved = true;
    }
    if (!moved) break;
  }
  return Object.fromEntries(Object.entries(at).map(([id, c]) => [id, { lines: c.lines, x: c.x, y: c.y, lineH, box: c.box }]));
}

/** Every place a name may take: one or two lines, around its circle. */
function candidates(n, r, size, lineH, [vx, vy, vw, vh]) {
  const out = [];
  variants(n.name, size).forEach((lines, k) => {
    const w = Math.max(...lines.map((l) => textWidth(l, size))) + 2 * GAP;
    const hgt = lines.length * lineH + GAP;
    SPOTS.forEach(([dx, dy], i) => {
      const cx = n.x + dx * (r + GAP + w / 2);
      const top = dy > 0 ? n.y + r + GAP : dy < 0 ? n.y - r - GAP - hgt : n.y - hgt / 2;
      for (const shift of dy && !dx ? [0, -0.3, 0.3] : [0]) { // below / above: also a bit aside
        const x = cx + shift * w;
        const box = { x0: x - w / 2, y0: top, x1: x + w / 2, y1: top + hgt };
        const out_ = box.x0 < vx || box.y0 < vy || box.x1 > vx + vw || box.y1 > vy + vh ? 1e8 : 0;
        out.push({ lines, box, x, y: top + GAP / 2 + size * 0.9, out: out_, pref: k + i * 0.1 + Math.abs(shift) });
      }
    });
  });
  return out;
}

// below, above, right, left, then the corners: (dx, dy) in units of "beside the circle"
const SPOTS = [[0, 1], [0, -1], [1, 0], [-1, 0], [1, 1], [-1, 1], [1, -1], [-1, -1]];

function crowd(n, nodes) {
  return nodes.filter((m) => m !== n && Math.hypot(m.x - n.x, m.y - n.y) < 160).length;
}
