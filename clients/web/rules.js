// The rules page of a game (#/rules/<game>): the RULINGS this server follows and what data is
// reconstructed (GET /api/games/{game}/rules, markdown kept in the repository next to each
// engine). A tiny markdown reader: headings, tables, lists and paragraphs, all as text.

import { api } from "./api.js";
import { $, fill, h } from "./dom.js";

const plain = (s) => s.replace(/\*\*([^*]+)\*\*/g, "$1").replace(/`([^`]+)`/g, "$1");

function cells(line) {
  return line.trim().replace(/^\||\|$/g, "").split("|").map((c) => plain(c.trim()));
}

export function markdown(text) {
  const out = [];
  const lines = text.split("\n");
  let para = [];
  const flush = () => { if (para.length) out.push(h("p", plain(para.join(" ")))); para = []; };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = /^(#{1,4})\s+(.*)$/.exec(line);
    if (m) { flush(); out.push(h("h" + Math.min(4, m[1].length + 1), plain(m[2]))); continue; }
    if (line.startsWith("|")) {
      flush();
      const rows = [];
      while (i < lines.length && lines[i].startsWith("|")) { rows.push(lines[i]); i++; }
      i--;
      const [head, , ...body] = rows;
      out.push(h("div.tablewrap", h("table.rules", h("thead", h("tr", cells(head).map((c) => h("th", c)))),
        h("tbody", body.map((r) => h("tr", cells(r).map((c) => h("td", c))))))));
      continue;
    }
    if (/^\s*[-*] /.test(line)) { flush(); out.push(h("p.li", "• " + plain(line.replace(/^\s*[-*] /, "")))); continue; }
    if (!line.trim() || /^-{3,}$/.test(line.trim())) { flush(); continue; }
    para.push(line.trim());
  }
  flush();
  return out;
}

export async function openRules(game) {
  const r = await api("GET", `/api/games/${encodeURIComponent(game)}/rules`);
  fill($("rules-body"),
    h("p", h("button", { type: "button", onclick: () => history.back() }, "← back to the game")),
    r.reconstructed && r.reconstructed.length
      ? h("div.panel", h("h3", "Reconstructed data"), h("p.muted", "Not printed publicly; the server's reconstruction:"),
        h("ul", r.reconstructed.map((x) => h("li", x)))) : h("p.muted", "No reconstructed data in this game."),
    markdown(r.markdown));
}
