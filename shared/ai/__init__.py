"""The games' players: heuristic bots, search bots and what the search needs from each game.

The rules (``shared.rules``) never import this package; it reads the games through the
contract (``shared.rules.api``) and, where a bot or a determinizer needs a game's own data or
state models, through that game's modules. ``registry`` looks a game's bots up by name.
"""
