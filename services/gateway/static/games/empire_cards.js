// Empire The Card Game: build armies and empire sets from two packs, steal, trade, battle,
// tribute; regimes (thief, merchant, warlord) earn achievements.
import { h, kv, section, table, words } from "../dom.js";

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

export default {
  board(v, ctx) {
    return h("div.board.cards",
      kv({ Hand: `${v.hand_no} (${v.hands_played} played)`, Turn: v.turn_no, Dealer: ctx.name(v.dealer),
        Active: v.active === null ? "—" : ctx.name(v.active), Awaiting: v.awaiting.map(ctx.name).join(", ") || "—",
        "Drawn this turn": v.drawn ? "yes" : "no", "Interactions used": v.interactions_used.join(", ") || "none",
        Deck: v.deck_size, Overlord: v.overlord === null ? null : ctx.name(v.overlord),
        "Hand winner": v.hand_winner === null ? null : ctx.name(v.hand_winner) }),
      pending(v.pending || {}, ctx),
      v.hand ? section("Your hand", h("ul.hand", v.hand.map((c) => h("li.card", { class: red(c) ? "red" : "", title: c }, card(c))))) : null,
      section("Players", table(["Player", "Hand", "Army sets", "Empire sets", "Regime", "Discard", "Achievements", "Hands won"],
        v.players.map((p) => h("tr", { class: p.seat === v.seat ? "me" : "" },
          h("td", ctx.name(p.seat) + (p.can_win ? " ★" : "")), h("td.num", String(p.hand_size)),
          h("td", p.army.map(cards).join(" | ") || "—", p.army_protected ? " (protected)" : ""),
          h("td", p.empire_sets.map(cards).join(" | ") || "—",
            p.specials.map((s) => ` · ${s.kind}: ${cards(s.cards)}`)),
          h("td", p.regime || "—"), h("td", `${p.discard_top ? card(p.discard_top) : "—"} (${p.discard_size})`),
          h("td", Object.entries(p.achievements).filter(([, n]) => n).map(([r, n]) => `${r} ${n}`).join(", ") || "—"),
          h("td.num", String(p.hands_won)))))));
  },
  label(a, ctx) {
    const t = (x) => ctx.name(x);
    switch (a.type) {
      case "draw": return "Draw";
      case "discard": return `Discard ${card(a.card)}`;
      case "army": return `Army ${cards(a.cards)}${a.set === null ? "" : " onto set " + a.set}`;
      case "empire": return `Empire set (${a.regime}) ${cards(a.cards)}`;
      case "barbarian": case "serf": return `${words(a.type)} ${cards(a.cards)}`;
      case "disband": return `Disband ${card(a.card)} from set ${a.set}`;
      case "steal": return `Steal from ${t(a.target)}`;
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
