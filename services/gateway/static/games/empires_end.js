// Empire's End: a 20-phase track of disasters (bid tokens or take the disaster), economy,
// industry and sealed conflicts (axes and coins in a closed fist).
import { h, kv, section, table, words } from "../dom.js";
import { legalOf, moveButtons, movesPanel, openSlot, sealFields } from "./kit.js";

const tokens = (r) => Object.entries(r || {}).map(([k, n]) => `${n} ${k}`).join(", ") || "none";

const cardOf = (comp, id) => (comp && id ? comp.disasters.find((c) => c.id === id) : null);
const tileOf = (comp, id) => (comp && id ? comp.tiles.find((t) => t.id === id) : null);

/** A disaster / innovation card with its text from the server's data module. */
function dcard(comp, id, extra = {}) {
  const c = cardOf(comp, id);
  return h("div.ecard.disaster", { class: extra.cls || "", dataset: { card: id || "" }, title: id || "" },
    h("div.ecard-title", h("b", c ? c.type : id || "—"), h("small", ` ${id || ""}`)),
    c ? h("div.ecard-row.small", `Hits location ${c.target} · build cost ${c.cost} · bids ${c.bids.join(", ")}`) : null,
    c ? h("div.ecard-row", h("small.muted", `Innovation (${words(c.phase)}): `), h("span.inst", c.text)) : null,
    extra.more || null, extra.buttons && extra.buttons.length ? h("div.row", extra.buttons) : null);
}

/** One location tile: type, VP, repair, its ability text and the innovations under it. */
function tile(comp, l, buttons) {
  const t = tileOf(comp, l.tile);
  return h("div.ecard.tile", { class: (l.healthy ? "" : "destroyed") + (buttons.length ? " legal" : ""), dataset: { tile: l.tile } },
    h("div.ecard-title", h("b", `${l.position}. ${l.type}`), h("small", ` ${l.vp} VP · repair ${l.repair}`)),
    t ? h("div.ecard-row.small", h("small.muted", `${words(t.phase)}: `), t.text) : null,
    l.healthy ? null : h("div.bad.small", "destroyed"),
    l.innovations.map((i) => {
      const c = cardOf(comp, i.card);
      return h("div.innov.small", { class: i.exhausted ? "exhausted" : "", title: c ? c.text : i.card },
        h("b", c ? c.type : i.card), ` ${i.card}${i.exhausted ? " (exhausted)" : ""}`, c ? h("span.inst", ` — ${c.text}`) : null);
    }),
    buttons.length ? h("div.row", buttons) : null);
}

// every move is played on the board: on its card or tile, or in the turn's move panels
const ON_BOARD = new Set(["bid", "take", "free_bid", "replace", "place", "destroy", "shore_up", "build", "sell", "repair",
  "choose_order", "convert", "repeat", "swap", "move", "refresh", "discard_hand", "end_economy", "end_industry", "end_turn"]);

export default {
  board(v, ctx) {
    const comp = ctx.components;
    const parts = [
      kv({ Phase: `${v.phase_number} of ${v.track.length}: ${words(v.phase)}`, "First player": ctx.name(v.first_player),
        Awaiting: v.awaiting.length ? v.awaiting.map(ctx.name).join(", ") : "—", "Draw deck": v.deck_count,
        "Discard": v.discard_count, "Conflict deck": v.conflict_deck_count }),
      section("Track", h("ol.track", v.track.map((p, i) => h("li", { class: i + 1 === v.phase_number ? "now" : i + 1 < v.phase_number ? "past" : "" }, words(p))))),
    ];
    const d = v.disaster;
    if (d) {
      parts.push(section("Disasters", h("div.ecards", d.slots.map((s, i) => {
        const mine = legalOf(ctx, ["bid", "take", "free_bid", "replace"], (a) => a.disaster === i);
        return dcard(comp, s.card, { cls: (s.closed ? "closed" : "") + (mine.length ? " legal" : ""),
          more: h("div.ecard-row.small", `Bids: ${tokens(s.bids)}${s.closed ? " · closed" : ""}`),
          buttons: moveButtons(mine, ctx) });
      })), kv({ Bidder: d.bidder === null ? "—" : ctx.name(d.bidder),
        Resolution: d.resolution ? `${ctx.name(d.resolution.seat)} takes ${d.resolution.card} → location ${d.resolution.target} (${words(d.resolution.stage)})` : null })));
      const shore = legalOf(ctx, ["shore_up"]);
      if (shore.length) {
        parts.push(section("Shore up", h("p", "Buy coins for 2 VP each, any number up to what you can afford:"),
          moveButtons(shore, ctx, { amountKey: "coins", amountLabel: (n) => (n ? `Shore up: buy ${n} coins (${2 * n} VP)` : "Do not shore up") })));
      }
    }
    const fist = openSlot(ctx, (x) => x.context && "base_strength" in x.context);
    if (v.conflict_card || fist) {
      const id = v.conflict_card || (fist && fist.context.card);
      const k = comp && comp.conflicts.find((c) => c.id === id);
      parts.push(section(`Conflict card ${id}`, h("div.ecard.conflict", h("span.inst", k ? k.text : id)),
        fist ? h("div.fist", h("p.yourmove", `Your closed fist: your base strength is ${fist.context.base_strength}; choose the axes and coins to hold (sealed until every fist is in).`),
          sealFields(ctx, fist, ["axes", "coins"], (c) => `Seal my fist: ${c.axes} axes, ${c.coins} coins`)) : null));
    }
    // the turn's other moves: order, abilities and innovations, ending a stage or the turn
    parts.push(movesPanel(ctx, "Your turn: which stage first", ["choose_order"]),
      movesPanel(ctx, "Abilities and innovations", ["convert", "repeat", "swap", "move", "refresh"]),
      movesPanel(ctx, "Finish", ["discard_hand", "end_economy", "end_industry", "end_turn"]));
    if (v.you) {
      const w = v.you.work;
      parts.push(section("You", kv({ Resources: tokens(v.you.resources),
        Work: w ? `${words(w.stage)}; to do: ${w.todo.join(", ") || "—"}; acts ${w.acts}` : null,
        Conversions: w && w.conversions.length ? w.conversions.map((c) => `${c.source} (${c.left} left)`).join(", ") : null }),
      h("h4", "Your hand"), v.you.hand.length ? h("div.ecards", v.you.hand.map((id) => {
        const mine = legalOf(ctx, ["sell", "build"], (a) => a.card === id);
        return dcard(comp, id, { cls: mine.length ? "legal" : "", buttons: moveButtons(mine, ctx, { amountKey: "coins" }) });
      })) : h("p.muted", "empty")));
    }
    parts.push(section("Empires", table(["Player", "VP", "Strength", "Cards", "Destroyed"], v.players.map((p) =>
      h("tr", { class: p.seat === v.seat ? "me" : "" }, h("td", ctx.name(p.seat)), h("td.num", String(p.vp)),
        h("td.num", String(p.base_strength)), h("td.num", String(p.hand_count)), h("td.num", String(p.destroyed)))), "compact"),
    v.players.map((p) => h("div.empire-row", { class: p.seat === v.seat ? "me" : "" },
      h("h4", `${ctx.name(p.seat)} — ${p.vp} VP · strength ${p.base_strength}`),
      h("div.ecards.tiles", p.empire.map((l) => tile(comp, l, p.seat === ctx.seat
        ? moveButtons(legalOf(ctx, ["place", "destroy", "repair"], (a) => a.tile === l.tile), ctx, { amountKey: "coins" }) : [])))))));
    if (v.final) {
      parts.push(section("Final score", table(["Player", "Total", "Track", "Locations", "Innovations", "Destroyed"],
        v.final.map((f, s) => [ctx.name(s), String(f.total), String(f.vp_track), String(f.locations), String(f.innovations), String(f.destroyed)]))));
    }
    if (comp && comp.reconstructed && comp.reconstructed.length) parts.push(h("p.muted.small", "Reconstructed data: " + comp.reconstructed.join("; ") + "."));
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
      bid: () => `Bid 1 ${a.resource} on disaster ${a.disaster}`,
      take: () => `Take disaster ${a.disaster}`,
      free_bid: () => `Free bid on ${a.disaster} with ${a.card}`,
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
      replace: () => `Replace disaster ${a.disaster} with ${a.card}`,
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
