// "Your turn" notifications on the account screen: the address (and whether it is confirmed),
// turn mails on or off, the webhook URL and its signing secret, shown once when set
// (docs/protocol.md "Notifications"). The verification mail's link comes back to
// /?notice=email-verified#/account.

import { api } from "./api.js";
import { fill, h } from "./dom.js";

/** The notifications block; `flash(text, bad)` reports, `again()` redraws the screen. */
export async function notificationsPanel(flash, again) {
  const n = await api("GET", "/api/me/notifications");
  const params = new URLSearchParams(location.search);
  if (params.get("notice") === "email-verified") {
    history.replaceState(null, "", location.pathname + location.hash);
    flash("Address confirmed: turn mails will come to it.", false);
  }
  const email = h("input#notify-email", { type: "email", placeholder: "you@example.org", autocomplete: "email", maxlength: 254, value: n.email || "" });
  const turns = h("input#notify-turns", { type: "checkbox", checked: n.email_turns });
  const hook = h("input#notify-webhook", { type: "url", placeholder: "https://… (a chat's incoming webhook)", maxlength: 2048, value: n.webhook_url || "" });
  const secret = h("p#notify-secret.muted");
  const state = !n.mail_enabled ? "This server sends no mail."
    : !n.email ? "No address set."
      : n.email_verified ? `${n.email} is confirmed.`
        : `${n.email} is not confirmed yet: open the link in the mail we sent.`;
  const save = (body) => async () => {
    const out = await api("PUT", "/api/me/notifications", body);
    if (out.webhook_secret) {
      fill(secret, "Webhook signing secret (shown this once): ", h("code", out.webhook_secret));
    } else {
      await again();
    }
    flash(out.verification_sent ? "Saved: a confirmation mail is on its way." : "Saved.", false);
  };
  return h("div#notifications",
    h("h3", "Your turn, by mail or webhook"),
    h("p#notify-state.muted", state, ` A turn-based game tells you after ${Math.round(n.turn_mail_delay_s / 60)} min of waiting, and once more before your time runs out.`),
    h("form#notify-mail.row", { onsubmit: (e) => { e.preventDefault(); save({ email: email.value.trim() || null, email_turns: turns.checked })().catch((x) => flash(x.message)); } },
      email, h("label", turns, " mail me"), h("button", { type: "submit", disabled: !n.mail_enabled }, "Save")),
    h("form#notify-hook.row", { onsubmit: (e) => { e.preventDefault(); save({ webhook_url: hook.value.trim() || null })().catch((x) => flash(x.message)); } },
      hook, h("button", { type: "submit" }, "Save webhook")),
    secret);
}
