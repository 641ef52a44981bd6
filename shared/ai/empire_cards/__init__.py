"""Empire The Card Game's players: its heuristic bot (``bot``), what the search needs from
the game (``determinize``: ``SEARCH``) and a player's memory of the hand (``memory``)."""
