"""The functional core: five deterministic game engines behind one contract (``api.Game``)."""
