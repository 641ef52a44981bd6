"""The game fan-out: the live connections and their watches (hub), the shards of the games
watched here (shards), each socket's bounded outbound queue, and deleted players shown
anonymized on the way out (erased)."""
