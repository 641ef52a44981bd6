// Inviting a friend by link: a table's `invite_url` (<page>/#/join/<invite>, shown only to the
// host and the seated players, like the invite code) with a copy button; the page opened at
// that link keeps the invite while its visitor signs in (a guest, a password or a passkey),
// then joins that table and shows it. A table's own URL opened by someone not seated says
// how to get in rather than showing an empty invite code.

import { api } from "./api.js";
import { h } from "./dom.js";

const PENDING = "eh:invite"; // the invite a visitor came with, until signed in

export const rememberInvite = (code) => localStorage.setItem(PENDING, code);
export const pendingInvite = () => localStorage.getItem(PENDING);

/** The invite kept before sign-in, forgotten as it is taken. */
export function takeInvite() {
  const code = pendingInvite();
  localStorage.removeItem(PENDING);
  return code;
}

/** Join the table of an invite code; answers the table. */
export async function joinByInvite(code) {
  return (await api("POST", `/api/invites/${encodeURIComponent(code)}/join`)).table;
}

/** Copy text to the clipboard; without the Clipboard API (an insecure origin, an old
 * browser) the text is selected in `field` and copied with the older command. */
export async function copyText(text, field) {
  try {
    if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!field) return false;
    field.focus();
    field.select();
    try { return document.execCommand("copy"); } catch { return false; }
  }
}

/** What the table view says about getting in: the link and the code with a copy button for
 * the host and the seated players; a sentence for everyone else. */
export function inviteBlock(t, seated, flash) {
  if (t.invite) {
    const url = t.invite_url || `${location.origin}/#/join/${encodeURIComponent(t.invite)}`;
    const field = h("input#invite-url", { type: "text", readOnly: true, value: url, "aria-label": "Invite link", size: 40 });
    return h("div.invite", h("p", "Invite a friend: send them this link. It opens this table and seats them once they sign in."),
      h("div.row", field, h("button#copy-invite", { type: "button", onclick: async () => {
        const ok = await copyText(url, field);
        flash(ok ? "Invite link copied." : "Select the link and copy it.", !ok);
      } }, "Copy link")),
      h("p.muted", "Invite code: ", h("code#invite-code", t.invite)));
  }
  if (seated) return null;
  return h("p#invite-note", t.public
    ? "This table is open: join it below, or ask a player for its invite link."
    : "This table is private: to sit at it, ask its host or one of its players for the invite link.");
}
