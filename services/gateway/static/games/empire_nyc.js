// Empire: The Game of New York: neighborhoods of six boroughs, cubes, attacks with dice,
// card sets traded for reinforcements.
import { h, kv, section, table, words } from "../dom.js";

const owner = (ctx, s) => (s === null || s === undefined ? h("span", "—") : h("span.seat", { class: "s" + s }, ctx.name(s)));

export default {
  board(v, ctx) {
    const parts = [
      kv({ Turn: v.turn, Phase: words(v.phase), Current: v.current === null ? "—" : ctx.name(v.current),
        Awaiting: v.awaiting.length ? v.awaiting.map(ctx.name).join(", ") : "—",
        "Next set": `${v.next_set_value} cubes (${v.sets_traded} traded)`, Deck: v.deck_size, Pool: v.pool,
        Winner: v.winner === null ? null : `${ctx.name(v.winner)} (${v.win_reason})` }),
      section("Players", table(["Player", "Neighborhoods", "Cubes", "Cards", "To place", "Next reinforcements", ""],
        v.players.map((p) => h("tr", { class: p.seat === v.seat ? "me" : "" }, h("td", owner(ctx, p.seat)),
          h("td.num", String(p.neighborhoods)), h("td.num", String(p.cubes)), h("td.num", String(p.cards)),
          h("td.num", String(p.to_place)), h("td.num", p.next_reinforcements ?? "—"),
          h("td", p.alive ? "" : `eliminated by ${ctx.name(p.eliminated_by)}`))))),
    ];
    if (v.battle) {
      const b = v.battle;
      parts.push(section("Battle", kv({ Attack: `${b.from} → ${b.to}`, Instigator: ctx.name(b.instigator),
        Defender: ctx.name(b.defender), Dice: `${b.dice} vs ${b.defender_dice ?? "?"}`,
        Roll: b.instigator_roll ? b.instigator_roll.join(" ") : null })));
    }
    if (v.move_in) parts.push(section("Move in", `${v.move_in.from} → ${v.move_in.to}: ${v.move_in.min}–${v.move_in.max} cubes`));
    if (v.hand) {
      parts.push(section("Your cards", v.hand.length ? h("ul.hand", v.hand.map((c) => h("li.card", c.card, h("small", words(c.pest)))))
        : "none", v.must_trade ? h("p.warn", "You must trade a set first.") : null,
      v.mission ? h("p", `Your mission: ${v.mission.boroughs.map((b) => v.boroughs[b]?.name || b).join(" + ")}`) : null));
    }
    parts.push(section("Map", h("div.boroughs", Object.entries(v.boroughs).map(([id, b]) => h("div.borough",
      h("h4", `${b.name} (+${b.bonus})`),
      table(["", "Owner", "Cubes"], b.neighborhoods.map((nb) => {
        const n = v.neighborhoods[nb];
        return h("tr", { title: `adjacent: ${(v.adjacency[nb] || []).join(", ")}`, dataset: { nb, borough: id } },
          h("td", nb), h("td", owner(ctx, n.owner)), h("td.num", String(n.cubes)));
      }), "compact"))))));
    return h("div.board.nyc", parts);
  },
  label(a) {
    switch (a.type) {
      case "place": return `Place ${a.n} on ${a.nb}`;
      case "attack": return `Attack ${a.to} from ${a.from} with ${a.dice} ${a.dice === 1 ? "die" : "dice"}`;
      case "defend": return `Defend with ${a.dice} ${a.dice === 1 ? "die" : "dice"}`;
      case "move_in": return `Move ${a.n} cubes in`;
      case "fortify": return `Fortify: ${a.n} from ${a.from} to ${a.to}`;
      case "trade": return `Trade ${a.cards.join(" + ")}`;
      case "end_attack": return "Stop attacking";
      case "end_turn": return "End turn";
      default: return null;
    }
  },
};
