// The Empire Engine: two engines per player (L, R), planned in secret in a fixed commit order
// (which engine is public, the top action / gear stays sealed), then run in turn order.
import { h, kv, section, table, words } from "../dom.js";

const engineText = (e) => (e ? `top: ${e.top} (orientation ${e.orientation})` : "—");

export default {
  board(v, ctx) {
    const parts = [
      kv({ Round: `${v.round} of ${v.rounds}`, Phase: words(v.phase),
        "Start player": ctx.name(v.start_player),
        "Turn order": v.turn_order.length ? v.turn_order.map(ctx.name).join(" → ") : "—",
        Awaiting: v.awaiting.length ? v.awaiting.map(ctx.name).join(", ") : "—" }),
      section("Players", table(["Player", "Ready soldiers", "Ready goods", "Engine L", "Engine R", "Score pile", "Left / right"],
        v.players.map((p) => h("tr", { class: p.seat === v.seat ? "me" : "" },
          h("td", ctx.name(p.seat)), h("td.num", String(p.ready.soldiers)), h("td.num", String(p.ready.goods)),
          h("td", engineText(p.engines && p.engines.L)), h("td", engineText(p.engines && p.engines.R)),
          h("td", p.score ? `${p.score.soldiers} soldiers, ${p.score.goods} goods, ${p.score.inventions} inventions` : "hidden"),
          h("td", `${ctx.name(p.left)} / ${ctx.name(p.right)}`))))),
      section("Engines and gears",
        table(["Engine", "Action cycle"], Object.entries(v.layout).map(([e, acts]) => [e, acts.join(" → ")])),
        table(["Gear", "Turns", "Boosted turns"], v.gears.map((g) => [String(g.gear), String(g.turns), String(g.boosted_turns)]))),
    ];
    if (v.placements.length) {
      parts.push(section("Placements this round", table(["Player", "#", "Engine", "Top", "Gear", "Boost", "Turns"],
        v.placements.map((p) => [ctx.name(p.seat), String(p.order), p.engine, p.top || "—",
          p.gear ?? "—", p.boost, p.turns ?? "—"].map(String)))));
    }
    if (v.attacks.length) {
      parts.push(section("Attacks", table(["Attacker", "Engine", "Target", "Status", "Loot"],
        v.attacks.map((a) => [ctx.name(a.attacker), a.engine, ctx.name(a.target), words(a.status), a.loot || "—"]))));
    }
    if (v.pending && v.pending.order) {
      parts.push(section(`Planning order (${v.pending.round_id})`,
        h("ol", v.pending.order.map(([s, k]) => h("li", `${ctx.name(s)} places engine ${k}`)))));
    }
    if (v.pending && v.pending.block) {
      parts.push(section("Blocking", h("ul", v.pending.block.map((b) =>
        h("li", `${ctx.name(b.defender)} blocks one of: ${b.attackers.map(ctx.name).join(", ")}`)))));
    }
    if (v.pending && v.pending.loot) {
      const l = v.pending.loot;
      parts.push(section("Loot", `${ctx.name(l.attacker)} takes a soldier or a good from ${ctx.name(l.target)}`));
    }
    if (v.pending && v.pending.salvage) {
      parts.push(section("Salvage", `${v.pending.salvage.map(ctx.name).join(", ")} choose what to take from the stock`));
    }
    if (v.outcome) {
      parts.push(section("Final score", table(["Place", "Player", "Points", "Bonus"],
        v.outcome.results.slice().sort((a, b) => a.place - b.place).map((r) =>
          [String(r.place), ctx.name(r.seat), String(r.figures.points), String(r.figures.bonus)]))));
    }
    return h("div.board.engine", parts);
  },
  label(a, ctx) {
    if (a.type === "block") return `Block ${ctx.name(a.attacker)}'s attack`;
    if (a.type === "loot") return `Loot a ${a.take}`;
    if (a.type === "salvage") return `Salvage: take ${a.take === "invention" ? "an" : "a"} ${a.take}`;
    return null;
  },
  choiceLabel(c) {
    if (c && "top" in c) return `Engine ${c.engine} · top ${c.top}`;
    if (c && "gear" in c) return `Engine ${c.engine} · gear ${c.gear} · boost ${c.boost}`;
    return null;
  },
  slotContext(slot) {
    const c = slot.context || {};
    return `Round ${c.round}, placement ${c.placement}: choose ${c.kind === "engine" ? "an engine and its top action" : "an engine, a gear and a boost"}. Public when committed: ${slot.public_keys.join(", ")}.`;
  },
};
