// Whether this browser adds the player's random seed to the dealer's by itself (the default:
// a fresh 32-byte seed from crypto.getRandomValues, committed as soon as the entropy round
// opens) or waits for the player to press "Add my random seed". Either way the seed is the
// player's own, sealed in this browser, and checked against its commitment at the reveal.

import { h } from "./dom.js";

const KEY = "eh:seed-by-hand";

export function seedByHand() {
  try {
    return localStorage.getItem(KEY) === "1";
  } catch {
    return false;
  }
}

export function setSeedByHand(on) {
  try {
    if (on) localStorage.setItem(KEY, "1");
    else localStorage.removeItem(KEY);
  } catch { /* storage refused: the default (automatic) stays */ }
}

/** The opt-in, for the play screen's fairness card. */
export function seedToggle() {
  return h("label.seedpref", h("input#seed-by-hand", { type: "checkbox", checked: seedByHand(),
    onchange: (e) => setSeedByHand(e.target.checked) }),
  " Add my random seed by hand (otherwise this page adds it for me as each game starts)");
}
