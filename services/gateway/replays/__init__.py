"""Boards of a finished game's past steps for the replay viewer."""
