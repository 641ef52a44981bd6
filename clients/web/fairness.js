// The page's fairness primitives (canonical JSON, LP, commitments, the dealer's draws): the
// one JavaScript implementation, fairness-core.mjs, which the Node client imports too. Kept as
// a module of its own so the page's other modules (play.js, controls.js) import from here.
export * from "./fairness-core.mjs";
