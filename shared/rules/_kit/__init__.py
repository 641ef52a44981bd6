"""Pure helpers shared by the games."""
