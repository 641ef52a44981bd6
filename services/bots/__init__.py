"""bots: seats played by bots, each an ordinary client of the gateway."""
