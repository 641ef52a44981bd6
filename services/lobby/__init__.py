"""lobby: players, tables, seats, bots, invites, starting games."""
