// Refusals: the error a call rejects with, and which refusals say the message was not taken.

/** Refusals that say the message was not taken and may be sent again as it is. */
export const TRANSIENT_CODES = new Set(["message/unavailable", "message/rate_limited"]);

export class ApiError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.code = code;
  }

  get transient() { return TRANSIENT_CODES.has(this.code); }
}
