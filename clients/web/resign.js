// Seats are numbered from 1 on the page (the wire's seat 0 is seat 1).
// Resigning a running game: a button under the game's title with a confirm step. The seat goes
// to a bot for the rest of the game (POST /api/games/<id>/resign); everyone's log says so from
// the record's `seat_handed_over` entry, and this page watches on as a spectator.

import { api, session } from "./api.js";
import { fill, h } from "./dom.js";

/** The log's sentence for a seat handed to a bot (every seat and spectator sees it). */
export function handedText(e) {
  const who = (e.from && e.from.name) || `seat ${e.seat + 1}`;
  const why = e.reason === "expired" ? "ran out of time" : "resigned";
  return `${who} ${why}; a bot plays seat ${e.seat + 1} for the rest of the game.`;
}

/** Under a result: which seats a bot finished, and that ratings rank them last. */
export function handedNote(r) {
  const handed = r.handed_over || [];
  if (!handed.length) return null;
  return h("p#handed-note.muted", handed.map((x) => `${x.player.name} ${x.reason === "expired" ? "ran out of time" : "resigned"}: a bot finished seat ${x.seat + 1}. `).join(""),
    "For ratings a seat a bot finished ranks last (a loss for the player who left).");
}

/** Show the resign control in `box` while the signed-in player has a seat in a running game. */
export async function mountResign(box, gid, flash) {
  fill(box);
  const meta = await api("GET", `/api/matches/${encodeURIComponent(gid)}`).catch(() => null);
  const me = session.me && session.me.player_id;
  if (!meta || meta.stage === "ended" || !meta.players.some((p) => p.player_id === me)) return;
  const ask = () => fill(box, h("span#resign-confirm.row", { role: "group", "aria-label": "Confirm resigning" },
    h("span", "Resign? A bot plays your seat for the rest of the game, and it counts as a loss for you."),
    h("button#resign-yes.danger", { type: "button", onclick: resign }, "Yes, resign"),
    h("button#resign-no", { type: "button", onclick: idle }, "Keep playing")));
  const idle = () => fill(box, h("button#resign", { type: "button", onclick: ask }, "Resign"));
  async function resign() {
    try {
      const r = await api("POST", `/api/games/${encodeURIComponent(gid)}/resign`);
      fill(box, h("span#resigned.muted", `You resigned: a bot plays seat ${r.seat + 1}. You are watching.`));
    } catch (exc) {
      flash(exc.message || String(exc));
      idle();
    }
  }
  idle();
}
