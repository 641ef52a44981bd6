// The Empire Engine: two engines per player (L, R), planned in secret in a fixed commit order
// (which engine is public, the top action / gear stays sealed), then run in turn order.
import { h, kv, section, table, words } from "../dom.js";
import { clickable, s } from "../svg.js";
import { moveButtons, legalOf, openSlot, sealButton } from "./kit.js";

// A wheel per engine: its four actions at the edges as they stand now (the top one lit), from
// the server's component data: top_by_orientation[o] is the action on top after o clockwise
// quarter-turns (RULINGS.md §2.2), so the page never works out the turning direction itself.
// ``pick`` (the seat's own placement): {edge action -> onPick} makes those edges buttons.
function wheel(comp, name, orientation, label, pick = null, chosen = null) {
  const order = comp.engines[name].top_by_orientation; // top after 0, 1, 2, 3 turns
  const o = ((orientation || 0) % 4 + 4) % 4;
  // the action at each edge now: top = order[o]; a further clockwise turn brings the
  // left edge up, so left = order[o + 1], bottom = order[o + 2], right = order[o + 3]
  const at = { top: order[o], left: order[(o + 1) % 4], bottom: order[(o + 2) % 4], right: order[(o + 3) % 4] };
  const pos = { top: [60, 24], right: [100, 64], bottom: [60, 104], left: [20, 64] };
  const text = (a) => ((comp.actions || []).find((x) => x.id === a) || { text: a }).text;
  return s("svg", { viewBox: "0 0 120 128", class: "wheel" + (pick ? " pickable" : ""), role: pick ? "group" : "img",
    "aria-label": `${label}: ${at.top} on top; next turns bring ${order[(o + 1) % 4]}, ${order[(o + 2) % 4]}, ${order[(o + 3) % 4]}` },
  s("circle", { cx: 60, cy: 64, r: 30, class: "hub" }),
  s("text", { x: 60, y: 69, "text-anchor": "middle", class: "hubname" }, name),
  s("path", { d: "M 92 40 A 40 40 0 0 1 96 52", class: "arrow" }),
  Object.entries(pos).map(([edge, [x, y]]) => {
    const a = at[edge];
    const body = [s("title", text(a)), s("rect", { x: x - 20, y: y - 15, width: 40, height: 22, rx: 4, class: "edgebox" }),
      s("text", { x, y, "text-anchor": "middle", class: "edge" + (edge === "top" ? " top" : "") }, a)];
    if (!pick || !pick[a]) return s("g", { class: "edgeg" }, ...body);
    return clickable({ class: "edgeg legal" + (chosen === a ? " chosen" : ""), "aria-label": `${name}: bring ${a} to the top`,
      "aria-pressed": chosen === a ? "true" : "false", dataset: { engine: name, action: a } }, pick[a], ...body);
  }));
}

function turnsOf(comp, gear, boost) {
  const g = comp.gears.find((x) => x.gear === gear);
  return g ? (boost && boost !== "none" ? g.boosted_turns : g.turns) : 0;
}

/** The action a sealed choice brings to the top of its engine (null when unknown). */
function resultTop(comp, v, seat, c) {
  if (!comp || !c || !comp.engines[c.engine]) return null;
  if ("top" in c) return c.top;
  const me = v.players.find((p) => p.seat === seat);
  const eng = me && me.engines && me.engines[c.engine];
  if (!eng) return null;
  return comp.engines[c.engine].top_by_orientation[((eng.orientation + turnsOf(comp, c.gear, c.boost)) % 4 + 4) % 4];
}

/** What a sealed gear choice does to its engine: {turns, top}, or null when unknown. Live,
 * from the wheel of the seat that made it as it stood when the round opened (the context's
 * view: play.js passes the round's opening view, sealed.js). In the replay, from the record's
 * public `plan_revealed` event of the same move (the slot's `events`, labels.js moveText):
 * the placement it became, or for a choice the rules replaced (EE-1/EE-2: its placement says
 * `overridden`), the engine's top after the plan turned back by the turns the plan gave it. */
function gearResult(c, slot, ctx, seat) {
  const comp = ctx && ctx.components;
  if (ctx && ctx.view && ctx.view.players) {
    const top = resultTop(comp, ctx.view, seat, c);
    return top ? { turns: turnsOf(comp, c.gear, c.boost), top } : null;
  }
  const plan = ((slot && slot.events) || []).find((e) => e.type === "plan_revealed");
  if (!plan || !plan.data || !Array.isArray(plan.data.placements)) return null;
  const order = /^s\d+:(\d+)$/.exec((slot && slot.key) || "");
  const mine = plan.data.placements.filter((p) => p.seat === seat);
  const placed = order && mine.find((p) => String(p.order) === order[1]);
  if (placed && !placed.overridden && placed.engine === c.engine && placed.gear === c.gear
      && placed.boost === c.boost && Number.isInteger(placed.turns)) {
    return { turns: placed.turns, top: placed.top };
  }
  const wheel = comp && comp.engines && comp.engines[c.engine];
  const after = plan.data.tops && plan.data.tops[String(seat)] && plan.data.tops[String(seat)][c.engine];
  if (!wheel || !after || !comp.gears || !comp.gears.some((g) => g.gear === c.gear)) return null;
  const turned = mine.filter((p) => p.engine === c.engine).reduce((n, p) => n + (p.turns || 0), 0);
  const at = wheel.top_by_orientation.indexOf(after);
  if (at < 0) return null;
  const o = at - turned;
  const turns = turnsOf(comp, c.gear, c.boost);
  return { turns, top: wheel.top_by_orientation[((o + turns) % 4 + 4) % 4] };
}

const engineText = (e) => (e ? `top: ${e.top} (orientation ${e.orientation})` : "—");

// the seat's half-made placement: the edge it tapped on a wheel ({key, engine, top})
let sel = { key: null, engine: null, top: null };

/** The seat's open sealed placement on the board: per engine it may use, its wheel with every
 * reachable action tappable, and the choices (labelled with the action they bring to the
 * top) as seal buttons. */
function planPanel(v, ctx) {
  const comp = ctx.components;
  const slot = openSlot(ctx, (x) => x.context && (x.context.kind === "engine" || x.context.kind === "gear"));
  if (!slot || !comp) return null;
  const key = `${slot.round_id}/${slot.key}`;
  if (sel.key !== key) sel = { key, engine: null, top: null };
  const c = slot.context || {};
  const me = v.players.find((p) => p.seat === ctx.seat);
  const engines = [...new Set(slot.allowed.map((x) => x.engine))];
  const sets = engines.map((e) => {
    const mine = slot.allowed.filter((x) => x.engine === e);
    const tops = new Map();
    for (const x of mine) {
      const t = resultTop(comp, v, ctx.seat, x);
      if (t) tops.set(t, [...(tops.get(t) || []), x]);
    }
    const pick = Object.fromEntries([...tops.keys()].map((t) => [t, () => {
      sel = sel.engine === e && sel.top === t ? { key, engine: null, top: null } : { key, engine: e, top: t };
      ctx.redraw();
    }]));
    const orientation = c.kind === "engine" ? 0 : me && me.engines && me.engines[e] ? me.engines[e].orientation : 0;
    const shown = sel.engine === e ? tops.get(sel.top) || [] : sel.engine ? [] : mine;
    return h("div.wheelset.pick", { dataset: { engine: e } }, h("div.wname", `Engine ${e}`),
      wheel(comp, e, orientation, `Your engine ${e}`, pick, sel.engine === e ? sel.top : null),
      h("div.row.choices", shown.map((x) => sealButton(ctx, slot, x, ctx.choiceLabel(x, slot)))));
  });
  const what = c.kind === "engine" ? "flip an engine card: tap the action you want on top"
    : "set a gear under an engine: tap the action you want it to turn to the top";
  return section(`Your placement ${c.placement} of round ${c.round}`,
    h("p.yourmove", `Your sealed placement: ${what}, then seal it. Which engine is public once sealed; the rest stays secret until every placement is in.`),
    h("div.wheels", sets),
    sel.engine ? h("button", { type: "button", onclick: () => { sel = { key, engine: null, top: null }; ctx.redraw(); } }, "Show every choice") : null);
}

export default {
  board(v, ctx) {
    const parts = [
      kv({ Round: `${v.round} of ${v.rounds}`, Phase: words(v.phase),
        "Start player": ctx.name(v.start_player),
        "Turn order": v.turn_order.length ? v.turn_order.map(ctx.name).join(" → ") : "—",
        Awaiting: v.awaiting.length ? v.awaiting.map(ctx.name).join(", ") : "—" }),
      planPanel(v, ctx),
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
            : h("div.muted.small", `${e}: not placed yet`)))))) : null,
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
      parts.push(section("Order of the sealed placements",
        h("ol", v.pending.order.map(([s, k]) => h("li", `${ctx.name(s)}: ${k === 1 ? "first" : "second"} placement`)))));
    }
    if (v.pending && v.pending.block) {
      const mine = legalOf(ctx, ["block"]);
      parts.push(section("Blocking", h("ul", v.pending.block.map((b) =>
        h("li", `${ctx.name(b.defender)} blocks one of: ${b.attackers.map(ctx.name).join(", ")}`))),
      mine.length ? h("div.row.yourmove", h("span", "Your defence: block one attack "), moveButtons(mine, ctx)) : null));
    }
    if (v.pending && v.pending.loot) {
      const l = v.pending.loot;
      const mine = legalOf(ctx, ["loot"]);
      parts.push(section("Loot", `${ctx.name(l.attacker)} takes a soldier or a good from ${ctx.name(l.target)}`,
        mine.length ? h("div.row.yourmove", moveButtons(mine, ctx)) : null));
    }
    if (v.pending && v.pending.salvage) {
      const mine = legalOf(ctx, ["salvage"]);
      parts.push(section("Salvage", `${v.pending.salvage.map(ctx.name).join(", ")} choose what to take from the stock`,
        mine.length ? h("div.row.yourmove", moveButtons(mine, ctx)) : null));
    }
    // any turn move not drawn above (none today) still reaches the board
    const rest = legalOf(ctx, ["block", "loot", "salvage"], () => !(v.pending && (v.pending.block || v.pending.loot || v.pending.salvage)));
    if (rest.length) parts.push(section("Your move", h("div.row", moveButtons(rest, ctx))));
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
  boardActions: new Set(["block", "loot", "salvage"]),
  choiceLabel(c, slot, ctx) {
    if (c && "top" in c) return `Engine ${c.engine} · ${c.top} on top`;
    if (c && "gear" in c) {
      const base = `Engine ${c.engine} · gear ${c.gear}${c.boost !== "none" ? ` + ${c.boost}` : ""}`;
      const seat = slot && Number.isInteger(slot.seat) ? slot.seat : ctx && ctx.seat;
      const made = gearResult(c, slot, ctx, seat);
      if (!made) return base;
      return `${base} → ${made.turns} turn${made.turns === 1 ? "" : "s"}: ${made.top} on top`;
    }
    return null;
  },
  roundTitle: (rid) => (/^plan:\d+$/.test(rid) ? `Round ${rid.slice(5)}` : null),
  /** EE-1/EE-2: a seat's second placement uses the engine (and gear) its first did not; the
   * first placement's engine is public once committed, so only the other one is offered. */
  allowedNow(slot, all, publics, ctx) {
    const c = slot.context || {};
    if (c.placement !== 2) return all;
    const first = publics[slot.key.replace(/:2$/, ":1")];
    if (!first || !first.engine) return all;
    // EE-3: a boost the first placement spent is gone unless the seat holds another
    const me = ctx && ctx.view && (ctx.view.players || []).find((p) => p.seat === ctx.seat);
    const spent = first.boost && first.boost !== "none" ? first.boost : null;
    const left = spent && me ? me.ready[spent === "soldier" ? "soldiers" : "goods"] - 1 : 1;
    return all.filter((x) => x && x.engine !== first.engine && (first.gear === undefined || x.gear !== first.gear)
      && !(spent && x.boost === spent && left < 1));
  },
  slotContext(slot) {
    const c = slot.context || {};
    return `Round ${c.round}, placement ${c.placement}: choose ${c.kind === "engine" ? "an engine and its top action" : "an engine, a gear and a boost"}. Public when committed: ${slot.public_keys.join(", ")}.`;
  },
};
