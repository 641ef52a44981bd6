"""Shell helpers with I/O but no game logic: settings, logging, Redis, the embedded Valkey."""
