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
    "auth/revoked_session",  # the access token's session was signed out, revoked or ended
    "auth/refresh_invalid",  # no such refresh token (expired, signed out, or never issued)
    "auth/refresh_reused",  # a spent refresh token came back: the whole session is revoked
    "auth/bad_credentials",  # wrong name or password / unknown passkey (the same either way)
    "auth/rate_limited",  # too many failed sign-ins for this name: wait (Retry-After)
    "auth/weak_password",  # under 8 characters (or over 256), or the name itself
    "auth/suspended",  # an admin suspended this player: sign-in and refresh refused
    "auth/bad_origin",  # the WebSocket's Origin is not allowed (close 4403)
    "auth/bad_challenge",  # the passkey challenge expired, was used, or is someone else's
    "auth/passkey_failed",  # the passkey's answer did not verify
    "auth/forbidden",  # the admin role is needed
    "auth/bad_signature",  # an act/commit not signed by a session key registered to the seat's
    # player (docs/protocol.md "Signed commands"); also a session key the lobby refuses
    "seat/not_seated",  # the player has no seat in this game
    "game/not_found",
    "game/over",
    "game/private",  # the host allows only the game's players to watch it
    "game/seat_handed_over",  # the player resigned (or timed out): a bot plays this seat now
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
    "escrow/bad_seal",  # the sealed opening does not open with the escrow key for this slot
    "escrow/slot_timed_out",  # ordered round: this slot's own time ran out (P-S1)
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
    "lobby/not_seated",  # the player to remove has no seat at the table (or, resign, in the game)
    # table talk (gateway WebSocket: chat, chat_join, chat_mute, chat_report)
    "chat/not_member",  # not at this table / not a player (nor an allowed spectator) of this game
    "chat/wrong_channel",  # a spectator writing to the seats' channel, a seat to the spectators'
    "chat/kicked",  # the host removed this player from the table
    "chat/muted",  # an operator silenced this player (chat:silenced:<player id>)
    "chat/closed",  # the table has started or closed: its channel takes no more messages
    "chat/duplicate",  # this message id (cmd_id) was already posted to this channel
    "chat/too_long",  # over EMPIRE_CHAT_MAX_CHARS characters
    "chat/empty",  # nothing visible left once control and bidi characters are removed
    "chat/rate_limited",  # over the per-player chat rate (every gateway replica counts)
    "chat/not_found",  # report: no such message in the channel (or no longer kept)
    "chat/bad_request",  # mute yourself, too many mutes
    # replays (gateway HTTP)
    "replay/not_ended",  # boards of past steps are served once the game has ended
    "replay/bad_request",  # step or seat out of range
    # notifications (gateway HTTP -> notifier: /api/me/notifications, verify, unsubscribe)
    "notify/bad_request",  # not a JSON object, unknown fields, wrong types
    "notify/bad_email",  # not one plain address (control characters, a second header...)
    "notify/mail_off",  # the server mails nothing (no EMPIRE_SMTP_URL): no address is taken
    "notify/bad_webhook",  # not an https URL (or too long, or with credentials in it)
    "notify/webhook_private",  # the host resolves to a loopback, private or link-local address
    "notify/webhook_unresolvable",  # the webhook's host name does not resolve
    "notify/bad_token",  # a verification or unsubscribe link that is unknown, used or forged
    "notify/capped",  # this player's mails for today are used up (EMPIRE_NOTIFY_DAILY_CAP)
    "notify/unavailable",  # the notifier did not answer in time: GET, then send it again
]

ERROR_CODES: tuple[str, ...] = ErrorCode.__args__  # type: ignore[attr-defined]
