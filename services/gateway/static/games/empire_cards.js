// Empire The Card Game: build armies and empire sets from two packs, steal, trade, battle,
// tribute; regimes (thief, merchant, warlord) earn achievements.
import { h, kv, section, table, words } from "../dom.js";
import { legalOf, moveButtons, movesPicker, openSlot, sealButton } from "./kit.js";

const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
/** "10S0" -> "10♠", "W3" -> "Wizard" (the last digit is the pack: copies are interchangeable). */
export const card = (c) => (typeof c !== "string" ? String(c) : c.startsWith("W") ? "Wizard"
  : c.slice(0, -2) + (SUIT[c.slice(-2, -1)] || c.slice(-2, -1)));
const cards = (cs) => (cs && cs.length ? cs.map(card).join(" ") : "—");
const red = (c) => /[HD]\d$/.test(c);

function pending(p, ctx) {
  const rows = {};
  if (p.trade) rows.Trade = `${ctx.name(p.trade.initiator)} offers ${p.trade.card ? card(p.trade.card) : "a card"} to ${ctx.name(p.trade.target)}`;
  if (p.battle) rows.Battle = `${ctx.name(p.battle.attacker)} demands ${p.battle.rank}${p.battle.suit ? SUIT[p.battle.suit] || p.battle.suit : ""} from ${ctx.name(p.battle.defender)}`;
  if (p.tribute) rows.Tribute = `${p.tribute.owing.map(ctx.name).join(", ")} owe ${ctx.name(p.tribute.to)} a card`;
  if (p.spell) rows.Spell = `${ctx.name(p.spell.caster)} casts ${words(p.spell.kind)} (${words(p.spell.stage)})`;
  if (p.rewards) rows.Rewards = p.rewards.map((r) => `${words(r.kind)}${r.target === null ? "" : " on " + ctx.name(r.target)}`).join(", ");
  return Object.keys(rows).length ? section("Pending", kv(rows)) : null;
}

// plays made with cards from the hand: chosen by tapping the cards on the board
const ON_BOARD = new Set(["discard", "army", "empire", "barbarian", "serf", "trade", "trade_reply", "battle_give", "tribute", "gift"]);
// every move is on the board: the plays above in the hand, the rest in the move panels
const ALL_ON_BOARD = new Set([...ON_BOARD, "draw", "pass", "gift_skip", "steal", "battle", "battle_set", "disband",
  "sabotage_take", "sabotage_skip", "sabotage_none", "spell", "spell_take", "spell_pick", "spell_trade", "spell_give", "plunder", "destroy"]);
const cardsOf = (a) => (Array.isArray(a.cards) ? a.cards : typeof a.card === "string" ? [a.card] : []);
const SHAPE = { rock: "✊ Rock", paper: "✋ Paper", scissors: "✌ Scissors" };
const MAX_PLAYS = 24;

let sel = { seq: -1, cards: [] }; // the player's half-chosen play: cards tapped in the hand

const chip = (c) => h("span.cchip", { class: red(c) ? "red" : "", title: c }, card(c));
const chipSets = (sets) => (sets.length ? sets.map((x) => h("span.cset", x.map(chip))) : "—");

function handPanel(v, ctx) {
  const seq = ctx.seq ?? 0;
  if (sel.seq !== seq) sel = { seq, cards: [] };
  const plays = legalOf(ctx, ON_BOARD);
  const usable = new Set(plays.flatMap(cardsOf));
  const toggle = (c) => {
    sel.cards = sel.cards.includes(c) ? sel.cards.filter((x) => x !== c) : [...sel.cards, c];
    ctx.redraw();
  };
  const hand = h("ul.hand.cardhand", v.hand.map((c) => {
    const ok = usable.has(c) && !ctx.busy;
    const attrs = { class: [red(c) ? "red" : "", ok ? "legal" : "", sel.cards.includes(c) ? "sel" : ""].join(" "),
      title: c, dataset: { card: c } };
    if (!ok) return h("li.card", attrs, card(c));
    // the list item stays a list item; the card face inside it is the button
    return h("li.card", attrs, h("span.cardbtn.legal", { role: "button", tabindex: 0, title: c,
      "aria-pressed": sel.cards.includes(c) ? "true" : "false", onclick: () => toggle(c),
      onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(c); } } }, card(c)));
  }));
  const inHand = new Set(v.hand);
  const other = plays.filter((a) => !cardsOf(a).every((c) => inHand.has(c)));
  const parts = [hand];
  if (plays.length) {
    if (!sel.cards.length) parts.push(h("p.maphelp", "Tap a highlighted card (or several) to see the plays with them."));
    else {
      const fit = plays.filter((a) => sel.cards.every((c) => cardsOf(a).includes(c)))
        .sort((a, b) => cardsOf(a).length - cardsOf(b).length);
      parts.push(h("div.plays", h("p", `Plays with ${sel.cards.map(card).join(" ")}:`),
        fit.length ? h("div.row", moveButtons(fit.slice(0, MAX_PLAYS), ctx)) : h("p.muted", "none with exactly these cards; tap one off"),
        fit.length > MAX_PLAYS ? h("p.muted.small", `${fit.length - MAX_PLAYS} more: tap another card to narrow them.`) : null,
        h("button", { type: "button", onclick: () => { sel.cards = []; ctx.redraw(); } }, "Clear")));
    }
    if (other.length) parts.push(h("div.row", moveButtons(other.slice(0, MAX_PLAYS), ctx)));
  }
  return section("Your hand", parts);
}

function rpsPanel(v, ctx) {
  const slot = openSlot(ctx, (x) => x.context && "rps_round" in x.context);
  if (!slot) return null;
  const c = slot.context;
  return section(`Rock-paper-scissors for the first dealer (round ${c.rps_round})`,
    h("p", `Among ${(c.seats || []).map(ctx.name).join(", ")}: your shape is sealed until everyone has chosen.`),
    h("div.row.rps", slot.allowed.map((x) => sealButton(ctx, slot, x, SHAPE[x] || String(x)))));
}

export default {
  board(v, ctx) {
    return h("div.board.cards",
      kv({ Hand: `${v.hand_no} (${v.hands_played} played)`, Turn: v.turn_no, Dealer: ctx.name(v.dealer),
        Active: v.active === null ? "—" : ctx.name(v.active), Awaiting: v.awaiting.map(ctx.name).join(", ") || "—",
        "Drawn this turn": v.drawn ? "yes" : "no", "Interactions used": v.interactions_used.join(", ") || "none",
        Deck: v.deck_size, Overlord: v.overlord === null ? null : ctx.name(v.overlord),
        "Hand winner": v.hand_winner === null ? null : ctx.name(v.hand_winner) }),
      rpsPanel(v, ctx),
      pending(v.pending || {}, ctx),
      v.hand ? handPanel(v, ctx) : null,
      // the moves not made with cards from the hand, on the board too
      movesPicker(ctx, "Your turn", ["draw", "pass", "gift_skip"]),
      movesPicker(ctx, "Interactions", ["steal", "battle", "battle_set", "disband"]),
      movesPicker(ctx, "Sabotage", ["sabotage_take", "sabotage_skip", "sabotage_none"]),
      movesPicker(ctx, "Spells", ["spell", "spell_take", "spell_pick", "spell_trade", "spell_give"]),
      movesPicker(ctx, "Rewards", ["plunder", "destroy"]),
      section("Armies and sets", table(["Player", "Hand", "Army sets", "Empire sets", "Regime", "Discard", "Achievements", "Hands won"],
        v.players.map((p) => h("tr", { class: p.seat === v.seat ? "me" : "" },
          h("td", ctx.name(p.seat) + (p.can_win ? " ★" : "")), h("td.num", String(p.hand_size)),
          h("td", chipSets(p.army), p.army_protected ? " (protected)" : ""),
          h("td", chipSets(p.empire_sets), p.specials.map((s) => h("span.small", ` · ${s.kind}: `, s.cards.map(chip)))),
          h("td", p.regime || "—"), h("td", p.discard_top ? chip(p.discard_top) : "—", ` (${p.discard_size})`),
          h("td", Object.entries(p.achievements).filter(([, n]) => n).map(([r, n]) => `${r} ${n}`).join(", ") || "—"),
          h("td.num", String(p.hands_won)))))));
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
