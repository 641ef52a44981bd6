"""adjudicator: owns each game's authoritative state and applies the rules."""
