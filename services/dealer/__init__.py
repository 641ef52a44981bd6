"""dealer: all randomness, committed before play and verifiable after."""
