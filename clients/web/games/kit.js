// Helpers the drawn boards share: the legal moves that concern one thing on the board (a
// card, a tile, an auction) as buttons on it, an amount stepper wherever the rules allow any
// amount, and sealed choices offered on the board (ctx.slot / ctx.commit from play.js).
import { amount } from "../controls.js";
import { h } from "../dom.js";
import { canonical, newNonce } from "../fairness.js";
import { boardWidth, button, drawing } from "./drawn.js";

/** The seat's legal turn actions of the given types (a Set or an array), optionally filtered. */
export function legalOf(ctx, types, pred = () => true) {
  const set = types instanceof Set ? types : new Set(types);
  return (ctx.legal || []).filter((a) => a && typeof a === "object" && set.has(a.type) && pred(a));
}

function go(text, onclick, ctx, title) {
  return h("button.go.onboard", { type: "button", onclick, disabled: !!ctx.busy, title: title || text }, text);
}

/**
 * Buttons for ``actions``; a run of actions that differ only in the integer ``amountKey``
 * (any amount from its lowest to its highest) becomes one stepper, whatever its length, so the
 * control never changes shape from one turn to the next.
 */
export function moveButtons(actions, ctx, { amountKey = null, amountLabel = null, value = "min" } = {}) {
  const out = [];
  const runs = new Map();
  for (const a of actions) {
    if (amountKey && Number.isInteger(a[amountKey])) {
      const { [amountKey]: _n, ...rest } = a;
      const k = canonical(rest);
      if (!runs.has(k)) { runs.set(k, { rest, ns: [] }); out.push(runs.get(k)); }
      runs.get(k).ns.push(a[amountKey]);
    } else out.push(a);
  }
  return out.map((x) => {
    if (!x || !x.ns) return go(ctx.actionLabel(x), () => ctx.act(x), ctx);
    const { rest, ns } = x;
    const min = Math.min(...ns), max = Math.max(...ns);
    const make = (n) => ({ ...rest, [amountKey]: n });
    if (min === max) return go(ctx.actionLabel(make(min)), () => ctx.act(make(min)), ctx);
    const legal = new Set(ns);
    return amount({ min, max, value: value === "max" ? max : min, name: amountKey, disabled: ctx.busy,
      label: (n) => (amountLabel ? amountLabel(n) : ctx.actionLabel(make(n))) + (legal.has(n) ? "" : " (not allowed)"),
      onPick: (n) => { if (legal.has(n)) ctx.act(make(n)); } });
  });
}

/** The open sealed slot when it belongs to this board's round (``test(slot)``), else null. */
export function openSlot(ctx, test) {
  const s = ctx.slot;
  return s && test(s) ? s : null;
}

/** A button that seals ``choice`` in the open slot (committed exactly as the side panel does). */
export function sealButton(ctx, slot, choice, text) {
  return h("button.go.onboard.seal", { type: "button", onclick: () => ctx.commit(slot, choice), title: text }, text);
}

/** The legal moves of ``types`` as a panel of buttons on the board (null when there are none);
 * ``opts`` as moveButtons' (an amount stepper for a run of any amount). */
export function movesPanel(ctx, title, types, opts = {}) {
  const mine = legalOf(ctx, types);
  if (!mine.length) return null;
  return h("section.panel.moves", { dataset: { moves: [...new Set(mine.map((a) => a.type))].join(" ") } },
    h("h3", title), h("div.row", moveButtons(mine, ctx, opts)));
}

/**
 * The opening entropy round on the board (every game): the seat adds its own random seed to
 * the dealer's, committed exactly as the side panel does (ctx.seedSlot / ctx.commit).
 */
export function entropyPanel(ctx) {
  const slot = ctx.seedSlot;
  if (!slot) return null;
  return h("section.panel.entropy", h("h3", "Before the game: your random seed"),
    h("p", "Add your own random seed to the dealer's: nobody, not even the server, can then choose the game's randomness alone."),
    drawing(button("Add my random seed", () => ctx.commit(slot, newNonce()), Math.min(boardWidth(), 260), { cls: "seal seed" }),
      "Your random seed"));
}
