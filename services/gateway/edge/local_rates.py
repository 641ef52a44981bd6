"""Each gateway replica's own view of the cluster's GCRA rates (edge/quotas.py), one
"theoretical arrival time" (TAT, µs of wall time) per limited subject, in a bounded LRU.

Two uses:

* **Pre-check.** Every answer of the Valkey script carries the subject's TAT in the cluster
  (``learn``). While the last TAT this replica saw still refuses a request (``wait_us`` > 0),
  the request is refused here, without a Valkey round trip: the cluster's TAT only grows, so
  a request refused here would be refused there too (same rate, same burst, the replicas'
  clocks within a second of each other). A flood past the limit costs one Valkey call per
  freed token (plus those already in flight), not one per request. What passes here is
  still decided by Valkey.
* **Fallback.** When the Valkey call fails (down, timed out, NOPERM), the request is taken
  from this view (``take``): the same rate and burst per subject, started from the cluster's
  last known TAT. So an address is held near its burst per replica instead of passing
  unlimited, and a call that timed out in a flood (its script may well have refused it) is
  refused when the answers that did arrive say the subject is over its limit.

Pure but for the clock the caller passes; at most ``size`` subjects, the least recently used
forgotten first (a forgotten subject starts full again, as it does in Valkey once its key
expires).
"""

from __future__ import annotations

from collections import OrderedDict

SUBJECTS = 100_000  # per replica: a few MiB at most


class LocalRates:
    def __init__(self, size: int = SUBJECTS) -> None:
        self.size = size
        self._tat: OrderedDict[str, int] = OrderedDict()

    def __len__(self) -> int:
        return len(self._tat)

    def _get(self, key: str) -> int:
        tat = self._tat.get(key)
        if tat is None:
            return 0
        self._tat.move_to_end(key)
        return tat

    def _set(self, key: str, tat: int) -> None:
        self._tat[key] = tat
        self._tat.move_to_end(key)
        while len(self._tat) > self.size:
            self._tat.popitem(last=False)

    def wait_us(self, key: str, now_us: int, interval_us: int, burst: int) -> int:
        """µs until a request of ``key`` fits in the last known TAT (0: it fits now)."""
        tat = max(self._get(key), now_us)
        return max(0, tat + interval_us - burst * interval_us - now_us)

    def learn(self, key: str, tat_us: int) -> None:
        """The cluster's TAT for ``key`` as an answer just told it (never moves back)."""
        if tat_us > self._get(key):
            self._set(key, tat_us)

    def take(self, key: str, now_us: int, interval_us: int, burst: int) -> int:
        """One request decided here (the fallback): 0 and counted when it fits, else the µs
        until one does."""
        wait = self.wait_us(key, now_us, interval_us, burst)
        if wait == 0:
            self._set(key, max(self._get(key), now_us) + interval_us)
        return wait
