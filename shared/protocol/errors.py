"""Enumerated rejection codes: every refusal a client can receive carries one of these."""

from typing import Literal, TypeAlias

ErrorCode: TypeAlias = Literal[
    # message level (gateway)
    "message/malformed",  # not JSON, not a known message type, wrong field types
    "message/too_large",  # over the gateway's size limit
    "message/rate_limited",  # over the per-connection rate limit
    "message/unsupported_version",
    "message/unavailable",  # a transient server failure; the message was not taken, retry
    "storage/full",  # Valkey is near maxmemory: new players, tables, games wait (HTTP 503)
    # auth and seating
    "auth/invalid_token",
    "auth/expired_token",
    "seat/not_seated",  # the player has no seat in this game
    "game/not_found",
    "game/over",
    "game/private",  # the host allows only the game's players to watch it
    # commands (adjudicator)
    "command/duplicate",  # this command id was already processed
    "action/stale_seq",  # expected_seq differs from the game's current seq
    "action/malformed",
    "action/not_your_turn",
    "action/illegal",
    "action/wrong_phase",
    "action/unknown_round",
    # sealed choices (escrow)
    "escrow/no_round",  # no such open round
    "escrow/closed",  # the round has closed; nothing is accepted after close
    "escrow/not_your_slot",
    "escrow/out_of_order",  # ordered round: an earlier slot has not committed yet
    "escrow/already_committed",
    "escrow/bad_commitment",  # the opening does not hash to the commitment
    "escrow/choice_not_allowed",
    "escrow/public_mismatch",  # the declared public part differs from the opening
    # lobby
    "lobby/not_found",
    "lobby/table_full",
    "lobby/not_host",
    "lobby/already_started",
    "lobby/bad_request",
    "lobby/quota",  # a per-player quota: open tables, running games or bot seats
    "lobby/closed",  # the table was closed after being idle too long
    "lobby/bad_name",  # control/format/bidi characters, blank, bot-like or '#' in a name
    "lobby/name_taken",  # the name (or a case/confusable look-alike) is held (exact: true)
    "lobby/invite_required",  # a private table is joined with its invite, not its id
    "lobby/kicked",  # the host removed this player from the table
    "lobby/not_seated",  # the player to remove has no seat at the table
    # replays (gateway HTTP)
    "replay/not_ended",  # boards of past steps are served once the game has ended
    "replay/bad_request",  # step or seat out of range
]

ERROR_CODES: tuple[str, ...] = ErrorCode.__args__  # type: ignore[attr-defined]
