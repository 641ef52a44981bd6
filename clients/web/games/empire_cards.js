// Empire The Card Game: build armies and empire sets from two packs, steal, trade, battle,
// tribute; regimes (thief, merchant, warlord) earn achievements.
import { h, kv, words } from "../dom.js";
import { clickable, s } from "../svg.js";
import { block, boardWidth, box, button, chipButton, flow, grid, moveBlocks, pickBlocks, redrawOnResize, sectionSvg, seqState, text, vstack } from "./drawn.js";
import { legalOf, openSlot } from "./kit.js";

const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
/** "10S0" -> "10♠", "W3" -> "Wizard" (the last digit is the pack: copies are interchangeable). */
export const card = (c) => (typeof c !== "string" ? String(c) : c.startsWith("W") ? "Wizard"
  : c.slice(0, -2) + (SUIT[c.slice(-2, -1)] || c.slice(-2, -1)));
const cards = (cs) => (cs && cs.length ? cs.map(card).join(" ") : "—");
const red = (c) => /[HD]\d$/.test(c);

function pending(p, ctx) {
  const rows = [];
  const spell = p.spell && ctx.components && (ctx.components.spells || []).find((x) => x.spell === p.spell.kind);
  if (p.trade) rows.push(`Trade: ${ctx.name(p.trade.initiator)} offers ${p.trade.card ? card(p.trade.card) : "a card"} to ${ctx.name(p.trade.target)}`);
  if (p.battle) rows.push(`Battle: ${ctx.name(p.battle.attacker)} demands ${p.battle.rank}${p.battle.suit ? SUIT[p.battle.suit] || p.battle.suit : ""} from ${ctx.name(p.battle.defender)}`);
  if (p.tribute) rows.push(`Tribute: ${p.tribute.owing.map(ctx.name).join(", ")} owe ${ctx.name(p.tribute.to)} a card`);
  if (p.spell) rows.push(`Spell: ${ctx.name(p.spell.caster)} casts ${words(p.spell.kind)} (${words(p.spell.stage)})${spell ? ` — ${spell.text}` : ""}`);
  if (p.rewards) rows.push(`Rewards: ${p.rewards.map((r) => `${words(r.kind)}${r.target === null ? "" : " on " + ctx.name(r.target)}`).join(", ")}`);
  return rows;
}

// every move is on the board: the plays with cards from the hand on the hand, the moves with
// an army's cards on those cards, the moves aimed at a player on that player's place at the
// table, the rest (draw, pass, ...) in the turn's panel
const ALL_ON_BOARD = new Set(["discard", "army", "empire", "barbarian", "serf", "trade", "trade_reply", "battle_give", "tribute", "gift",
  "draw", "pass", "gift_skip", "steal", "battle", "battle_set", "disband", "sabotage_take", "sabotage_skip", "sabotage_none",
  "spell", "spell_take", "spell_pick", "spell_trade", "spell_give", "plunder", "destroy"]);
const ARMY = new Set(["sabotage_take", "spell_take", "disband", "battle_set", "spell_pick"]);
const AT_SEAT = new Set(["steal", "battle", "sabotage_skip", "spell_trade", "plunder", "destroy"]);
const cardsOf = (a) => (Array.isArray(a.cards) ? a.cards : typeof a.card === "string" ? [a.card] : []);
const SHAPE = { rock: "✊ Rock", paper: "✋ Paper", scissors: "✌ Scissors" };
const MAX_PLAYS = 24;

/** "10 of Spades" from the component data's suit names ("♠ Spades"). */
function cardName(c, comp) {
  if (typeof c !== "string") return String(c);
  if (c.startsWith("W")) return "W, a Wizard"; // the card shows "W": its name says it first (axe)
  const suit = comp && comp.suits && comp.suits[c.slice(-2, -1)];
  return `${c.slice(0, -2)} of ${suit ? suit.split(" ").pop() : c.slice(-2, -1)}`;
}

/** A playing card, drawn: rank in the corner, suit in the middle. A move (``go``), a spot
 * (``onPick`` without go: selects) or only a picture. */
function pcard(c, comp, { w = 58, ht = 82, onPick = null, go = false, pressed = null, label = null, data = null } = {}) {
  const wiz = typeof c === "string" && c.startsWith("W");
  const rank = wiz ? "W" : c.slice(0, -2);
  const suit = wiz ? "✦" : SUIT[c.slice(-2, -1)] || "";
  const col = red(c) ? "red" : "";
  return block(w, ht, (x, y) => {
    const parts = [s("rect", { x, y, width: w, height: ht, rx: 6, class: "face" }),
      s("text", { x: x + 5, y: y + (ht > 50 ? 18 : 14), class: `t ${col}`, "font-size": ht > 50 ? 16 : 12, "font-weight": 700 }, rank),
      s("text", { x: x + w / 2, y: y + ht / 2 + (ht > 50 ? 12 : 8), "text-anchor": "middle", class: `t ${col}`, "font-size": ht > 50 ? 26 : 16 }, suit)];
    const cls = `pc${wiz ? " wizard" : ""}${onPick ? " legal" : ""}${go ? " go" : ""}`;
    const name = label || cardName(c, comp);
    if (!onPick) return s("g", { class: cls, role: "img", "aria-label": name, dataset: { card: c } }, ...parts);
    return clickable({ class: cls, "aria-label": name, "aria-pressed": pressed === null ? null : String(pressed), dataset: { card: c, ...(data || {}) } },
      onPick, ...parts);
  });
}

function handBlock(v, ctx, W, plays, sel) {
  const comp = ctx.components;
  const usable = new Set(plays.flatMap(cardsOf));
  sel.cards = (sel.cards || []).filter((c) => usable.has(c));
  const toggle = (c) => () => { sel.cards = sel.cards.includes(c) ? sel.cards.filter((x) => x !== c) : [...sel.cards, c]; ctx.redraw(); };
  const cardsRow = flow(v.hand.map((c) => {
    const ok = usable.has(c) && !ctx.busy;
    return pcard(c, comp, { onPick: ok ? toggle(c) : null, pressed: ok ? sel.cards.includes(c) : null,
      label: `${cardName(c, comp)}${ok ? (sel.cards.includes(c) ? " (chosen)" : " (tap to choose)") : ""}` });
  }), W, 6);
  const parts = [cardsRow];
  const bw = Math.min(W - 20, 300);
  if (plays.length) {
    if (!sel.cards.length) parts.push(text("Tap a highlighted card (or several) to see the plays with them.", W, { size: 13, weight: "600" }));
    else {
      const fit = plays.filter((a) => sel.cards.every((c) => cardsOf(a).includes(c))).sort((a, b) => cardsOf(a).length - cardsOf(b).length);
      parts.push(box(W, { cls: "plays", label: "Plays with the chosen cards", inner: (iw) => [
        text(`Plays with ${sel.cards.map(card).join(" ")}:`, iw, { size: 13, weight: "600" }),
        fit.length ? flow(moveBlocks(fit.slice(0, MAX_PLAYS), ctx, Math.min(iw, bw)), iw, 6) : text("none with exactly these cards; tap one off", iw, { size: 13, cls: "muted" }),
        fit.length > MAX_PLAYS ? text(`${fit.length - MAX_PLAYS} more: tap another card to narrow them.`, iw, { size: 12, cls: "muted" }) : null,
        chipButton("Clear", () => { sel.cards = []; ctx.redraw(); }, { go: false, cls: "back" })] }));
    }
  }
  return vstack(parts, 8);
}

/** One player's place at the table: army sets (their cards are targets when a move concerns
 * them), empire sets, specials, discard pile, achievements, and the moves aimed at them. */
function seatBlock(p, v, ctx, w, armyActs, seatActs, pick) {
  const comp = ctx.components;
  const own = p.seat === ctx.seat;
  const mini = (c) => pcard(c, comp, { w: 30, ht: 42 });
  const armySets = p.army.map((set, si) => {
    const cardsB = set.map((c) => {
      const acts = armyActs.filter((a) => (a.target ?? ctx.seat) === p.seat && a.set === si && (a.card === undefined || a.card === c));
      if (!acts.length || ctx.busy) return pcard(c, comp, { w: 44, ht: 60 });
      if (acts.length === 1) return pcard(c, comp, { w: 44, ht: 60, go: true, onPick: () => ctx.act(acts[0]),
        label: `${cardName(c, comp)}: ${ctx.actionLabel(acts[0])}` });
      const key = `${p.seat}:${si}:${c}`;
      return pcard(c, comp, { w: 44, ht: 60, pressed: pick.armyCard === key, label: `${cardName(c, comp)} in ${ctx.name(p.seat)}'s set ${si}: ${acts.length} moves`,
        onPick: () => { pick.armyCard = pick.armyCard === key ? null : key; ctx.redraw(); } });
    });
    return flow(cardsB, cardsB.length * 46, 2);
  });
  const chosen = armyActs.filter((a) => pick.armyCard && pick.armyCard.startsWith(`${p.seat}:${a.set}:`)
    && (a.target ?? ctx.seat) === p.seat && (a.card === undefined || pick.armyCard.endsWith(`:${a.card}`)));
  const ach = Object.entries(p.achievements).filter(([, n]) => n).map(([r, n]) => `${r} ${n}`).join(", ") || "none";
  return box(w, { title: `${ctx.name(p.seat)}${p.can_win ? " ★ can win" : ""}`,
    cls: "seat" + (own ? " me" : "") + (seatActs.length || armyActs.some((a) => (a.target ?? ctx.seat) === p.seat) ? " legal" : ""),
    data: { seat: p.seat }, label: `${ctx.name(p.seat)}'s place at the table`,
    inner: (iw) => [
      text(`${p.hand_size} cards in hand · regime ${p.regime || "—"} · hands won ${p.hands_won}`, iw, { size: 13 }),
      text(`Army${p.army_protected ? " (protected)" : ""}:`, iw, { size: 12, cls: "muted" }),
      p.army.length ? flow(armySets, iw, 12) : text("—", iw, { size: 13, cls: "muted" }),
      chosen.length ? vstack(moveBlocks(chosen, ctx, Math.min(iw, 280))) : null,
      text("Empire sets:", iw, { size: 12, cls: "muted" }),
      p.empire_sets.length ? flow(p.empire_sets.map((set) => flow(set.map(mini), set.length * 32, 2)), iw, 10) : text("—", iw, { size: 13, cls: "muted" }),
      ...p.specials.map((sp) => vstack([text(`${sp.kind}:`, iw, { size: 12, cls: "muted" }), flow(sp.cards.map(mini), iw, 2)], 2)),
      text(`Discard pile: ${p.discard_size} card${p.discard_size === 1 ? "" : "s"}${p.discard_top ? ", on top:" : ""}`, iw, { size: 12, cls: "muted" }),
      p.discard_top ? mini(p.discard_top) : null,
      text(`Achievements: ${ach}`, iw, { size: 12 }),
      seatActs.length ? vstack(pickBlocks(seatActs, ctx, Math.min(iw, 280), pick, { amountKey: "n", valueLabel: (k, x) => (k === "suit" ? (x === null ? "any suit" : SUIT[x] || x) : String(x)) })) : null] });
}

function rpsBlock(v, ctx, W) {
  const slot = openSlot(ctx, (x) => x.context && "rps_round" in x.context);
  if (!slot) return null;
  const c = slot.context;
  return [`Rock-paper-scissors for the first dealer (round ${c.rps_round})`, vstack([
    text(`Among ${(c.seats || []).map(ctx.name).join(", ")}: your shape is sealed until everyone has chosen.`, W, { size: 13 }),
    flow(slot.allowed.map((x) => button(SHAPE[x] || String(x), () => ctx.commit(slot, x), 120, { cls: "seal", size: 16 })), W, 8)])];
}

export default {
  board(v, ctx) {
    redrawOnResize(ctx);
    const W = boardWidth();
    const legal = legalOf(ctx, ALL_ON_BOARD);
    const used = new Set();
    const take = (pred) => legal.filter((a) => !used.has(a) && pred(a)).map((a) => { used.add(a); return a; });
    const pick = seqState("cards-pick", ctx);
    const inHand = new Set(v.hand || []);
    const handPlays = take((a) => !ARMY.has(a.type) && !AT_SEAT.has(a.type) && cardsOf(a).length > 0 && cardsOf(a).every((c) => inHand.has(c)));
    const armyActs = take((a) => ARMY.has(a.type));
    const seatActs = Object.fromEntries(v.players.map((p) => [p.seat, take((a) => AT_SEAT.has(a.type) && a.target === p.seat)]));
    const rest = take(() => true);
    const parts = [kv({ Hand: `${v.hand_no} (${v.hands_played} played)`, Turn: v.turn_no, Dealer: ctx.name(v.dealer),
      Active: v.active === null ? "—" : ctx.name(v.active), Awaiting: v.awaiting.map(ctx.name).join(", ") || "—",
      "Drawn this turn": v.drawn ? "yes" : "no", "Interactions used": v.interactions_used.join(", ") || "none",
      Deck: v.deck_size, Overlord: v.overlord === null ? null : ctx.name(v.overlord),
      "Hand winner": v.hand_winner === null ? null : ctx.name(v.hand_winner) })];
    const rps = rpsBlock(v, ctx, W);
    if (rps) parts.push(sectionSvg(rps[0], rps[1], "rps"));
    const pend = pending(v.pending || {}, ctx);
    if (pend.length) parts.push(sectionSvg("Pending", vstack(pend.map((r) => text(r, W, { size: 13 }))), "pending"));
    if (v.hand) parts.push(sectionSvg("Your hand", handBlock(v, ctx, W, handPlays, pick), "hand"));
    if (rest.length) {
      parts.push(sectionSvg("Your turn", flow(pickBlocks(rest, ctx, Math.min(W, 280), pick,
        { amountKey: "n", valueLabel: (k, x) => (k === "target" ? (x === null ? "nobody" : ctx.name(x)) : k === "card" ? card(x) : String(x)) }), W, 8), "turn"));
    }
    parts.push(sectionSvg("Armies and sets", grid(W, 280, (p, cw) => seatBlock(p, v, ctx, cw, armyActs, seatActs[p.seat] || [], pick), v.players), "table"));
    return h("div.board.cards", parts);
  },
  boardActions: ALL_ON_BOARD,
  label(a, ctx) {
    const t = (x) => ctx.name(x);
    switch (a.type) {
      case "draw": return "Draw";
      case "discard": return `Discard ${card(a.card)}`;
      case "army": return `Army ${cards(a.cards)}${a.set === null ? "" : " onto set " + a.set}`;
      case "empire": return `Empire set (${a.regime}) ${cards(a.cards)}`;
      case "barbarian": case "serf": return `${words(a.type)} ${cards(a.cards)}`;
      case "disband": return `Disband ${card(a.card)} from set ${a.set}`;
      case "steal": return a.target === ctx.seat ? "Take the top card of your own discard pile" : `Steal from ${t(a.target)}`;
      case "trade": return `Trade ${card(a.card)} to ${t(a.target)}`;
      case "trade_reply": return `Give ${card(a.card)} back`;
      case "battle": return `Battle ${t(a.target)} for ${a.rank}${a.suit ? SUIT[a.suit] || a.suit : ""}`;
      case "battle_set": return `Fight with army set ${a.set}`;
      case "battle_give": return `Hand over ${card(a.card)}`;
      case "tribute": return `Pay tribute ${card(a.card)}`;
      case "gift": return `Gift ${card(a.card)} to ${t(a.target)}`;
      case "sabotage_take": return `Sabotage ${t(a.target)}: take ${card(a.card)} from set ${a.set}`;
      case "sabotage_skip": return `Sabotage ${t(a.target)}: skip their turn`;
      case "sabotage_none": return "No sabotage";
      case "pass": return "Pass (nothing to discard)";
      case "gift_skip": return "Give no gift";
      case "spell": return `Cast a spell: discard a Wizard with ${card(a.card)} on top`;
      case "spell_take": return `Spell: take ${card(a.card)} from ${t(a.target)}'s set ${a.set}`;
      case "spell_pick": return `Spell: pick ${t(a.target)}'s set ${a.set}`;
      case "spell_trade": return `Spell: trade ${a.n} card${a.n === 1 ? "" : "s"} with ${t(a.target)}`;
      case "spell_give": return `Spell: give ${card(a.card)}`;
      case "plunder": return a.target === null ? `Claim the unowned ${a.regime} achievement` : `Plunder ${t(a.target)}'s ${a.regime} achievement`;
      case "destroy": return `Destroy ${t(a.target)}'s ${a.regime} achievement`;
      default: return null;
    }
  },
  valueLabel(k, v, ctx) {
    if (k === "card") return card(v);
    if (k === "cards") return cards(v);
    if (k === "set" && v === null) return "new set";
    return null;
  },
};
