// The sealed-choices panel of the play screen: by default one line per round in plain words
// ("Round 3: you chose X, Alice chose Y; all commitments verified"), the hashes (commitments,
// nonces, the escrow's receipts) behind a "details" toggle.
//
// Every label of a sealed choice, committed or revealed, describes the choice in the state its
// round opened in. A choice such as "gear 2 under engine R" brings a different action to the
// top depending on how the wheel stands, and after the reveal the wheels have turned: labelled
// from a later view, the same commitment would read as another move. play.js keeps the seat's
// view as of each round's opening (``S.roundViews``) and ``ctxAt(roundId)`` answers a label
// context on that view (its ``view`` is null for a round this page never saw open: then the
// label says only what the choice itself holds, never a guess from a later state).

import { canonical } from "./fairness.js";
import { h, short } from "./dom.js";
import { roundTitle } from "./labels.js";

// rounds shown as lines; earlier ones go under one "earlier rounds" toggle
const SHOWN_ROUNDS = 3;

/** The label of a revealed choice, made from the round's opening view; for this seat's own
 * slot in a round this page never saw open, the label made when the choice was committed
 * (when the choice is the one sealed). */
export function revealedLabel(opening, slot, rctx, receipt) {
  if (opening.defaulted && opening.choice === undefined) return "nothing (defaulted)";
  if (!rctx.view && receipt && receipt.label && canonical(receipt.choice) === canonical(opening.choice)) return receipt.label;
  return rctx.choiceLabel(opening.choice, slot);
}

/** The panel's content for the open game ``S`` (play.js's state). */
export function sealedPanel(S, ctx, ctxAt) {
  const all = [...S.rounds.values()].reverse();
  if (!all.length) return h("p.muted", "No sealed rounds yet.");
  const lines = all.map((r) => roundLine(S, ctx, ctxAt(r.id), r));
  const older = lines.slice(SHOWN_ROUNDS);
  const bad = all.slice(SHOWN_ROUNDS).filter((r) => r.ok === false).length;
  return [
    lines.slice(0, SHOWN_ROUNDS),
    older.length ? h("details.older", h("summary", `${older.length} earlier round${older.length === 1 ? "" : "s"}: `,
      bad ? h("span.bad", `${bad} with a mismatch`) : h("span.ok", "all verified")), older) : null,
    h("details.hashes", h("summary", "details: commitments and hashes"), all.map((r) => hashes(S, ctx, r))),
  ];
}

function roundLine(S, ctx, rctx, r) {
  const slots = r.slots || [];
  const entropy = r.id === "entropy";
  const bySeat = new Map();
  for (const s of slots) {
    if (!bySeat.has(s.seat)) bySeat.set(s.seat, []);
    bySeat.get(s.seat).push(s);
  }
  // this seat first, then the others in the round's order
  const seats = [...bySeat.entries()].sort(([a], [b]) => (b === S.seat) - (a === S.seat)).map(([seat, mine]) => {
    const you = seat === S.seat;
    const who = you ? "you" : ctx.name(seat);
    const picks = mine.map((s) => choiceText(S, rctx, r, s, entropy));
    const open = picks.filter((p) => p.state === "open");
    if (entropy && !open.length) return [who, you ? " added your seed" : " added a seed", picks.filter((p) => p.mark).map((p) => [" ", p.node])];
    if (picks.every((p) => p.state === "revealed")) return [who, " chose ", join(picks.map((p) => p.node))];
    // still sealing: "Alice: sealed", "you: sealed Engine L … ✉ and not sealed yet"
    const same = open.length === picks.length && picks.every((p) => p.node.textContent === picks[0].node.textContent);
    return [who, ": ", same ? picks[0].node : join(picks.map((p) => p.node))];
  });
  return h("div.round", { dataset: { round: r.id } }, h("b", roundTitle(ctx, r.id)), ": ",
    seats.map((x, i) => [i ? ", " : "", x]), "; ", status(r));
}

/** One slot in the round's line: the choice revealed, this seat's own sealed choice, or how far
 * the slot got. ``mark``: this seat's own receipt's check. */
function choiceText(S, rctx, r, s, entropy) {
  const key = `${r.id}/${s.key}`;
  const mine = S.receipts[key];
  const opening = (r.openings || []).find((o) => o.slot === s.key);
  const check = mine ? receiptMark(mine) : null;
  if (opening) {
    if (entropy) return { state: "revealed", mark: !!mine, node: mine ? h("span.choice.mine", { dataset: { key } }, check) : null };
    const label = revealedLabel(opening, { ...s, round_id: r.id }, rctx, mine);
    const text = opening.defaulted ? `the default (${label})` : label;
    return { state: "revealed", mark: !!check, node: h("span.choice" + (mine ? ".mine" : ""), { dataset: mine
      ? { key, committed: mine.label, revealed: opening.defaulted ? "" : label } : { key, revealed: label } }, text, check ? [" ", check] : null) };
  }
  if (mine) {
    return { state: "sealed", mark: true, node: h("span.choice.mine", { dataset: { key, committed: mine.label } },
      entropy ? "sealed " : `sealed ${mine.label} `, check) };
  }
  const text = S.seen[key] ? "sealed" : S.timedOut[key] ? "let the time pass" : "not sealed yet";
  return { state: "open", mark: false, node: h("span.muted", text) };
}

function receiptMark(r) {
  if (r.verified === true) return h("span.ok.verified", { title: "verified: the reveal matches the commitment you made" }, "✔");
  if (r.verified === false || r.ack === "bad") return h("span.bad", "✖ WARNING: the reveal does not match your commitment");
  if (r.ack === "ok") return h("span.receipt-ok", { title: "escrow receipt: your commitment is on the public record" }, "✉");
  return h("span.muted", "(sending…)");
}

function status(r) {
  if (r.status === "revealed") {
    return r.ok ? h("span.ok", "all commitments verified") : h("span.bad", "✖ " + r.problems.join("; "));
  }
  return h("span.muted", r.status === "closed" ? "closed, revealing…" : "sealing");
}

/** The round's hashes, for those who want to check them by hand. */
function hashes(S, ctx, r) {
  const mine = Object.values(S.receipts).filter((x) => x.round_id === r.id);
  return h("div.roundhashes", { dataset: { round: r.id } }, h("div", h("b", roundTitle(ctx, r.id)), r.root ? ` · commitments root ${short(r.root, 16)}` : ""),
    mine.map((x) => h("div.receipt", { dataset: { key: `${x.round_id}/${x.slot}` } },
      h("div", "Your sealed choice ", h("b", x.round_id === "entropy" ? "random seed" : x.label), ` (${x.round_id}/${x.slot})`),
      h("div.mono", { title: `commitment ${x.commitment}\nnonce ${x.nonce}` }, `c = ${short(x.commitment, 24)} · nonce ${short(x.nonce, 12)}`))),
    h("ul.slots", (r.slots || []).map((s) => {
      const key = `${r.id}/${s.key}`;
      const pub = S.publics[key];
      return h("li", `${ctx.name(s.seat)} ${s.key}: `,
        S.seen[key] ? h("span.mono", { title: S.seen[key] }, `committed ${short(S.seen[key], 16)}`) : h("span.muted", "no commitment"),
        pub ? ` · public: ${Object.entries(pub).map(([k, v]) => `${k} ${v}`).join(", ")}` : "");
    })));
}

/** Parts joined in words: "a", "a and b", "a, b and c". */
function join(parts) {
  const out = [];
  parts.forEach((p, i) => {
    if (i) out.push(i === parts.length - 1 ? " and " : ", ");
    out.push(p);
  });
  return out;
}
