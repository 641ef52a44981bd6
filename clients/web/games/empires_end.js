// Empire's End: a 20-phase track of disasters (bid tokens or take the disaster), economy,
// industry and sealed conflicts (axes and coins in a closed fist).
import { h, kv, section, table, words } from "../dom.js";
import { s } from "../svg.js";
import { block, boardWidth, box, drawing, flow, grid, moveBlocks, pickBlocks, pill, redrawOnResize, sealFieldsBlock, sectionSvg,
  seqState, text, textWidth, vstack } from "./drawn.js";
import { legalOf, openSlot } from "./kit.js";

const tokens = (r) => Object.entries(r || {}).map(([k, n]) => `${n} ${k}`).join(", ") || "none";

const cardOf = (comp, id) => (comp && id ? comp.disasters.find((c) => c.id === id) : null);
const tileOf = (comp, id) => (comp && id ? comp.tiles.find((t) => t.id === id) : null);

// every move is played on the board: on its card or tile, or in the turn's move panels
const ON_BOARD = new Set(["bid", "take", "free_bid", "replace", "place", "destroy", "shore_up", "build", "sell", "repair",
  "choose_order", "convert", "repeat", "swap", "move", "refresh", "discard_hand", "end_economy", "end_industry", "end_turn"]);
// the moves done with a location or an innovation on it (the tile they concern)
const AT_TILE = new Set(["place", "destroy", "repair"]);
const BY_SOURCE = new Set(["convert", "repeat", "swap", "move", "refresh"]);

const pills = (r, w) => {
  const xs = Object.entries(r || {}).filter(([, n]) => n);
  return xs.length ? flow(xs.map(([k, n]) => pill(`${n} ${k}`, "r-" + k)), w, 4) : text("none", w, { size: 13, cls: "muted" });
};

/** A disaster / innovation card with its text from the server's data module. */
function dcard(comp, id, w, { cls = "", more = [], moves = [], label = null } = {}) {
  const c = cardOf(comp, id);
  return box(w, { title: c ? `${c.type} · ${id}` : id || "—", cls: `ecard disaster ${cls}`.trim(), data: { card: id || "" },
    label: label || (c ? `${c.type} ${id}` : id || "card"),
    inner: (iw) => [
      c ? text(`Hits location ${c.target} · build cost ${c.cost} · bids ${c.bids.join(", ")}`, iw, { size: 12 }) : null,
      c ? text(`Innovation (${words(c.phase)}):`, iw, { size: 12, cls: "muted" }) : null,
      c ? text(c.text, iw, { size: 13, cls: "inst" }) : null,
      ...more.map((m) => m(iw)), ...moves.map((m) => m(iw))] });
}

/** One location tile: type, VP, repair, its ability text, the innovations under it, and the
 * seat's moves with it (placing or destroying, repairing, its abilities). */
function tile(comp, l, w, moves) {
  const t = tileOf(comp, l.tile);
  return box(w, { title: `${l.position}. ${l.type}`, cls: `ecard tile${l.healthy ? "" : " destroyed"}${moves.length ? " legal" : ""}`,
    data: { tile: l.tile }, label: `location ${l.position}: ${l.type}${l.healthy ? "" : " (destroyed)"}`,
    inner: (iw) => [text(`${l.vp} VP · repair ${l.repair}${l.healthy ? "" : " · destroyed"}`, iw, { size: 12, cls: l.healthy ? "" : "bad" }),
      t ? text(`${words(t.phase)}: ${t.text}`, iw, { size: 12, cls: "small" }) : null,
      ...l.innovations.map((i) => {
        const c = cardOf(comp, i.card);
        return box(iw, { cls: "sub innov" + (i.exhausted ? " exhausted" : ""), padX: 5, padY: 3, label: `innovation ${i.card}`,
          inner: (jw) => [text(`${c ? c.type : i.card} ${i.card}${i.exhausted ? " (exhausted)" : ""}`, jw, { size: 12, weight: "600" }),
            c ? text(c.text, jw, { size: 12, cls: "inst" }) : null] });
      }),
      ...moves.map((m) => m(iw))] });
}

function trackBlock(v, W) {
  return flow(v.track.map((p, i) => {
    const cls = i + 1 === v.phase_number ? "now" : i + 1 < v.phase_number ? "past" : "";
    const label = `${i + 1} ${words(p)}`;
    const w = Math.ceil(textWidth(label, 12, cls === "now" ? "700" : "normal")) + 12;
    return block(w, 24, (x, y) => s("g", { class: cls },
      s("rect", { x, y, width: w, height: 24, rx: 4, class: "cell" }),
      s("text", { x: x + 6, y: y + 16, class: "t", "font-size": 12, "font-weight": cls === "now" ? 700 : null }, label)));
  }), W, 3);
}

export default {
  board(v, ctx) {
    redrawOnResize(ctx);
    const W = boardWidth();
    const comp = ctx.components;
    const pick = seqState("end-pick", ctx);
    const own = (id) => (pick[`@${id}`] ||= {}); // a card's or a tile's own half-made choices
    const legal = legalOf(ctx, ON_BOARD);
    const used = new Set();
    const take = (pred) => legal.filter((a) => !used.has(a) && pred(a)).map((a) => { used.add(a); return a; });
    const bw = (w) => Math.min(w, 280);
    const parts = [
      kv({ Phase: `${v.phase_number} of ${v.track.length}: ${words(v.phase)}`, "First player": ctx.name(v.first_player),
        Awaiting: v.awaiting.length ? v.awaiting.map(ctx.name).join(", ") : "—", "Draw deck": v.deck_count,
        "Discard": v.discard_count, "Conflict deck": v.conflict_deck_count }),
      sectionSvg("Track", trackBlock(v, W), "track"),
    ];
    const d = v.disaster;
    if (d) {
      const cards = grid(W, 230, (sl, cw, i) => {
        const mine = take((a) => ["bid", "take", "free_bid", "replace"].includes(a.type) && a.disaster === i);
        return dcard(comp, sl.card, cw, { cls: (sl.closed ? "closed" : "") + (mine.length ? " legal" : ""), label: `disaster ${i + 1}: ${sl.card || "empty"}`,
          more: [(iw) => text(`Bids: ${tokens(sl.bids)}${sl.closed ? " · closed" : ""}`, iw, { size: 12, weight: "600" })],
          moves: mine.length ? [(iw) => vstack(moveBlocks(mine, ctx, bw(iw)))] : [] });
      }, d.slots);
      const shore = take((a) => a.type === "shore_up");
      parts.push(sectionSvg("Disasters", vstack([cards,
        text(`Bidder: ${d.bidder === null ? "—" : ctx.name(d.bidder)}`, W, { size: 13 }),
        d.resolution ? text(`${ctx.name(d.resolution.seat)} takes ${d.resolution.card} → location ${d.resolution.target} (${words(d.resolution.stage)})`, W, { size: 13, weight: "600" }) : null,
        shore.length ? box(W, { cls: "yourbid", label: "Shore up", inner: (iw) => [text("Shore up: buy coins for 2 VP each, any number up to what you can afford:", iw, { size: 13, weight: "600" }),
          ...moveBlocks(shore, ctx, bw(iw), { amountKey: "coins", amountLabel: (n) => (n ? `Shore up: buy ${n} coins (${2 * n} VP)` : "Do not shore up") })] }) : null]), "disasters"));
    }
    const fist = openSlot(ctx, (x) => x.context && "base_strength" in x.context);
    if (v.conflict_card || fist) {
      const id = v.conflict_card || (fist && fist.context.card);
      const k = comp && comp.conflicts.find((c) => c.id === id);
      parts.push(sectionSvg(`Conflict card ${id}`, vstack([
        box(W, { title: `Conflict ${id}`, cls: "ecard conflict", label: `conflict card ${id}`, inner: (iw) => [text(k ? k.text : id, iw, { size: 13, cls: "inst" })] }),
        fist ? box(W, { cls: "yourbid", label: "Your closed fist", inner: (iw) => [
          text(`Your closed fist: your base strength is ${fist.context.base_strength}; choose the axes and coins to hold (sealed until every fist is in).`, iw, { size: 13, weight: "600", cls: "yourmove" }),
          sealFieldsBlock(ctx, fist, ["axes", "coins"], (c) => `Seal my fist: ${c.axes} axes, ${c.coins} coins`, iw, seqState("end-fist", ctx))] }) : null]), "conflict"));
    }
    // the seat's own empire first: its tiles carry the moves made with them
    const me = v.players.find((p) => p.seat === ctx.seat);
    const atTile = (l) => take((a) => (AT_TILE.has(a.type) && a.tile === l.tile)
      || (BY_SOURCE.has(a.type) && (a.source === l.tile || l.innovations.some((i) => i.card === a.source))));
    const tileMoves = me ? Object.fromEntries(me.empire.map((l) => [l.tile, atTile(l)])) : {};
    if (v.you) {
      const w = v.you.work;
      const hand = v.you.hand.length ? grid(W, 230, (id, cw) => {
        const mine = take((a) => (a.type === "sell" || a.type === "build") && a.card === id);
        return dcard(comp, id, cw, { cls: mine.length ? "legal" : "", moves: mine.length ? [(iw) => vstack(pickBlocks(mine, ctx, bw(iw), own(id),
          { amountKey: "coins", valueLabel: (kk, x) => (kk === "tile" ? `${(tileOf(comp, x) || { type: x }).type}` : String(x)) }))] : [] });
      }, v.you.hand) : text("empty", W, { size: 13, cls: "muted" });
      parts.push(sectionSvg("You", vstack([text("Resources:", W, { size: 12, cls: "muted" }), pills(v.you.resources, W),
        w ? text(`Work: ${words(w.stage)}; to do: ${w.todo.join(", ") || "—"}; acts ${w.acts}`, W, { size: 13 }) : null,
        w && w.conversions.length ? text(`Conversions: ${w.conversions.map((c) => `${c.source} (${c.left} left)`).join(", ")}`, W, { size: 13 }) : null,
        text("Your hand", W, { size: 14, weight: "600" }), hand]), "you"));
    }
    // the turn's other moves: which stage first, any ability not on a tile, ending
    const order = take((a) => a.type === "choose_order");
    const other = take((a) => !["discard_hand", "end_economy", "end_industry", "end_turn"].includes(a.type));
    const finish = take(() => true);
    const panel = (title, acts) => (acts.length ? box(W, { title, cls: "plays", label: title,
      inner: (iw) => [flow(pickBlocks(acts, ctx, bw(iw), pick, { amountKey: "coins" }), iw, 8)] }) : null);
    const turn = [panel("Your turn: which stage first", order), panel("Abilities and innovations", other), panel("Finish", finish)].filter(Boolean);
    if (turn.length) parts.push(sectionSvg("Your moves", vstack(turn, 8), "moves"));
    parts.push(sectionSvg("Empires", vstack(v.players.map((p) => vstack([
      text(`${ctx.name(p.seat)} — ${p.vp} VP · strength ${p.base_strength} · ${p.hand_count} cards · ${p.destroyed} destroyed`, W, { size: 14, weight: "600" }),
      grid(W, 200, (l, cw) => tile(comp, l, cw, p.seat === ctx.seat ? (tileMoves[l.tile] || []).length
        ? [(iw) => vstack(pickBlocks(tileMoves[l.tile], ctx, bw(iw), own(l.tile), { amountKey: "coins" }))] : [] : []), p.empire)]), 14)), "empires"));
    if (v.final) {
      parts.push(section("Final score", table(["Player", "Total", "Track", "Locations", "Innovations", "Destroyed"],
        v.final.map((f, s) => [ctx.name(s), String(f.total), String(f.vp_track), String(f.locations), String(f.innovations), String(f.destroyed)]))));
    }
    if (comp && comp.reconstructed && comp.reconstructed.length) {
      parts.push(drawing(text("Reconstructed data: " + comp.reconstructed.join("; ") + ".", W, { size: 12, cls: "muted recon" }), "Reconstructed data"));
    }
    return h("div.board.end", parts);
  },
  boardActions: ON_BOARD,
  label(a, ctx) {
    const comp = ctx && ctx.components;
    // a tile or card by name from the data module ("Road (14 VP)", "Fire 7"), else its id
    const thing = (id) => {
      const t = tileOf(comp, id);
      if (t) return `${t.type} (${t.vp} VP)`;
      const c = cardOf(comp, id);
      return c ? `${c.type} ${id.split("-").pop()}` : id;
    };
    const conv = (a.type === "convert" && (tileOf(comp, a.source) || cardOf(comp, a.source)) || {}).convert;
    const m = {
      bid: () => `Bid 1 ${a.resource} on disaster ${a.disaster + 1}`,
      take: () => `Take disaster ${a.disaster + 1}`,
      free_bid: () => `Free bid on disaster ${a.disaster + 1} with ${a.card}`,
      place: () => `Place innovation at ${thing(a.tile)}`,
      destroy: () => `Destroy ${thing(a.tile)}`,
      shore_up: () => (a.coins ? `Shore up: buy ${a.coins} coins (2 VP each)` : "Do not shore up"),
      build: () => `Build ${thing(a.card)} at ${thing(a.tile)} (${a.coins} coins)`,
      sell: () => `Sell ${thing(a.card)}`,
      repair: () => `Repair ${thing(a.tile)} (${a.coins} coins)`,
      end_economy: () => "End economy",
      end_industry: () => "End industry",
      end_turn: () => "End turn",
      discard_hand: () => "Discard hand",
      choose_order: () => `Do ${a.first} first`,
      convert: () => (conv ? `${thing(a.source)}: 1 ${conv.src} → ${tokens(conv.outs[a.option])}`
        : `Convert with ${thing(a.source)} (choice ${a.option + 1})`),
      repeat: () => `Repeat ${thing(a.target)} with ${thing(a.source)}`,
      replace: () => `Replace disaster ${a.disaster + 1} with ${a.card}`,
      swap: () => `Swap ${thing(a.a)} and ${thing(a.b)} (${thing(a.source)})`,
      move: () => `Move ${thing(a.card)} under ${thing(a.tile)} (${thing(a.source)})`,
      refresh: () => `Refresh ${thing(a.card)} (${thing(a.source)})`,
    }[a.type];
    return m ? m() : null;
  },
  choiceLabel: (c) => `${c.axes} axes, ${c.coins} coins`,
  slotContext(slot) {
    const c = slot.context || {};
    return `Conflict ${c.card}: your base strength is ${c.base_strength}; put axes and coins in your fist.`;
  },
};
