"""Code shared by every service: the wire protocol, the game contract and games, fairness
primitives and runtime helpers. Everything under ``shared.rules`` and ``shared.fairness`` is
pure (no network, no clock, no global random)."""
