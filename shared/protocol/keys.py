"""Every Redis key outside one game's hash slot, in one place (a game's own keys are
``streams.Keys``; the streams are in ``streams``). Who may read or write each pattern is in
``shared.protocol.acl``, from which the shipped ACL file is generated.

Each builder returns the concrete key; ``PATTERNS`` lists every family as the glob the ACL
grants, so a test can check that every key a builder makes is granted to the service that
uses it (tests/unit/platform/test_acl_generated.py)."""

from __future__ import annotations

# -- lobby (services/lobby): players, sessions, tables ---------------------------------------
LOBBY_OPEN_TABLES = "lobby:open"  # sorted set: open tables, newest first
LOBBY_IDLE_TABLES = "lobby:idle"  # sorted set: open tables by last activity (idle close)
LOBBY_LIVE_GAMES = "lobby:live"  # sorted set: games in play
LOBBY_AUDIT = "lobby:audit"  # stream: admin actions, newest last (EMPIRE_AUDIT_MAXLEN)
LOBBY_ERASED = "lobby:erased"  # set: deleted players' ids (the gateway anonymizes them)
LOBBY_REVOKED_CHANNEL = "lobby:revoked"  # pub/sub: revoked session ids (gateways close sockets)


def lobby_player(player_id: str) -> str:
    """JSON: a player (name, handle, role, flags)."""
    return f"lobby:player:{player_id}"


def lobby_handle(digest: str) -> str:
    """string: the player holding a handle (``digest`` = sha of the handle's key)."""
    return f"lobby:handle:{digest}"


def lobby_session(session_id: str) -> str:
    """hash: a refresh session (hashed token, family, player)."""
    return f"lobby:sess:{session_id}"


def lobby_sessions(player_id: str) -> str:
    """set: a player's session ids."""
    return f"lobby:sessions:{player_id}"


def lobby_revoked(session_id: str) -> str:
    """string with a TTL: a revoked session (read by every gateway)."""
    return f"lobby:rev:{session_id}"


def lobby_credentials(player_id: str) -> str:
    """hash: a player's password hash and passkeys."""
    return f"lobby:cred:{player_id}"


def lobby_passkey(digest: str) -> str:
    """string: the player a passkey credential id belongs to (sha of the id)."""
    return f"lobby:pkid:{digest}"


def lobby_challenge(challenge_id: str) -> str:
    """string with a TTL: a single-use WebAuthn challenge."""
    return f"lobby:chal:{challenge_id}"


def lobby_failures(digest: str) -> str:
    """counter with a TTL: failed sign-ins for a handle (sha of its key)."""
    return f"lobby:fail:{digest}"


def lobby_session_keys(player_id: str) -> str:
    """hash: a player's registered session public keys (hex) -> expiry (ms), written only by
    the lobby (after it checked the player's token itself), read by the adjudicator and the
    escrow to verify signed commands (shared/runtime/session_keys.py)."""
    return f"lobby:skey:{player_id}"


def lobby_table(table_id: str) -> str:
    """JSON: a table (read by the gateway's chat for its seats)."""
    return f"lobby:table:{table_id}"


def lobby_invite(code: str) -> str:
    """string: the table an invite code opens."""
    return f"lobby:invite:{code}"


def lobby_quota(tag: str) -> list[str]:
    """sorted sets: a player's (or an address's) open tables and running games (quotas)."""
    return [f"lobby:q:{tag}:tables", f"lobby:q:{tag}:games"]


def lobby_my_game(game_id: str) -> str:
    """JSON with a TTL: a game's latest entry of the turns stream ("My games")."""
    return f"lobby:mg:game:{game_id}"


def lobby_my_game_committed(game_id: str, round_id: str) -> str:
    """hash with a TTL: the seats that committed in a game's sealed round ("My games")."""
    return f"lobby:mg:sealed:{game_id}:{round_id}"


def lobby_my_games(player_id: str) -> str:
    """sorted set: a player's games ("My games"), score = the game's last change (ms)."""
    return f"lobby:mg:player:{player_id}"


# -- bots (services/bots) -------------------------------------------------------------------
BOTS_ACTIVE = "bots:active"  # hash: bot seat -> its spec (the seats a runner may adopt)


def bots_lease(seat_key: str) -> str:
    """string with a TTL: the runner playing a bot seat."""
    return f"bots:lease:{seat_key}"


# -- scoring (services/scoring) -------------------------------------------------------------
def leaderboard(game: str) -> str:
    """sorted set: a game's leaderboard."""
    return f"lb:{game}"


def ratings(game: str) -> str:
    """hash: player -> rating JSON, per game."""
    return f"rating:{game}"


def player_history(player_id: str) -> str:
    """sorted set: a player's finished games."""
    return f"hist:{player_id}"


def game_history(game: str) -> str:
    """sorted set: a game's finished matches."""
    return f"history:{game}"


# -- timers and leases (adjudicator, escrow) ------------------------------------------------
def lease(name: str) -> str:
    """string with a TTL: one replica's claim (``adj-timer:<member>``, ``esc-timer:<member>``)."""
    return f"lease:{name}"


# -- gateway ----------------------------------------------------------------------------------
RATE_PREFIX = "rl:"  # rate limits and socket counts (services/gateway/edge/quotas.py)


def reply_channel(instance: str, nonce: str) -> str:
    """pub/sub: one gateway process's replies from the lobby."""
    return f"gw:reply:{instance}:{nonce}"


# -- archive (shared/runtime/archive.py) ------------------------------------------------------
def archive(game_id: str) -> str:
    """hash: a finished game's archive (record, log, reveals, chat), kept after its live keys
    expire."""
    return "arch:{" + game_id + "}"


# Every family above as the glob the ACL grants (the game's own keys and the streams are in
# shared.protocol.acl with the rest of the grants).
PATTERNS: dict[str, str] = {
    "lobby": "lobby:*",
    "bots": "bots:*",
    "leaderboard": "lb:*",
    "ratings": "rating:*",
    "player_history": "hist:*",
    "game_history": "history:*",
    "lease": "lease:*",
    "rate": RATE_PREFIX + "*",
    "archive": "arch:*",
    # the notifier's own: settings, sent-markers, daily counts, its due-queue and request
    # stream (services/notifier/store.py names each)
    "notify": "notify:*",
}
