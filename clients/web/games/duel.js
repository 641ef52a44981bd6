// Duel, the reference game: a caller names the stake, everyone picks 0-9 in secret, a die
// doubles the stake on 4+; the highest unique pick scores.
import { h, kv, table } from "../dom.js";

export default {
  board(v, ctx) {
    const caller = v.phase === "call" || v.phase === "pick" || v.phase === "dice"
      ? ((v.first ?? 0) + v.round - 1) % v.points.length : null;
    return h("div.board.duel",
      kv({ Round: `${v.round} of ${v.rounds}`, Phase: v.phase, Stake: v.stake,
        "First caller": v.first === null ? "not drawn yet" : ctx.name(v.first) }),
      table(["Seat", "Player", "Points", ""], v.points.map((p, s) => h("tr", { class: s === v.seat ? "me" : "" },
        h("td", String(s)), h("td", ctx.name(s)), h("td.num", String(p)), h("td", s === caller ? "caller" : "")))));
  },
  label: (a) => (a.type === "call" ? `Call stake ${a.stake}` : null),
  choiceLabel: (c) => `Pick ${c}`,
};
