// Empire (beginner and standard): auctions of the resource row, open trading, sealed
// commerce (and nation claiming in standard), development, support.
import { amount } from "../controls.js";
import { h, kv, section, table, words } from "../dom.js";
import { legalOf, moveButtons, openSlot, sealButton } from "./kit.js";

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
  return h("details.panel.offerform", h("summary", "Offer a trade"), form);
}

// ---- the drawn parts: cards from the server's component data (GET /api/games/empire/components)

const chip = (k, n, comp) => h("span.res", { class: "r-" + k, title: k }, `${n} ${n === 1 && comp ? comp.singular[k] || k : k}`);
const chips = (b, comp) => {
  const xs = Object.entries(b || {}).filter(([, n]) => n);
  return xs.length ? h("span.chips", xs.map(([k, n]) => chip(k, n, comp))) : h("span.muted", "nothing");
};

/** A nation card: its starting cards and its national institution (the data module's text). */
function nationCard(n, comp, extra = {}) {
  return h("div.ecard.nation", { class: extra.cls || "", dataset: { nation: n.number } },
    h("div.ecard-title", h("b", n.name), h("small", ` #${n.number}`)),
    h("div.ecard-row", h("small.muted", "Starting cards: "), chips(n.start, comp)),
    h("div.ecard-row", h("small.muted", "Institution: "), h("span.inst", n.text)),
    extra.more || null, extra.buttons || null);
}

const nationOf = (comp, number) => (comp && comp.nations ? comp.nations.find((n) => n.number === number) : null);

/** E-2: the highest untied bid among seats still in wins, even a 0; all tied: nobody. */
function leader(a, minOne) {
  const live = a.bids.map((b, s) => [b, s]).filter(([, s]) => !a.withdrawn[s]);
  const count = (b) => live.filter(([x]) => x === b).length;
  const untied = live.filter(([b]) => count(b) === 1).sort((x, y) => y[0] - x[0]);
  if (!untied.length || (minOne && untied[0][0] < 1)) return null;
  return { seat: untied[0][1], bid: untied[0][0] };
}

function auctionPanel(v, ctx) {
  const a = v.auction;
  const comp = ctx.components;
  const lead = leader(a, v.options && v.options.min_winning_bid_one);
  const live = a.withdrawn.filter((w) => !w).length;
  const bids = h("ul.bids", v.players.map((p) => h("li.bid", {
    class: [a.withdrawn[p.seat] ? "out" : "", lead && lead.seat === p.seat ? "lead" : "", a.to_act === p.seat ? "toact" : ""].join(" "),
  }, h("span", ctx.name(p.seat)), h("b", a.withdrawn[p.seat] ? "withdrawn" : `${a.bids[p.seat]} gold`),
  lead && lead.seat === p.seat ? h("small", "leads") : a.to_act === p.seat ? h("small", "to act") : null)));
  const what = comp ? comp.singular[a.resource] || a.resource : a.resource;
  let status;
  if (!lead) status = a.bids.every((b, s) => a.withdrawn[s] || b === 0) ? "No bids yet: if everyone passes, nobody wins this card."
    : "Every bid is tied: nobody would win it now.";
  else status = `${ctx.name(lead.seat)} would win the ${what} for ${lead.bid} gold if it closed now.`;
  const parts = [h("p.auction-status", status),
    h("p.muted.small", `The auction closes when every seat still in has passed in a row (${a.passes} of ${live} so far; RULINGS E-1).`), bids];
  const mine = legalOf(ctx, ["pass", "withdraw", "raise"]);
  if (mine.length) {
    const me = ctx.seat;
    const closes = a.passes + 1 >= live;
    const iLead = lead && lead.seat === me;
    const pass = mine.find((x) => x.type === "pass");
    const passText = iLead && closes ? `Take it: win the ${what} for ${a.bids[me]} gold`
      : iLead ? `Pass, keeping the lead at ${a.bids[me]} gold` : `Pass (stay at ${a.bids[me]} gold)`;
    const row = [];
    if (pass) row.push(h("button.go.onboard.pass", { type: "button", disabled: !!ctx.busy, onclick: () => ctx.act(pass), class: iLead && closes ? "take" : "" }, passText));
    // withdrawing is legal while tied (E-1), but at 0 with every bid still 0 it only drops out
    // of an untouched auction: not offered then (issue 21)
    const allZero = a.bids.every((b, s) => a.withdrawn[s] || b === 0);
    if (!allZero) row.push(...moveButtons(mine.filter((x) => x.type === "withdraw"), ctx));
    const raises = mine.filter((x) => x.type === "raise");
    if (raises.length) row.push(h("div.raise", h("small.muted", "Raise your bid to:"),
      moveButtons(raises, ctx, { amountKey: "bid", amountLabel: (n) => `Bid ${n} gold` })));
    parts.push(h("div.yourbid", h("p.yourmove", iLead && closes ? "You lead and everyone else has passed: take it."
      : iLead ? "You lead: pass to keep your bid." : "Your bid:"), h("div.row", row)));
  }
  return section(`Auction: card ${a.card + 1}, ${words(a.resource)}`, h("div.auction", parts));
}

function rowCards(v, ctx) {
  const a = v.auction;
  return h("ol.cards.auction-row", v.row.map((c) => h("li.card", { class: c.status + (a && a.card === c.index ? " now" : ""),
    dataset: { card: c.index }, title: `card ${c.index + 1}: ${c.resource} (${c.status})` },
  h("small", `card ${c.index + 1}`), h("b", words(c.resource)),
  h("small", c.status === "waiting" ? "to come" : c.status === "auction" ? "bidding now" : c.status))));
}

function claimPanel(v, ctx) {
  const comp = ctx.components;
  const slot = openSlot(ctx, (s) => String(s.round_id).startsWith("claim"));
  const cards = v.claim.market.map((m) => {
    const { number, name, institution, ...stack } = m;
    const n = nationOf(comp, number) || { number, name, start: {}, text: institution || "" };
    const ok = slot && slot.allowed.includes(number);
    return nationCard(n, comp, { cls: ok ? "legal" : "",
      more: h("div.ecard-row", h("small.muted", "Stack with it: "), chips(stack, comp)),
      buttons: ok ? sealButton(ctx, slot, number, `Claim ${n.name}`) : null });
  });
  return section(`Nation market (selection round ${v.claim.round})`,
    slot ? h("p.yourmove", "Choose a nation: your selection card is sealed until every seat has chosen.") : null,
    h("div.ecards", cards));
}

function commercePanel(v, ctx) {
  const slot = openSlot(ctx, (s) => String(s.round_id).startsWith("commerce"));
  if (!slot) return null;
  const ns = slot.allowed.filter(Number.isInteger);
  const c = slot.context || {};
  return section("Commerce: sell goods (sealed)", h("p", `You hold ${c.goods} goods; the price is 10 minus all sales.`),
    amount({ min: Math.min(...ns), max: Math.max(...ns), value: Math.min(...ns), name: "goods",
      label: (n) => `Sell ${n} goods`, onPick: (n) => { if (ns.includes(n)) ctx.commit(slot, n); } }));
}

export default {
  board(v, ctx) {
    const comp = ctx.components;
    const parts = [
      kv({ Version: v.version, Round: v.round, Phase: words(v.phase), "Developments left": v.developments_left,
        "Start player": v.start_player === null ? "—" : ctx.name(v.start_player),
        "Last commerce": v.last_commerce ? `price ${v.last_commerce.price}, sold ${v.last_commerce.sold.join("/")}` : null }),
      section("Auction row", rowCards(v, ctx)),
    ];
    if (v.auction) parts.push(auctionPanel(v, ctx));
    if (v.claim) parts.push(claimPanel(v, ctx));
    const sell = commercePanel(v, ctx);
    if (sell) parts.push(sell);
    parts.push(section("Empires", table(["Player", "Nation", ...RES, "Support", ""], v.players.map((p) => {
      const cells = p.holdings ? RES.map((r) => h("td.num", String(p.holdings[r]))) : RES.map(() => h("td", "hidden"));
      return h("tr", { class: p.seat === v.seat ? "me" : "" }, h("td", ctx.name(p.seat)),
        h("td", p.nation_name || "—"), cells, h("td.num", p.support ?? "—"), h("td", p.done ? "done" : ""));
    }))));
    if (comp && comp.nations) {
      const claimed = v.players.filter((p) => p.nation !== null && p.nation !== undefined);
      if (claimed.length) {
        parts.push(section("Nation cards", h("div.ecards", claimed.map((p) => nationCard(nationOf(comp, p.nation) || { number: p.nation, name: p.nation_name, start: {}, text: "" }, comp,
          { cls: p.seat === v.seat ? "me" : "", more: h("div.ecard-row", h("small.muted", "Held by "), ctx.name(p.seat)) })))));
      } else if (v.version === "beginner") {
        parts.push(section("Starting cards (beginner version: no nations)", chips(comp.beginner_start, comp)));
      }
    }
    if (v.you) {
      parts.push(section("You", kv({ "Locked in bids": `${v.you.locked_gold} gold`,
        "Tradeable now": bundle(v.you.tradeable) })));
    }
    if (v.offers.length) {
      parts.push(section("Open offers", h("ul.offers", v.offers.map((o) => h("li.offerrow", { dataset: { offer: o.offer } },
        h("span", offerText(o, ctx)), moveButtons(legalOf(ctx, ["accept", "decline", "cancel"], (a) => a.offer === o.offer), ctx))))));
    }
    // open trading (E-6, E-7): the offer form and "done" on the board, for every seated player
    if (v.trading_open && v.seat !== null && v.seat !== undefined) {
      const done = legalOf(ctx, ["done"]);
      parts.push(section("Trading", done.length ? h("p", "The trade window is open: make offers, answer them, then say you are done.") : null,
        offerForm(v, ctx), done.length ? h("div.row", moveButtons(done, ctx)) : null));
    }
    if (v.standings) {
      parts.push(section("Standings", table(["Place", "Player", "Support", "Gold"], v.standings
        .slice().sort((a, b) => a.place - b.place).map((s) => [String(s.place), ctx.name(s.seat), String(s.support), String(s.gold)]))));
    }
    return h("div.board.empire", parts);
  },
  // every move is played on the board: the auction (pass / take it, withdraw, any raise by a
  // stepper), the offers (accept, decline, cancel), the offer form and "done"
  boardActions: new Set(["pass", "withdraw", "raise", "accept", "decline", "cancel", "done", "offer_trade"]),
  label(a, ctx) {
    const offer = ctx.view && (ctx.view.offers || []).find((o) => o.offer === a.offer);
    switch (a.type) {
      case "raise": return `Bid ${a.bid} gold`;
      case "pass": return "Pass";
      case "withdraw": return "Withdraw my tied bid";
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
};
