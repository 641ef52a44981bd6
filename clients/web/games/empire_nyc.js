// Empire: The Game of New York: the map drawn from the server's component data (names,
// boroughs, adjacency, positions: GET /api/games/empire-nyc/components), cubes and owners
// from the seat's view. Placing, attacking and fortifying are done by clicking the map; any
// number of cubes the rules allow is chosen with a stepper.
import { amount } from "../controls.js";
import { h, kv, section, table, words } from "../dom.js";
import { clickable, s } from "../svg.js";
import { boardWidth, textWidth } from "./drawn.js";
import { moveButtons, movesPanel } from "./kit.js";
import { nameFont, placeNames } from "./nyc_labels.js";

const owner = (ctx, seat) => (seat === null || seat === undefined ? h("span", "—") : h("span.seat", { class: "s" + seat }, ctx.name(seat)));
// a neighborhood's pest, drawn as shapes on a round badge (no colour-emoji font needed)
const PEST = {
  squirrel: () => [s("path", { d: "M 2 6 C 10 6 11 -4 7 -8 C 3 -11 -1 -7 2 -4 C 4 -1 3 2 0 3 Z", class: "body" }),
    s("ellipse", { cx: -2, cy: 4, rx: 4.5, ry: 3.8, class: "body" }), s("circle", { cx: -5, cy: -1.5, r: 3, class: "body" }),
    s("path", { d: "M -7 -3.5 L -6.5 -7 L -4.5 -4 Z", class: "body" })],
  rat: () => [s("path", { d: "M 5 2 C 10 2 11 6 8 8", class: "tail" }),
    s("ellipse", { cx: 0, cy: 1.5, rx: 6, ry: 3.8, class: "body" }), s("path", { d: "M -5 -1 L -10.5 2 L -5 4 Z", class: "body" }),
    s("circle", { cx: -4, cy: -2, r: 2, class: "body" })],
  pigeon: () => [s("ellipse", { cx: 1, cy: 2, rx: 6.5, ry: 4.2, class: "body" }), s("circle", { cx: -5, cy: -3, r: 3, class: "body" }),
    s("path", { d: "M -7.5 -4 L -10.5 -2.8 L -7.5 -1.6 Z", class: "beak" }), s("path", { d: "M 6 1 L 11 -1.5 L 10 4.5 Z", class: "body" })],
};
const pestIcon = (kind, x, y) => (PEST[kind]
  ? s("g", { class: `pest pest-${kind}`, transform: `translate(${x} ${y})`, "aria-hidden": "true" },
    s("circle", { cx: 0, cy: 0, r: 10.5, class: "badge" }), s("g", { transform: "scale(0.85)" }, PEST[kind]())) : null);

// the names' places per font size (the map's data never changes within a page)
const placed = new Map();

// the player's half-made move on the map: {seq, from}
let sel = { seq: -1, from: null };

function legalBy(ctx, type) {
  return (ctx.legal || []).filter((a) => a && a.type === type);
}

function range(actions) {
  const ns = actions.map((a) => a.n);
  return { min: Math.min(...ns), max: Math.max(...ns) };
}

function mapSvg(v, ctx, comp) {
  const nbs = Object.fromEntries(comp.neighborhoods.map((n) => [n.id, n]));
  const colour = Object.fromEntries(comp.boroughs.map((b) => [b.id, b.colour]));
  const seq = ctx.view === v ? (ctx.seq ?? 0) : 0;
  if (sel.seq !== seq) sel = { seq, from: null };
  const place = legalBy(ctx, "place");
  const attack = legalBy(ctx, "attack");
  const fortify = legalBy(ctx, "fortify");
  // what a click on each neighborhood would do now
  const first = new Set([...place.map((a) => a.nb), ...attack.map((a) => a.from), ...fortify.map((a) => a.from)]);
  const second = new Set(sel.from ? [...attack.filter((a) => a.from === sel.from).map((a) => a.to),
    ...fortify.filter((a) => a.from === sel.from).map((a) => a.to)] : []);
  const r = comp.node_radius;
  const links = comp.links.filter((l) => !l.optional || (v.options && v.options.extra_links)).map((l) => {
    const a = nbs[l.a], b = nbs[l.b];
    return s("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: `link ${l.kind}` + (l.optional ? " optional" : "") },
      s("title", `${a.name} — ${b.name}${l.name ? ": " + l.name : ""}`));
  });
  const [x0, y0, w, hgt] = comp.viewbox;
  // names sized for the map's width on screen and placed where they overlap nothing
  // (nyc_labels.js); on a phone a highlighted neighborhood's tap area reaches 46 px
  const screen = mapScreenWidth();
  drawnFor = screen;
  const font = nameFont(screen, w);
  const cubesFont = Math.min(36, Math.max(22, Math.ceil(12 / (screen / w))));
  const legendW = 40 + Math.max(...comp.boroughs.map((b) => textWidth(`${b.name} +${b.bonus}`, 15)));
  const legendBox = { x0: x0, y0: y0, x1: x0 + legendW, y1: y0 + 26 + (comp.boroughs.length + Object.keys(PEST).length) * 30 + 12 };
  const key = `${font}/${legendW}`;
  if (!placed.has(key)) placed.set(key, placeNames(comp.neighborhoods, r, font, comp.viewbox, [legendBox]));
  const names = placed.get(key);
  const hitR = Math.max(r, Math.ceil(23 / (screen / w)));
  const nodes = comp.neighborhoods.map((n) => {
    const st = v.neighborhoods[n.id] || {};
    const isFrom = sel.from === n.id;
    const legal = sel.from ? second.has(n.id) || isFrom : first.has(n.id);
    const cls = ["nb", legal ? "legal" : "", isFrom ? "from" : "", st.owner === null || st.owner === undefined ? "" : "own s" + st.owner].join(" ");
    // starts with what it shows (the cube count, then the name) so a voice command that
    // reads the visible text finds it
    const label = `${st.cubes ?? 0} ${n.name}: ${st.cubes ?? 0} cubes of ${st.owner === null || st.owner === undefined ? "nobody" : ctx.name(st.owner)}` +
      `; ${(comp.boroughs.find((b) => b.id === n.borough) || {}).name}, ${words(n.pest)}` + (legal ? " — click to choose" : "");
    const body = [
      s("title", label),
      s("circle", { cx: n.x, cy: n.y, r, fill: colour[n.borough], class: "ground" }),
      s("circle", { cx: n.x, cy: n.y, r: r - 7, class: "owner" + (st.owner === null || st.owner === undefined ? " none" : " s" + st.owner) }),
      // "3 " then the name: the visible text reads as the label begins (axe)
      s("text", { x: n.x, y: n.y + Math.round(cubesFont * 0.36), class: "cubes", "text-anchor": "middle", "font-size": cubesFont }, `${st.cubes ?? 0} `),
      pestIcon(n.pest, n.x + r - 8, n.y - r + 9),
    ];
    if (legal && hitR > r) body.unshift(s("circle", { cx: n.x, cy: n.y, r: hitR, class: "hit" }));
    const attrs = { class: cls, dataset: { nb: n.id, borough: n.borough }, "aria-label": label };
    return legal && !ctx.busy ? clickable(attrs, () => pick(n.id, v, ctx), ...body) : s("g", attrs, ...body);
  });
  const legend = comp.boroughs.map((b, i) => s("g", { class: "legend" },
    s("rect", { x: 12, y: 12 + i * 26, width: 18, height: 18, fill: b.colour, class: "swatch" }),
    s("text", { x: 36, y: 26 + i * 26 }, `${b.name} +${b.bonus}`)));
  const nb = comp.boroughs.length;
  const pests = Object.keys(PEST).map((k, i) => s("g", { class: "legend" }, pestIcon(k, 21, 21 + (nb + i) * 30 + 6),
    s("text", { x: 40, y: 26 + (nb + i) * 30 + 6 }, words(k))));
  return h("div.mapbox", s("svg", { viewBox: `${x0} ${y0} ${w} ${hgt}`, class: "nycmap", role: "group",
    "aria-label": "Map of New York: click a highlighted neighborhood" }, s("g", { class: "links" }, links), legend, pests,
  nodes.filter((g) => !g.classList.contains("legal")), nodes.filter((g) => g.classList.contains("legal")),
  // the names above every circle (each neighborhood's own label carries its name too)
  s("g", { class: "names", "aria-hidden": "true" }, comp.neighborhoods.map((n) => nameText(names[n.id], font, n.id)))));
}

/** A neighborhood's name at its place (one or two lines). */
function nameText(at, font, id) {
  return s("text", { x: at.x, y: at.y, class: "name", "text-anchor": "middle", "font-size": font, dataset: { nb: id } },
    at.lines.map((line, i) => s("tspan", { x: at.x, dy: i ? at.lineH : 0 }, line)));
}

const PHONE = "(max-width: 600px)";

/** The map's width on screen in px: the board's width, at least 640 px above phone width
 * (there the map box scrolls), at most 900 (style.css svg.nycmap). */
function mapScreenWidth() {
  const phone = window.matchMedia && window.matchMedia(PHONE).matches;
  return Math.min(900, phone ? boardWidth() : Math.max(640, boardWidth()));
}

// a turned phone or a resized window: the names are placed again for the new width
let redrawMap = null;
let watching = false;
let drawnFor = 0; // the screen width the map was last drawn for
function redrawWhenResized(ctx) {
  redrawMap = ctx.redraw;
  if (watching) return;
  watching = true;
  let timer = null;
  window.addEventListener("resize", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (redrawMap && document.querySelector("#board svg.nycmap") && Math.abs(mapScreenWidth() - drawnFor) > 40) redrawMap();
    }, 200);
  });
}

function pick(nb, v, ctx) {
  const place = legalBy(ctx, "place").filter((a) => a.nb === nb);
  if (!sel.from && place.length) {
    const { min, max } = range(place);
    if (min === max) ctx.act(place[0]);
    else { sel.amount = { kind: "place", nb, min, max }; ctx.redraw(); }
    return;
  }
  if (sel.from === nb) { sel.from = null; sel.amount = null; ctx.redraw(); return; }
  if (!sel.from) { sel.from = nb; sel.amount = null; ctx.redraw(); return; }
  const attacks = legalBy(ctx, "attack").filter((a) => a.from === sel.from && a.to === nb);
  const fortify = legalBy(ctx, "fortify").filter((a) => a.from === sel.from && a.to === nb);
  if (attacks.length) sel.amount = { kind: "attack", from: sel.from, to: nb, dice: attacks.map((a) => a.dice) };
  else if (fortify.length) sel.amount = { kind: "fortify", from: sel.from, to: nb, ...range(fortify) };
  ctx.redraw();
}

function chooser(v, ctx, nbName) {
  const a = sel.amount;
  if (!a || ctx.busy) return null;
  const cancel = h("button", { type: "button", onclick: () => { sel.from = null; sel.amount = null; ctx.redraw(); } }, "Cancel");
  if (a.kind === "place") {
    return h("div.choose-amount", h("p", `Place cubes on ${nbName(a.nb)}:`),
      amount({ min: a.min, max: a.max, name: "cubes", label: (n) => `Place ${n} on ${nbName(a.nb)}`,
        onPick: (n) => { sel.amount = null; ctx.act({ type: "place", nb: a.nb, n }); } }), cancel);
  }
  if (a.kind === "fortify") {
    return h("div.choose-amount", h("p", `Move cubes from ${nbName(a.from)} to ${nbName(a.to)}:`),
      amount({ min: a.min, max: a.max, name: "cubes", label: (n) => `Move ${n}`,
        onPick: (n) => { sel = { seq: sel.seq, from: null }; ctx.act({ type: "fortify", from: a.from, to: a.to, n }); } }), cancel);
  }
  return h("div.choose-amount", h("p", `Attack ${nbName(a.to)} from ${nbName(a.from)} with:`),
    h("div.row", [...a.dice].sort().map((d) => h("button.go.dice", { type: "button",
      onclick: () => { sel = { seq: sel.seq, from: null }; ctx.act({ type: "attack", from: a.from, to: a.to, dice: d }); } },
    `${d} ${d === 1 ? "die" : "dice"}`))), cancel);
}

export default {
  board(v, ctx) {
    const comp = ctx.components;
    const nbName = (id) => ((comp && comp.neighborhoods.find((n) => n.id === id)) || { name: id }).name;
    const parts = [
      kv({ Turn: v.turn, Phase: words(v.phase), Current: v.current === null ? "—" : ctx.name(v.current),
        Awaiting: v.awaiting.length ? v.awaiting.map(ctx.name).join(", ") : "—",
        "Next set": `${v.next_set_value} cubes (${v.sets_traded} traded)`, Deck: v.deck_size, Pool: v.pool,
        Winner: v.winner === null ? null : `${ctx.name(v.winner)} (${v.win_reason})` }),
    ];
    if (comp && comp.neighborhoods) {
      if (ctx.redraw) redrawWhenResized(ctx);
      parts.push(mapSvg(v, ctx, comp));
      const help = sel.from ? `From ${nbName(sel.from)}: click a highlighted neighborhood (click it again to cancel).`
        : (legalBy(ctx, "place").length ? "Click a highlighted neighborhood to place cubes."
          : legalBy(ctx, "attack").length || legalBy(ctx, "fortify").length ? "Click one of your highlighted neighborhoods to move or attack from it." : null);
      if (help) parts.push(h("p.maphelp", help));
      const c = chooser(v, ctx, nbName);
      if (c) parts.push(c);
    }
    if (v.move_in && ctx.legal && legalBy(ctx, "move_in").length) {
      const { min, max } = range(legalBy(ctx, "move_in"));
      parts.push(section("Move in", h("p", `${nbName(v.move_in.from)} → ${nbName(v.move_in.to)}: move ${v.move_in.min}–${v.move_in.max} cubes`),
        amount({ min: Math.min(min, v.move_in.min), max: Math.max(max, v.move_in.max), name: "cubes", label: (n) => `Move ${n} in`,
          onPick: (n) => ctx.act({ type: "move_in", n }), disabled: ctx.busy })));
    }
    parts.push(section("Players", table(["Player", "Neighborhoods", "Cubes", "Cards", "To place", "Next reinforcements", ""],
      v.players.map((p) => h("tr", { class: p.seat === v.seat ? "me" : "" }, h("td", owner(ctx, p.seat)),
        h("td.num", String(p.neighborhoods)), h("td.num", String(p.cubes)), h("td.num", String(p.cards)),
        h("td.num", String(p.to_place)), h("td.num", p.next_reinforcements ?? "—"),
        h("td", p.alive ? "" : `eliminated by ${ctx.name(p.eliminated_by)}`))))));
    if (v.battle) {
      const b = v.battle;
      parts.push(section("Battle", kv({ Attack: `${nbName(b.from)} → ${nbName(b.to)}`, Instigator: ctx.name(b.instigator),
        Defender: ctx.name(b.defender), Dice: `${b.dice} vs ${b.defender_dice ?? "?"}`,
        Roll: b.instigator_roll ? b.instigator_roll.join(" ") : null }),
      legalBy(ctx, "defend").length ? h("div.row.yourmove", h("span", "Defend with: "), moveButtons(legalBy(ctx, "defend"), ctx)) : null));
    } else if (legalBy(ctx, "defend").length) parts.push(movesPanel(ctx, "Defend", ["defend"]));
    if (v.hand) {
      parts.push(section("Your cards", v.hand.length ? h("ul.hand", v.hand.map((c) => h("li.card", nbName(c.card), h("small", words(c.pest)))))
        : "none", v.must_trade ? h("p.warn", "You must trade a set first.") : null,
      v.mission ? h("p", `Your mission: ${v.mission.boroughs.map((b) => v.boroughs[b]?.name || b).join(" + ")}`) : null,
      legalBy(ctx, "trade").length ? h("div.row.trades", h("span", "Trade a set: "), moveButtons(legalBy(ctx, "trade"), ctx)) : null));
    } else if (legalBy(ctx, "trade").length) parts.push(movesPanel(ctx, "Trade a set", ["trade"]));
    parts.push(movesPanel(ctx, "Finish", ["end_attack", "end_turn"]));
    if (comp && comp.reconstructed) parts.push(h("p.muted.small", "Reconstructed data: " + comp.reconstructed.join("; ") + "."));
    return h("div.board.nyc", parts);
  },
  label(a, ctx) {
    const comp = ctx && ctx.components;
    const nm = (id) => ((comp && comp.neighborhoods.find((n) => n.id === id)) || { name: id }).name;
    switch (a.type) {
      case "place": return `Place ${a.n} on ${nm(a.nb)}`;
      case "attack": return `Attack ${nm(a.to)} from ${nm(a.from)} with ${a.dice} ${a.dice === 1 ? "die" : "dice"}`;
      case "defend": return `Defend with ${a.dice} ${a.dice === 1 ? "die" : "dice"}`;
      case "move_in": return `Move ${a.n} cubes in`;
      case "fortify": return `Fortify: ${a.n} from ${nm(a.from)} to ${nm(a.to)}`;
      case "trade": return `Trade ${a.cards.map(nm).join(" + ")}`;
      case "end_attack": return "Stop attacking";
      case "end_turn": return "End turn";
      default: return null;
    }
  },
  // every move is on the board: the map (any amount by the stepper), defend in the battle,
  // trades with the cards, ending the attack or the turn
  boardActions: new Set(["place", "attack", "fortify", "move_in", "defend", "trade", "end_attack", "end_turn"]),
};
