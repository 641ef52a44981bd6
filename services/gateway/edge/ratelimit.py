"""A token bucket per connection.

A connection over its rate is refused (``message/rate_limited``) and then paced: the gateway
reads its next frame only once a token is back (``wait_s``). The frames a flooder sends
meanwhile wait in its socket (uvicorn stops reading once its small queue is full, then TCP
holds the sender), so a flood costs the gateway about ``2 × rate`` frames a second per
connection, however fast it is sent (unpaced, an act flood takes a gateway core). A socket
refused more times than its burst before its bucket is full again is closed 1008 (flooding).

Pacing and strikes are keyed on the bucket's own refusals (``refusals``), never on a reply's
code: other refusals that share the code ``message/rate_limited`` (the per-player watch cap,
EMPIRE_WS_WATCHES_PER_GAME) are answers to a client within its rate, not a flood.
"""

from __future__ import annotations

import time


class TokenBucket:
    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.t = time.monotonic()
        self.refusals = 0  # take() answered False, ever (the serve loop compares counts)

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now

    def take(self) -> bool:
        self._refill()
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refusals += 1
        return False

    def full(self) -> bool:
        self._refill()
        return self.tokens >= self.burst

    def wait_s(self) -> float:
        """Seconds until a token is back (0 when one is there)."""
        self._refill()
        if self.tokens >= 1 or self.rate <= 0:
            return 0.0
        # plus a millisecond: a sleep of exactly this long can end a hair early (timer and
        # float rounding), its frame then refused again, and a flood got two refusals per
        # answer instead of one (the hostile test's 250 pongs of 400 pings)
        return (1 - self.tokens) / self.rate + 0.001
