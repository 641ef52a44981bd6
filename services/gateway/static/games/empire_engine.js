// The Empire Engine: two engines per player (L, R), planned in secret in a fixed commit order
// (which engine is public, the top action / gear stays sealed), then run in turn order.
import { h, kv, section, table, words } from "../dom.js";
import { s } from "../svg.js";

// A wheel per engine: its four actions at the edges as they stand now (the top one lit), from
// the server's component data: top_by_orientation[o] is the action on top after o clockwise
// quarter-turns (RULINGS.md §2.2), so the page never works out the turning direction itself.
function wheel(comp, name, orientation, label) {
  const order = comp.engines[name].top_by_orientation; // top after 0, 1, 2, 3 turns
  const o = ((orientation || 0) % 4 + 4) % 4;
  // the action at each edge now: top = order[o]; a further clockwise turn brings the
  // left edge up, so left = order[o + 1], bottom = order[o + 2], right = order[o + 3]
  const at = { top: order[o], left: order[(o + 1) % 4], bottom: order[(o + 2) % 4], right: order[(o + 3) % 4] };
  const pos = { top: [60, 24], right: [100, 64], bottom: [60, 104], left: [20, 64] };
  return s("svg", { viewBox: "0 0 120 128", class: "wheel", role: "img",
    "aria-label": `${label}: ${at.top} on top; next turns bring ${order[(o + 1) % 4]}, ${order[(o + 2) % 4]}, ${order[(o + 3) % 4]}` },
  s("circle", { cx: 60, cy: 64, r: 30, class: "hub" }),
  s("text", { x: 60, y: 69, "text-anchor": "middle", class: "hubname" }, name),
  s("path", { d: "M 92 40 A 40 40 0 0 1 96 52", class: "arrow" }),
  Object.entries(pos).map(([edge, [x, y]]) => s("text", { x, y, "text-anchor": "middle",
    class: "edge" + (edge === "top" ? " top" : "") }, at[edge])));
}

function turnsOf(comp, gear, boost) {
  const g = comp.gears.find((x) => x.gear === gear);
  return g ? (boost && boost !== "none" ? g.boosted_turns : g.turns) : 0;
}

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
        ctx.components ? h("div.wheels", v.players.map((p) => h("div.wheelset", { class: p.seat === v.seat ? "me" : "" },
          h("div.wname", ctx.name(p.seat)),
          ["L", "R"].map((e) => (p.engines && p.engines[e] ? wheel(ctx.components, e, p.engines[e].orientation, `${ctx.name(p.seat)}'s engine ${e}`)
            : h("span.muted", `${e}: not placed yet`)))))) : null,
        ctx.components ? table(["Engine", "Top action after 0, 1, 2, 3 clockwise turns", "Attacks"],
          Object.entries(ctx.components.engines).map(([e, w]) => [e, w.top_by_orientation.join(" → "), w.attacks]))
          : table(["Engine", "Edges (top, right, bottom, left)"], Object.entries(v.layout).map(([e, acts]) => [e, acts.join(", ")])),
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
  choiceLabel(c, slot, ctx) {
    if (c && "top" in c) return `Engine ${c.engine} · top ${c.top}`;
    if (c && "gear" in c) {
      const base = `Engine ${c.engine} · gear ${c.gear}${c.boost !== "none" ? ` + ${c.boost}` : ""}`;
      const comp = ctx && ctx.components;
      const me = ctx && ctx.view && ctx.view.players && ctx.view.players.find((p) => p.seat === ctx.seat);
      const eng = me && me.engines && me.engines[c.engine];
      if (!comp || !eng) return base;
      const turns = turnsOf(comp, c.gear, c.boost);
      const top = comp.engines[c.engine].top_by_orientation[((eng.orientation + turns) % 4 + 4) % 4];
      return `${base} → ${turns} turn${turns === 1 ? "" : "s"}: ${top} on top`;
    }
    return null;
  },
  /** EE-1/EE-2: a seat's second placement uses the engine (and gear) its first did not; the
   * first placement's engine is public once committed, so only the other one is offered. */
  allowedNow(slot, all, publics) {
    const c = slot.context || {};
    if (c.placement !== 2) return all;
    const first = publics[slot.key.replace(/:2$/, ":1")];
    if (!first || !first.engine) return all;
    return all.filter((x) => x && x.engine !== first.engine && (first.gear === undefined || x.gear !== first.gear));
  },
  slotContext(slot) {
    const c = slot.context || {};
    return `Round ${c.round}, placement ${c.placement}: choose ${c.kind === "engine" ? "an engine and its top action" : "an engine, a gear and a boost"}. Public when committed: ${slot.public_keys.join(", ")}.`;
  },
};
