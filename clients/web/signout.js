// Signing out as a guest: a guest's name cannot be recovered once its session ends (the same
// name later is another player), so the page asks first and offers to keep the player with a
// password or a passkey in the same dialog; Cancel keeps the guest signed in.

import { addPasskey, api } from "./api.js";
import { h } from "./dom.js";

/** Resolve true to go on signing out, false to stay. Accounts sign out at once. */
export async function confirmSignOut(name) {
  const me = await api("GET", "/api/me").catch(() => null);
  if (!me || me.account) return true;
  return new Promise((resolve) => {
    const status = h("p#signout-status.muted", { role: "status" });
    const pw = h("input#signout-password", { type: "password", placeholder: "new password (8+ characters)", autocomplete: "new-password", maxlength: 256, "aria-label": "New password" });
    const dlg = h("dialog#signout-dialog", { "aria-labelledby": "signout-title" },
      h("h2#signout-title", "Keep your name?"),
      h("p", `You are playing as the guest ${name}. If you sign out now, this name and its rating, history and games cannot be recovered: the same name later is a different player.`),
      h("p", "Keep them by setting a password (sign in anywhere with the name and the password) or adding a passkey:"),
      h("form.row", { onsubmit: async (e) => {
        e.preventDefault();
        try {
          await api("POST", "/api/account/password", { password: pw.value });
          pw.value = "";
          kept("a password");
        } catch (exc) { status.textContent = exc.message || String(exc); }
      } }, pw, h("button#signout-set-password", { type: "submit" }, "Set a password")),
      h("div.row", h("button#signout-passkey", { type: "button", onclick: async () => {
        try {
          await addPasskey("this browser");
          kept("a passkey");
        } catch (exc) { status.textContent = exc.message || String(exc); }
      } }, "Add a passkey")),
      status,
      h("div.row.dialog-actions",
        h("button#signout-cancel", { type: "button", onclick: () => done(false) }, "Cancel"),
        h("button#signout-anyway.danger", { type: "button", onclick: () => done(true) }, "Sign out and lose the name")));
    function kept(how) {
      status.textContent = `${name} is now an account: sign in again with ${how}.`;
      dlg.querySelector("#signout-anyway").textContent = "Sign out";
    }
    function done(go) {
      dlg.close();
      dlg.remove();
      resolve(go);
    }
    dlg.addEventListener("cancel", (e) => { e.preventDefault(); done(false); }); // Escape
    document.body.append(dlg);
    dlg.showModal();
  });
}
