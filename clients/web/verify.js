// The browser's twin of shared/fairness/verify.py: fairness-core.mjs's verifyRecord (the same
// checks, the same problem texts and counts as Python and the Node client; receipts too).
export { CLASSES, verifyRecord } from "./fairness-core.mjs";
