// The rules page of a game (#/rules/<game>): how to play it, with its pictures, then the
// rulings this server follows and what data is reconstructed, folded under their own heading
// (GET /api/games/{game}/rules: markdown kept in the repository next to each engine).
// A small markdown reader: headings, pictures, tables, lists, paragraphs, **bold**, *italic*
// and `code`, all built as DOM nodes (text is never parsed as HTML).

import { api } from "./api.js";
import { $, fill, h } from "./dom.js";

const RULINGS = "Rulings and reconstructed data";
const IMAGE = /^!\[([^\]]*)\]\((\/api\/games\/[a-z0-9-]+\/images\/[a-z0-9-]+\.svg)\)\s*$/;

/** Inline marks of one line as nodes: **bold**, *italic*, `code`; the rest is text. */
export function inline(text) {
  const out = [];
  const re = /\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|`([^`]+)`/g;
  let at = 0;
  for (let m; (m = re.exec(text)); at = re.lastIndex) {
    if (m.index > at) out.push(text.slice(at, m.index));
    out.push(m[1] !== undefined ? h("strong", m[1]) : m[2] !== undefined ? h("em", m[2]) : h("code", m[3]));
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

function cells(line) {
  return line.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
}

const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

export function markdown(text) {
  const out = [];
  const lines = text.split("\n");
  let para = [];
  let list = null; // the open list, and the list nested in its last item
  let sub = null;
  const flush = () => {
    if (para.length) out.push(h("p", inline(para.join(" "))));
    para = [];
    list = sub = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const head = /^(#{1,5})\s+(.*)$/.exec(line);
    const img = IMAGE.exec(line.trim());
    const item = /^(\s*)(?:[-*]|(\d+)\.) (.*)$/.exec(line);
    if (head) {
      flush();
      out.push(h("h" + Math.min(5, head[1].length + 1), { id: "rules-" + slug(head[2]) }, inline(head[2])));
    } else if (img) {
      flush();
      out.push(h("figure.guide-figure", h("img", { src: img[2], alt: img[1] }), h("figcaption.muted", img[1])));
    } else if (line.startsWith("|")) {
      flush();
      const rows = [];
      while (i < lines.length && lines[i].startsWith("|")) { rows.push(lines[i]); i++; }
      i--;
      const [top, , ...body] = rows;
      out.push(h("div.tablewrap", h("table.rules", h("thead", h("tr", cells(top).map((c) => h("th", inline(c))))),
        h("tbody", body.map((r) => h("tr", cells(r).map((c) => h("td", inline(c)))))))));
    } else if (item) {
      if (para.length) flush();
      const tag = item[2] ? "ol" : "ul";
      const li = h("li", inline(item[3]));
      if (item[1].length >= 2 && list) { // nested in the open list's last item
        if (!sub || sub.tagName.toLowerCase() !== tag) { sub = h(tag); list.lastChild.append(sub); }
        sub.append(li);
        continue;
      }
      if (!list || list.tagName.toLowerCase() !== tag) {
        list = h(tag, item[2] && item[2] !== "1" ? { start: Number(item[2]) } : null);
        out.push(list);
      }
      sub = null;
      list.append(li);
    } else if (!line.trim() || /^-{3,}$/.test(line.trim())) {
      if (!list) flush(); // a blank line inside a list keeps it open (a nested list may follow)
    } else if (list && /^\s{2,}\S/.test(line)) {
      (sub || list).lastChild.append(" ", ...inline(line.trim()));
    } else {
      list = sub = null;
      para.push(line.trim());
    }
  }
  flush();
  return out;
}

/** The page: the guide open, the rulings folded in a toggle under their own heading. */
export function rulesPage(md) {
  const at = md.indexOf(`\n## ${RULINGS}`);
  const guide = (at < 0 ? md : md.slice(0, at)).replace(/^# .*\n/, ""); // its title heads the page
  const rulings = at < 0 ? "" : md.slice(at + RULINGS.length + 5);
  return [h("div#guide", markdown(guide)),
    rulings ? h("details#rulings.rulings", h("summary", h("h3", RULINGS)), markdown(rulings)) : null];
}

export async function openRules(game) {
  const r = await api("GET", `/api/games/${encodeURIComponent(game)}/rules`);
  fill($("rules-body"),
    h("p", h("button", { type: "button", onclick: () => (history.length > 1 ? history.back() : (location.hash = "#/lobby")) }, "← back")),
    rulesPage(r.markdown));
}
