// Empire (beginner and standard): auctions of the resource row, open trading, sealed
// commerce (and nation claiming in standard), development, support.
import { h, kv, section, table, words } from "../dom.js";
import { s } from "../svg.js";
import { TAP, block, box, boardWidth, chipButton, textWidth, button, drawing, flow, grid, moveBlocks, pill, redrawOnResize, sectionSvg, stepper, text, vstack } from "./drawn.js";
import { legalOf, openSlot } from "./kit.js";

const RES = ["goods", "populations", "colonies", "bonds", "supporters", "revolts", "gold"];
const bundle = (b) => Object.entries(b || {}).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(", ") || "nothing";

function offerText(o, ctx) {
  return `#${o.offer} ${ctx.name(o.from)} → ${ctx.name(o.to)}: gives ${bundle(o.give)} for ${bundle(o.get)}`;
}

// the seat's trade offer as it is being put together on the board (kept across new views,
// which come often while others bid and trade; emptied once sent)
let draft = { game: null, open: false, to: null, give: {}, get: {} };
const MAX_ASK = 20; // the most of one kind asked for when the other seat's holdings are hidden

/** The trade offer drawn on the board (E-6, E-7): whom to, then − / + for each kind of card
 * given and asked for, and one move naming the whole offer. */
function offerBlock(v, ctx, W) {
  if (draft.game !== ctx.players) draft = { game: ctx.players, open: false, to: null, give: {}, get: {} };
  const others = v.players.map((p) => p.seat).filter((x) => x !== v.seat);
  const toggle = button(draft.open ? "Hide the trade offer" : "Offer a trade…", () => { draft.open = !draft.open; ctx.redraw(); },
    Math.min(W, 240), { go: false, cls: "toggle", pressed: draft.open });
  if (!draft.open) return toggle;
  if (!others.includes(draft.to)) draft.to = others[0];
  const target = v.players.find((p) => p.seat === draft.to);
  const mine = (v.you && v.you.tradeable) || {};
  const side = (key, title, most) => {
    const cw = 200;
    const cells = RES.map((r) => {
      const n = draft[key][r] || 0;
      const max = most(r);
      const set = (d) => () => { draft[key][r] = Math.min(max, Math.max(0, n + d)); ctx.redraw(); };
      return block(cw, TAP, (x, y) => {
        const minus = button("−", set(-1), TAP, { go: false, cls: "step", size: 20 }).draw(x + 96, y);
        minus.setAttribute("aria-label", `${title}: one ${r} less`);
        const plus = button("+", set(1), TAP, { go: false, cls: "step", size: 20 }).draw(x + 96 + TAP + 14, y);
        plus.setAttribute("aria-label", `${title}: one ${r} more`);
        return s("g", { class: "field", role: "group", "aria-label": `${title}: ${n} ${r}` },
          s("text", { x, y: y + 27, class: "t", "font-size": 13 }, r),
          s("text", { x: x + 96 + TAP + 7, y: y + 28, "text-anchor": "middle", class: "t amt", "font-size": 16, "font-weight": 700 }, String(n)),
          n > 0 ? minus : null, n < max ? plus : null);
      });
    });
    return vstack([text(title, W, { size: 13, weight: "600" }), flow(cells, W, 6)], 4);
  };
  const pick = (b) => Object.fromEntries(RES.map((r) => [r, b[r] || 0]).filter(([, n]) => n > 0));
  const offer = { type: "offer_trade", to: draft.to, give: pick(draft.give), get: pick(draft.get) };
  const empty = !Object.keys(offer.give).length && !Object.keys(offer.get).length;
  const send = button(empty ? "Choose what to give and what to ask for" : `Offer ${ctx.name(draft.to)}: you give ${bundle(offer.give)} for ${bundle(offer.get)}`,
    () => { draft = { game: ctx.players, open: false, to: null, give: {}, get: {} }; ctx.act(offer); }, Math.min(W, 360),
    { disabled: empty || !!ctx.busy, cls: "offer" });
  return vstack([toggle,
    text("To:", W, { size: 13, weight: "600" }),
    flow(others.map((x) => chipButton(ctx.name(x), () => { draft.to = x; ctx.redraw(); }, { go: false, pressed: draft.to === x })), W, 6),
    side("give", "You give", (r) => mine[r] ?? 0),
    side("get", `You ask ${ctx.name(draft.to)} for`, (r) => ((target && (target.tradeable || target.holdings)) || {})[r] ?? MAX_ASK),
    send], 8);
}

// ---- the drawn board (SVG, drawn.js): cards from the server's component data
// (GET /api/games/empire/components); nothing here keeps its own copy of their text

const sing = (comp, k, n) => (n === 1 && comp ? comp.singular[k] || k : k);
const pills = (b, comp, w) => {
  const xs = Object.entries(b || {}).filter(([, n]) => n);
  return xs.length ? flow(xs.map(([k, n]) => pill(`${n} ${sing(comp, k, n)}`, "r-" + k)), w, 4) : text("nothing", w, { size: 13, cls: "muted" });
};
const nationOf = (comp, number) => (comp && comp.nations ? comp.nations.find((n) => n.number === number) : null);
const reconstructedTag = (comp, w) => (comp && comp.reconstructed && comp.reconstructed.length
  ? text("Reconstructed data: " + comp.reconstructed.join("; ") + ".", w, { size: 12, cls: "muted recon" }) : null);

/** A nation card: its starting cards and its national institution (the data module's text). */
function nationCard(n, comp, w, { cls = "", more = [], onPick = null, label = null } = {}) {
  return box(w, { title: `${n.name} · nation ${n.number}`, cls: `ecard nation ${cls}`.trim(), data: { nation: n.number },
    onPick, go: !!onPick, label: label || `${n.name}: starting cards and institution`,
    inner: (iw) => [text("Starting cards:", iw, { size: 12, cls: "muted" }), pills(n.start, comp, iw),
      text("Institution:", iw, { size: 12, cls: "muted" }), text(n.text, iw, { size: 13, cls: "inst" }), ...more.map((m) => m(iw))] });
}

/** E-2: the highest untied bid among seats still in wins, even a 0; all tied: nobody. */
function leader(a, minOne) {
  const live = a.bids.map((b, s) => [b, s]).filter(([, s]) => !a.withdrawn[s]);
  const count = (b) => live.filter(([x]) => x === b).length;
  const untied = live.filter(([b]) => count(b) === 1).sort((x, y) => y[0] - x[0]);
  if (!untied.length || (minOne && untied[0][0] < 1)) return null;
  return { seat: untied[0][1], bid: untied[0][0] };
}

function rowBlock(v, W) {
  const a = v.auction;
  const cw = Math.min(W, Math.max(86, ...v.row.map((c) => Math.ceil(textWidth(words(c.resource), 13, "700")) + 14)));
  return flow(v.row.map((c) => {
    const now = a && a.card === c.index;
    const status = c.status === "waiting" ? "to come" : c.status === "auction" ? "bidding now" : c.status;
    return box(cw, { cls: `rowcard ${c.status}${now ? " now" : ""} r-${c.resource}`, data: { card: c.index },
      label: `card ${c.index + 1}: ${c.resource} (${status})`, padX: 5,
      inner: (iw) => [text(`card ${c.index + 1}`, iw, { size: 11, cls: "muted", center: true }),
        text(words(c.resource), iw, { size: 13, weight: "700", center: true }), text(status, iw, { size: 11, cls: "muted", center: true })] });
  }), W, 6);
}

function auctionBlock(v, ctx, W) {
  const a = v.auction;
  const comp = ctx.components;
  const lead = leader(a, v.options && v.options.min_winning_bid_one);
  const live = a.withdrawn.filter((x) => !x).length;
  const what = comp ? comp.singular[a.resource] || a.resource : a.resource;
  let status;
  if (!lead) status = a.bids.every((b, s) => a.withdrawn[s] || b === 0) ? "No bids yet: if everyone passes, nobody wins this card."
    : "Every bid is tied: nobody would win it now.";
  else status = `${ctx.name(lead.seat)} would win the ${what} for ${lead.bid} gold if it closed now.`;
  const bids = flow(v.players.map((p) => {
    const out = a.withdrawn[p.seat], leads = lead && lead.seat === p.seat, acts = a.to_act === p.seat;
    return box(Math.min(W, Math.max(132, Math.ceil(textWidth(ctx.name(p.seat), 13)) + 18)), { cls: ["bid", out ? "out" : "", leads ? "lead" : "", acts ? "toact" : "", p.seat === v.seat ? "me" : ""].join(" "),
      data: { seat: p.seat }, label: `${ctx.name(p.seat)}: ${out ? "withdrawn" : `${a.bids[p.seat]} gold`}${leads ? ", leads" : acts ? ", to act" : ""}`,
      inner: (iw) => [text(ctx.name(p.seat), iw, { size: 13 }), text(out ? "withdrawn" : `${a.bids[p.seat]} gold`, iw, { size: 16, weight: "700", cls: "amount" }),
        text(leads ? "leads" : acts ? "to act" : " ", iw, { size: 12, cls: "muted" })] });
  }), W, 6);
  const parts = [text(status, W, { size: 15, weight: "600", cls: "status" }),
    text(`The auction closes when every seat still in has passed in a row (${a.passes} of ${live} so far; RULINGS E-1).`, W, { size: 12, cls: "muted" }),
    bids];
  const mine = legalOf(ctx, ["pass", "withdraw", "raise"]);
  if (mine.length) {
    const me = ctx.seat;
    const closes = a.passes + 1 >= live;
    const iLead = lead && lead.seat === me;
    const pass = mine.find((x) => x.type === "pass");
    const bw = Math.min(W, 300);
    const row = [];
    if (pass) {
      row.push(button(iLead && closes ? `Take it: win the ${what} for ${a.bids[me]} gold`
        : iLead ? `Pass, keeping the lead at ${a.bids[me]} gold` : `Pass (stay at ${a.bids[me]} gold)`, () => ctx.act(pass), bw,
      { disabled: !!ctx.busy, cls: "pass" + (iLead && closes ? " take" : "") }));
    }
    // withdrawing is legal while tied (E-1), but at 0 with every bid still 0 it only drops out
    // of an untouched auction: not offered then
    const allZero = a.bids.every((b, s) => a.withdrawn[s] || b === 0);
    if (!allZero) row.push(...moveBlocks(mine.filter((x) => x.type === "withdraw"), ctx, bw));
    const raises = mine.filter((x) => x.type === "raise");
    if (raises.length) {
      row.push(vstack([text("Raise your bid to:", bw, { size: 12, cls: "muted" }),
        ...moveBlocks(raises, ctx, bw, { amountKey: "bid", amountLabel: (n) => `Bid ${n} gold`, cls: "raise" })], 3));
    }
    parts.push(box(W, { cls: "yourbid", label: "Your bid", inner: (iw) => [
      text(iLead && closes ? "You lead and everyone else has passed: take it." : iLead ? "You lead: pass to keep your bid." : "Your bid:", iw,
        { size: 14, weight: "600", cls: "yourmove" }), flow(row, iw, 8)] }));
  }
  return vstack(parts, 6);
}

function claimBlock(v, ctx, W) {
  const comp = ctx.components;
  const slot = openSlot(ctx, (x) => String(x.round_id).startsWith("claim"));
  const cards = grid(W, 230, (m, cw) => {
    const { number, name, institution, ...stack } = m;
    const n = nationOf(comp, number) || { number, name, start: {}, text: institution || "" };
    const ok = slot && slot.allowed.includes(number) && !ctx.busy;
    return nationCard(n, comp, cw, { cls: ok ? "legal" : "", label: ok ? `Claim ${n.name}` : null,
      onPick: ok ? () => ctx.commit(slot, number) : null,
      more: [(iw) => text("Stack with it:", iw, { size: 12, cls: "muted" }), (iw) => pills(stack, comp, iw),
        ...(ok ? [(iw) => text(`Click to claim ${n.name} (sealed)`, iw, { size: 13, weight: "700", cls: "cta" })] : [])] });
  }, v.claim.market);
  return vstack([slot ? text("Choose a nation: your selection card is sealed until every seat has chosen.", W, { size: 14, weight: "600", cls: "yourmove" }) : null,
    cards], 6);
}

function commerceBlock(v, ctx, W) {
  const slot = openSlot(ctx, (x) => String(x.round_id).startsWith("commerce"));
  if (!slot) return null;
  const ns = slot.allowed.filter(Number.isInteger);
  const c = slot.context || {};
  return vstack([text(`You hold ${c.goods} goods; the price is 10 minus all sales.`, W, { size: 14 }),
    stepper({ w: Math.min(W, 300), min: Math.min(...ns), max: Math.max(...ns), value: Math.min(...ns), name: "goods", legal: new Set(ns),
      label: (n) => `Sell ${n} goods`, onPick: (n) => ctx.commit(slot, n) })]);
}

function empiresBlock(v, ctx, W) {
  const comp = ctx.components;
  return grid(W, 250, (p, cw) => box(cw, { title: ctx.name(p.seat),
    cls: "empire" + (p.seat === v.seat ? " me" : ""), data: { seat: p.seat }, label: `${ctx.name(p.seat)}'s empire`,
    inner: (iw) => [text(`Nation: ${p.nation_name || "—"} · support ${p.support ?? "—"}${p.done ? " · done" : ""}`, iw, { size: 13 }),
      p.holdings ? flow(RES.map((r) => pill(`${p.holdings[r]} ${sing(comp, r, p.holdings[r])}`, "r-" + r)), iw, 4)
        : text("holdings hidden", iw, { size: 13, cls: "muted" })] }), v.players);
}

function offersBlock(v, ctx, W) {
  return grid(W, 280, (o, cw) => {
    const mine = legalOf(ctx, ["accept", "decline", "cancel"], (a) => a.offer === o.offer);
    return box(cw, { cls: "offer" + (mine.length ? " legal" : ""), data: { offer: o.offer }, label: `offer ${o.offer}`,
      inner: (iw) => [text(offerText(o, ctx), iw, { size: 13 }), mine.length ? flow(moveBlocks(mine, ctx, Math.min(iw, 240)), iw, 6) : null] });
  }, v.offers);
}
export default {
  board(v, ctx) {
    redrawOnResize(ctx);
    const W = boardWidth();
    const comp = ctx.components;
    const parts = [
      kv({ Version: v.version, Round: v.round, Phase: words(v.phase), "Developments left": v.developments_left,
        "Start player": v.start_player === null ? "—" : ctx.name(v.start_player),
        "Last commerce": v.last_commerce ? `price ${v.last_commerce.price}, sold ${v.last_commerce.sold.join("/")}` : null }),
      sectionSvg("Auction row", rowBlock(v, W), "auction-row"),
    ];
    if (v.auction) parts.push(sectionSvg(`Auction: card ${v.auction.card + 1}, ${words(v.auction.resource)}`, auctionBlock(v, ctx, W), "auction"));
    if (v.claim) parts.push(sectionSvg(`Nation market (selection round ${v.claim.round})`, claimBlock(v, ctx, W), "market"));
    const sell = commerceBlock(v, ctx, W);
    if (sell) parts.push(sectionSvg("Commerce: sell goods (sealed)", sell, "commerce"));
    parts.push(sectionSvg("Empires", empiresBlock(v, ctx, W), "empires"));
    if (comp && comp.nations) {
      const claimed = v.players.filter((p) => p.nation !== null && p.nation !== undefined);
      if (claimed.length) {
        parts.push(sectionSvg("Nation cards", grid(W, 230, (p, cw) => nationCard(nationOf(comp, p.nation) || { number: p.nation, name: p.nation_name, start: {}, text: "" },
          comp, cw, { cls: p.seat === v.seat ? "me" : "", more: [(iw) => text(`Held by ${ctx.name(p.seat)}`, iw, { size: 13, weight: "600" })] }), claimed), "nations"));
      } else if (v.version === "beginner") {
        parts.push(sectionSvg("Starting cards (beginner version: no nations)", pills(comp.beginner_start, comp, W), "start"));
      }
      const rec = reconstructedTag(comp, W);
      if (rec) parts.push(drawing(rec, "Reconstructed data"));
    }
    if (v.you) {
      parts.push(sectionSvg("You", vstack([text(`Locked in bids: ${v.you.locked_gold} gold`, W, { size: 13 }),
        text("Tradeable now:", W, { size: 12, cls: "muted" }), pills(v.you.tradeable, comp, W)]), "you"));
    }
    if (v.offers.length) parts.push(sectionSvg("Open offers", offersBlock(v, ctx, W), "offers"));
    // open trading (E-6, E-7): the offer put together on the drawing and "done", for a seated
    // player while it has a move to make (its turn in an auction, or the trade window)
    if (v.trading_open && v.seat !== null && v.seat !== undefined) {
      const done = legalOf(ctx, ["done"]);
      const mayOffer = (ctx.legal || []).length > 0 && !ctx.busy;
      parts.push(sectionSvg("Trading", vstack([text(done.length ? "The trade window is open: make offers, answer them, then say you are done."
        : "The trade window is open.", W, { size: 13 }), mayOffer ? offerBlock(v, ctx, W) : null, ...moveBlocks(done, ctx, Math.min(W, 260))], 8), "trading"));
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
