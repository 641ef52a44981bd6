// Empire's End: a 20-phase track of disasters (bid tokens or take the disaster), economy,
// industry and sealed conflicts (axes and coins in a closed fist).
import { h, kv, section, table, words } from "../dom.js";

const tokens = (r) => Object.entries(r || {}).map(([k, n]) => `${n} ${k}`).join(", ") || "none";

function empire(p) {
  return table(["#", "Location", "VP", "Repair", "State", "Innovations"], p.empire.map((l) => h("tr", { class: l.healthy ? "" : "destroyed" },
    h("td", String(l.position)), h("td", `${l.tile} (${l.type})`), h("td.num", String(l.vp)), h("td.num", String(l.repair)),
    h("td", l.healthy ? "healthy" : "destroyed"),
    h("td", l.innovations.map((i) => i.card + (i.exhausted ? " (exhausted)" : "")).join(", ") || "—"))), "compact");
}

export default {
  board(v, ctx) {
    const parts = [
      kv({ Phase: `${v.phase_number} of ${v.track.length}: ${words(v.phase)}`, "First player": ctx.name(v.first_player),
        Awaiting: v.awaiting.length ? v.awaiting.map(ctx.name).join(", ") : "—", "Draw deck": v.deck_count,
        "Discard": v.discard_count, "Conflict card": v.conflict_card || "—", "Conflict deck": v.conflict_deck_count }),
      section("Track", h("ol.track", v.track.map((p, i) => h("li", { class: i + 1 === v.phase_number ? "now" : i + 1 < v.phase_number ? "past" : "" }, words(p))))),
    ];
    const d = v.disaster;
    if (d) {
      parts.push(section("Disasters", table(["#", "Card", "Target", "Accepts", "Bids", ""], d.slots.map((s, i) =>
        [String(i), s.card || "—", s.target === null ? "—" : `location ${s.target}`, s.accepts.join(", "), tokens(s.bids), s.closed ? "closed" : ""])),
        kv({ Bidder: d.bidder === null ? "—" : ctx.name(d.bidder),
          Resolution: d.resolution ? `${ctx.name(d.resolution.seat)} takes ${d.resolution.card} → location ${d.resolution.target} (${words(d.resolution.stage)})` : null })));
    }
    if (v.you) {
      const w = v.you.work;
      parts.push(section("You", kv({ Resources: tokens(v.you.resources), Hand: v.you.hand.join(", ") || "empty",
        Work: w ? `${words(w.stage)}; to do: ${w.todo.join(", ") || "—"}; acts ${w.acts}` : null,
        Conversions: w && w.conversions.length ? w.conversions.map((c) => `${c.source} (${c.left} left)`).join(", ") : null })));
    }
    parts.push(section("Empires", h("div.cols", v.players.map((p) => h("div", { class: p.seat === v.seat ? "me" : "" },
      h("h4", `${ctx.name(p.seat)} — ${p.vp} VP · strength ${p.base_strength} · ${p.hand_count} cards · ${p.destroyed} destroyed`),
      empire(p))))));
    if (v.final) {
      parts.push(section("Final score", table(["Player", "Total", "Track", "Locations", "Innovations", "Destroyed"],
        v.final.map((f, s) => [ctx.name(s), String(f.total), String(f.vp_track), String(f.locations), String(f.innovations), String(f.destroyed)]))));
    }
    return h("div.board.end", parts);
  },
  label(a) {
    const m = {
      bid: () => `Bid 1 ${a.resource} on disaster ${a.disaster}`,
      take: () => `Take disaster ${a.disaster}`,
      free_bid: () => `Free bid on ${a.disaster} with ${a.card}`,
      place: () => `Place innovation at ${a.tile}`,
      destroy: () => `Destroy ${a.tile}`,
      shore_up: () => (a.coins ? `Shore up: buy ${a.coins} coins (2 VP each)` : "Do not shore up"),
      build: () => `Build ${a.card} at ${a.tile} (${a.coins} coins)`,
      sell: () => `Sell ${a.card}`,
      repair: () => `Repair ${a.tile} (${a.coins} coins)`,
      end_economy: () => "End economy",
      end_industry: () => "End industry",
      end_turn: () => "End turn",
      discard_hand: () => "Discard hand",
      choose_order: () => `Do ${a.first} first`,
      convert: () => `Convert with ${a.source} (option ${a.option})`,
      repeat: () => `Repeat ${a.target} with ${a.source}`,
      replace: () => `Replace disaster ${a.disaster} with ${a.card}`,
      swap: () => `Swap ${a.a} and ${a.b} (${a.source})`,
      move: () => `Move ${a.card} under ${a.tile} (${a.source})`,
      refresh: () => `Refresh ${a.card} (${a.source})`,
    }[a.type];
    return m ? m() : null;
  },
  choiceLabel: (c) => `${c.axes} axes, ${c.coins} coins`,
  slotContext(slot) {
    const c = slot.context || {};
    return `Conflict ${c.card}: your base strength is ${c.base_strength}; put axes and coins in your fist.`;
  },
};
