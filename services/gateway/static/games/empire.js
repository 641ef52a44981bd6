// Empire (beginner and standard): auctions of the resource row, open trading, sealed
// commerce (and nation claiming in standard), development, support.
import { h, kv, section, table, words } from "../dom.js";

const RES = ["goods", "populations", "colonies", "bonds", "supporters", "revolts", "gold"];
const bundle = (b) => Object.entries(b || {}).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(", ") || "nothing";

function offerText(o, ctx) {
  return `#${o.offer} ${ctx.name(o.from)} → ${ctx.name(o.to)}: gives ${bundle(o.give)} for ${bundle(o.get)}`;
}

function offerForm(v, ctx) {
  const others = v.players.map((p) => p.seat).filter((s) => s !== v.seat);
  const to = h("select", { name: "to" }, others.map((s) => h("option", { value: s }, ctx.name(s))));
  const row = (side) => h("div.bundle", h("b", side === "give" ? "You give" : "You get"),
    RES.map((r) => h("label", r, h("input", { type: "number", min: 0, value: 0, name: `${side}-${r}`, size: 3 }))));
  const form = h("form.offer", h("label", "Offer to ", to), row("give"), row("get"),
    h("button", { type: "submit" }, "Make offer"));
  form.onsubmit = (e) => {
    e.preventDefault();
    const pick = (side) => Object.fromEntries(RES.map((r) => [r, +form.elements[`${side}-${r}`].value || 0])
      .filter(([, n]) => n > 0));
    ctx.act({ type: "offer_trade", to: +to.value, give: pick("give"), get: pick("get") });
  };
  return h("details.panel", h("summary", "Offer a trade (open trading)"), form);
}

export default {
  board(v, ctx) {
    const auction = v.auction;
    const parts = [
      kv({ Version: v.version, Round: v.round, Phase: words(v.phase), "Developments left": v.developments_left,
        "Start player": v.start_player === null ? "—" : ctx.name(v.start_player),
        "Last commerce": v.last_commerce ? `price ${v.last_commerce.price}, sold ${v.last_commerce.sold.join("/")}` : null }),
      section("Auction row", h("ol.cards", v.row.map((c) => h("li.card", { class: c.status },
        h("b", words(c.resource)), h("small", c.status === "waiting" ? "" : c.status))))),
    ];
    if (auction) {
      parts.push(section(`Auction: card ${auction.card + 1} (${auction.resource})`,
        table(["Player", "Bid", ""], v.players.map((p) => [ctx.name(p.seat), String(auction.bids[p.seat]),
          auction.withdrawn[p.seat] ? "withdrawn" : p.seat === auction.to_act ? "to act" : ""]))));
    }
    parts.push(section("Empires", table(["Player", "Nation", ...RES, "Support", ""], v.players.map((p) => {
      const cells = p.holdings ? RES.map((r) => h("td.num", String(p.holdings[r]))) : RES.map(() => h("td", "hidden"));
      return h("tr", { class: p.seat === v.seat ? "me" : "" }, h("td", ctx.name(p.seat)),
        h("td", p.nation_name || "—"), cells, h("td.num", p.support ?? "—"), h("td", p.done ? "done" : ""));
    }))));
    if (v.you) {
      parts.push(section("You", kv({ "Locked in bids": `${v.you.locked_gold} gold`,
        "Tradeable now": bundle(v.you.tradeable) })));
    }
    if (v.claim) {
      parts.push(section(`Nation market (selection round ${v.claim.round})`,
        table(["#", "Nation", "Institution", "Stack"], v.claim.market.map((m) => {
          const { number, name, institution, ...stack } = m;
          return [String(number), name, institution || "—", bundle(stack)];
        }))));
    }
    if (v.offers.length) parts.push(section("Open offers", h("ul", v.offers.map((o) => h("li", offerText(o, ctx))))));
    if (v.standings) {
      parts.push(section("Standings", table(["Place", "Player", "Support", "Gold"], v.standings
        .slice().sort((a, b) => a.place - b.place).map((s) => [String(s.place), ctx.name(s.seat), String(s.support), String(s.gold)]))));
    }
    return h("div.board.empire", parts);
  },
  label(a, ctx) {
    const offer = ctx.view && (ctx.view.offers || []).find((o) => o.offer === a.offer);
    switch (a.type) {
      case "raise": return `Bid ${a.bid} gold`;
      case "pass": return "Pass";
      case "withdraw": return "Withdraw (tied)";
      case "done": return "Done trading";
      case "accept": return `Accept ${offer ? offerText(offer, ctx) : "#" + a.offer}`;
      case "decline": return `Decline #${a.offer}`;
      case "cancel": return `Cancel my offer #${a.offer}`;
      default: return null;
    }
  },
  choiceLabel(c, slot) {
    if (!String(slot.round_id).startsWith("claim")) return `Sell ${c} goods`;
    const nation = ((slot.context || {}).nations || []).find((n) => n.number === c);
    return `Claim nation ${c}${nation ? " " + nation.name : ""}`;
  },
  slotContext(slot) {
    const c = slot.context || {};
    if (c.nations) return `Select a nation: ${c.nations.map((n) => `${n.number} ${n.name}`).join(", ")}`;
    if ("goods" in c) return `Commerce, round ${c.round}: you hold ${c.goods} goods; the price is 10 minus all sales.`;
    return null;
  },
  extra(v, msg, ctx) {
    const node = msg.node;
    const mayAct = node.kind === "turn" && (node.seats.includes(v.seat) || node.open_to.includes(v.seat));
    return v.trading_open && v.seat !== null && mayAct ? offerForm(v, ctx) : null;
  },
};
