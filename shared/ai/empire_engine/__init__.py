"""The Empire Engine's players: its heuristic bot (``bot``) and what the search needs from the
game (``determinize``: ``SEARCH``)."""
