"""Every stream name and consumer group, and the keys of one game. Keys outside a game are in
``shared.protocol.keys``; who may touch which (the ACL, generated) in ``shared.protocol.acl``.

All keys of one game share the hash tag ``{<game_id>}`` so a Lua script can update them
atomically, also on a Redis/Valkey Cluster. Inter-service streams are sharded by game id into
``partitions`` streams so load spreads across cluster nodes and replicas.
"""

from __future__ import annotations

import zlib

from shared.protocol.turns import TURNS

# consumer groups (one per service; replicas share it)
GROUP_ADJUDICATOR = "adjudicator"
GROUP_ESCROW = "escrow"
GROUP_DEALER = "dealer"
GROUP_SCORING = "scoring"
GROUP_LOBBY = "lobby"
GROUP_BOTS = "bots"

# stream bases; sharded ones get ":<shard>"
ADJ_ACTIONS = "adj:actions"  # gateway -> adjudicator: seat actions
ADJ_REVEALS = "adj:reveals"  # escrow -> adjudicator: revealed joint actions
ADJ_DRAWS = "adj:draws"  # dealer -> adjudicator: seed commitments and draw outcomes
ADJ_CONTROL = "adj:control"  # lobby -> adjudicator: create game; timers -> adjudicator
ESC_OPEN = "esc:open"  # adjudicator -> escrow: open a sealed round
ESC_COMMITS = "esc:commits"  # gateway -> escrow: commitments with sealed openings
ESC_KEYS = "esc:keys"  # hash: the escrow's X25519 private key (escrow only; Keys.esc_keys)
DEALER_IN = "dealer:in"  # adjudicator -> dealer: seed commit, draw, reveal
GAME_ENDED = "game:ended"  # adjudicator -> scoring (and anyone): game over
BOTS_IN = "bots:in"  # lobby -> bot runner: seat a bot
LOBBY_RPC = "lobby:rpc"  # gateway -> lobby: request/reply
NOTIFY_RPC = "notify:rpc"  # gateway -> notifier: notification settings, request/reply
# gateway -> every gateway replica: chat_notify / mutes_changed (a small shared channel, no
# group; an older release's notify / reply too). A game's notify / reply entries go to its
# shard ``gw:updates:{u}:<k>`` (``updates_for``): a gateway reads only the shards of the games
# its own sockets watch (services/gateway/fanout/shards.py)
GW_UPDATES = "gw:updates"
GW_SHARDED = GW_UPDATES + ":{u}"  # the game fan-out's shards (one hash tag: one XREAD)
DEAD_LETTERS = "dlq"  # poison messages, after MAX_DELIVERIES
CHAT_REPORTS = "chat:reports"  # gateway -> operators: reported chat messages (no group)

SHARDED = (ADJ_ACTIONS, ADJ_REVEALS, ADJ_DRAWS, ADJ_CONTROL, ESC_OPEN, ESC_COMMITS, DEALER_IN)

# Who may touch what the fairness argument rests on (docs/fairness.md "Who can do what"), by
# Redis ACL user (shared/protocol/acl.py grants exactly this and generates
# deploy/valkey/users.acl.template; checked by tests/unit/platform/test_acl_generated.py and,
# on a real server, tests/integration/test_acl_registry.py):
# - the only writer (XADD) of each stream whose writer is part of a message's trust: the
#   adjudicator takes a reveal as the escrow's and a draw as the dealer's by their stream ...
STREAM_WRITERS: dict[str, frozenset[str]] = {
    ADJ_REVEALS: frozenset({"escrow"}),
    ADJ_DRAWS: frozenset({"dealer"}),
    # "your turn": nobody else may claim a game waits; the escrow only that a seat committed
    TURNS: frozenset({"adjudicator", "escrow"}),
}
# ... and its only consumer (XREADGROUP, XACK, XDEL, XAUTOCLAIM, XPENDING, XGROUP CREATE and
# DELCONSUMER, XINFO GROUPS and CONSUMERS: an ACL selector, with no XADD)
STREAM_CONSUMERS: dict[str, frozenset[str]] = {
    ADJ_REVEALS: frozenset({"adjudicator"}),
    ADJ_DRAWS: frozenset({"adjudicator"}),
}
# - the only readers and writers of a game's private keys and of the log's public copy (a
#   ``Keys`` attribute -> users); any user not named has no access at all
KEY_READERS: dict[str, frozenset[str]] = {
    "state": frozenset({"adjudicator"}),  # the authoritative document (hidden information)
    "log": frozenset({"adjudicator"}),  # the private move log (secret shuffle orders too)
    "publog": frozenset({"adjudicator", "gateway"}),  # its copy, made at the game's end
    "esc_open": frozenset({"escrow"}),  # sealed openings
    "esc_keys": frozenset({"escrow"}),  # the private key openings are sealed to
    "dealer": frozenset({"dealer"}),  # the server seed
}
KEY_WRITERS: dict[str, frozenset[str]] = {
    "state": frozenset({"adjudicator"}),
    "log": frozenset({"adjudicator"}),
    "publog": frozenset({"adjudicator"}),
    "esc_open": frozenset({"escrow"}),
    "esc_keys": frozenset({"escrow"}),
    "dealer": frozenset({"dealer"}),
}

# Byte budgets (docs/operations.md, "Stream budgets"). Every inter-service stream is trimmed
# with an approximate cap (XADD ... MAXLEN ~ n) where n = its byte budget / the largest entry
# it can carry, so a stream can never hold more than about its budget, whatever its writers
# send. Entries of a stream read by one consumer group are also deleted once acknowledged
# (shared/runtime/bus.py), so in steady state such a stream holds only its unread backlog: the
# cap bounds a backlog (consumers down or far behind), at which point the oldest entries go.
KIB = 1024
MIB = 1024 * KIB
ENVELOPE = 1 * KIB  # what a service adds around a client's payload (ids, seat, framing)
MAX_FRAME = 64 * KIB  # the largest client payload a stream entry carries (gateway limit)
# the largest act/commit frame the gateway can be configured to pass (EMPIRE_WS_MOVE_MAX_BYTES
# is at most this): the move streams' caps are sized from it, so a backlog of real moves (a few
# hundred bytes each) has room for ~29,000 entries before the oldest would go
MOVE_FRAME = 8 * KIB


class Budget:
    """A stream's byte budget and the largest entry it may carry."""

    def __init__(self, budget_bytes: int, max_entry_bytes: int) -> None:
        self.budget_bytes = budget_bytes
        self.max_entry_bytes = max_entry_bytes

    @property
    def maxlen(self) -> int:
        return max(16, self.budget_bytes // self.max_entry_bytes)


BUDGETS: dict[str, Budget] = {
    ADJ_ACTIONS: Budget(256 * MIB, MOVE_FRAME + ENVELOPE),  # a seat's act: a client frame
    ESC_COMMITS: Budget(256 * MIB, MOVE_FRAME + ENVELOPE),  # a seat's commit: a client frame
    LOBBY_RPC: Budget(64 * MIB, MAX_FRAME + ENVELOPE),  # an HTTP body to the lobby
    NOTIFY_RPC: Budget(16 * MIB, MAX_FRAME + ENVELOPE),  # an HTTP body to the notifier
    ADJ_CONTROL: Budget(64 * MIB, MAX_FRAME + ENVELOPE),  # create (table options) / timeouts
    ADJ_REVEALS: Budget(128 * MIB, MAX_FRAME + ENVELOPE),  # a round's choices (each allowed)
    ESC_OPEN: Budget(128 * MIB, MAX_FRAME + ENVELOPE),  # a round's slots with allowed lists
    ADJ_DRAWS: Budget(32 * MIB, 8 * KIB),  # a seed commitment or a draw's values
    DEALER_IN: Budget(32 * MIB, 8 * KIB),  # seed / draw / reveal requests
    GAME_ENDED: Budget(64 * MIB, 16 * KIB),  # players and the outcome's figures
    BOTS_IN: Budget(4 * MIB, 1 * KIB),  # one bot seat (ids and a token)
    GW_UPDATES: Budget(20 * MIB, 2 * KIB),  # notify / reply (reply messages are cut to 300)
    CHAT_REPORTS: Budget(64 * MIB, 32 * KIB),  # a reported message and up to 20 around it
    DEAD_LETTERS: Budget(64 * MIB, MAX_FRAME + 2 * ENVELOPE),  # a poison entry and its error
    TURNS: Budget(128 * MIB, 4 * KIB),  # who a game waits for: 12 seats' ids and clocks
}
# streams read by more than one consumer group: entries stay after one group acknowledged
# them (game:ended: scoring and the dealer; turns: the lobby and the notifier), so only their
# cap bounds them
MULTI_GROUP = frozenset({GAME_ENDED, TURNS})  # turns: the lobby's "My games", the notifier


def base_of(stream: str) -> str:
    """The base name of a (possibly sharded) stream: ``adj:actions:3`` -> ``adj:actions``."""
    head, _, tail = stream.rpartition(":")
    return head if tail.isdigit() and (head in SHARDED or head == GW_SHARDED) else stream


def maxlen(stream: str) -> int:
    """The approximate cap (MAXLEN ~) of a stream, from its byte budget; streams without a
    budget of their own get the smallest one of a client-frame stream."""
    base = base_of(stream)
    budget = BUDGETS.get(GW_UPDATES if base == GW_SHARDED else base)
    return budget.maxlen if budget is not None else BUDGETS[LOBBY_RPC].maxlen


MAXLEN_INTERNAL = maxlen(ADJ_ACTIONS)  # kept for callers that pass one figure (~4,000)
MAXLEN_UPDATES = maxlen(GW_UPDATES)  # the chat channel's retention (~10,000)
MAXLEN_VIEW = 16  # per-seat view snapshots kept for resume (each is a full snapshot)
MAX_DELIVERIES = 5
RECLAIM_IDLE_MS = 5_000

# timers (sorted sets: score = due time in ms)
TIMERS_ADJ = "timers:adj"
TIMERS_ESC = "timers:esc"


def shard_of(game_id: str, partitions: int) -> int:
    return zlib.crc32(game_id.encode()) % partitions if partitions > 1 else 0


def sharded(base: str, game_id: str, partitions: int) -> str:
    return f"{base}:{shard_of(game_id, partitions)}"


def all_shards(base: str, partitions: int) -> list[str]:
    return [f"{base}:{i}" for i in range(partitions)]


def updates_for(game_id: str, shards: int) -> str:
    """The fan-out shard that carries a game's notify / reply entries: ``gw:updates:{u}:<k>``,
    k = crc32(game id) mod ``shards`` (EMPIRE_GW_SHARDS). A gateway reads the shards of the
    games it watches, nothing else; all shards share the hash tag ``{u}`` (one slot on a
    cluster), so one XREAD reads them all."""
    return sharded(GW_SHARDED, game_id, shards)


def update_shards(shards: int) -> list[str]:
    """Every fan-out shard (operators, tests: what the fan-out holds)."""
    return all_shards(GW_SHARDED, shards)


def updates_maxlen(shards: int) -> int:
    """One shard's approximate cap: the fan-out's byte budget split over its shards (at least
    128 entries each: a gateway that missed a few seconds of its shards can still catch up;
    the slow sweep covers anything older)."""
    return max(128, MAXLEN_UPDATES // max(1, shards))


class Keys:
    """Redis keys of one game (all in one hash slot)."""

    def __init__(self, game_id: str) -> None:
        t = "{" + game_id + "}"
        self.game_id = game_id
        self.meta = f"g:{t}:meta"  # JSON: game, options, seats, players (public)
        self.state = f"g:{t}:state"  # JSON: seq + engine state (authoritative, private)
        self.log = f"g:{t}:log"  # stream: every applied move (private: the adjudicator only)
        # stream: the log's public copy, written by the adjudicator in the step that ends the
        # game (services/adjudicator/store.py); the only copy the gateway can read
        self.publog = f"g:{t}:publog"
        self.record = f"g:{t}:rec"  # stream: the public record
        self.cmds = f"g:{t}:cmds"  # hash: "<seat>|<command id>" -> result (idempotency)
        self.spectator = f"g:{t}:v:spec"  # stream: spectator view snapshots
        self.result = f"g:{t}:result"  # JSON: final outcome (public)
        # escrow-only keys (ACL: only the escrow's Redis user reads esc:*)
        self.esc_round = f"esc:{t}:round"  # hash: round id -> spec JSON; "<id>#reveal" -> reveal
        self.esc_status = f"esc:{t}:st"  # hash: round id -> open | closing | closed
        self.esc_open = f"esc:{t}:open"  # hash: "<round>/<slot>" -> opening JSON (secret)
        self.esc_keys = ESC_KEYS  # (not the game's: the escrow's one key, for the registry)
        # dealer-only keys (ACL: only the dealer's Redis user reads dealer:*)
        self.dealer = f"dealer:{t}:seed"  # hash: server seed, game key, draws

    def chat(self, channel: str) -> str:
        """stream: a game's chat channel, ``seats`` or ``spectators`` (gateway; bounded by
        EMPIRE_CHAT_KEEP; part of the game's archive, never of its record)."""
        return f"g:{{{self.game_id}}}:chat:{'spec' if channel == 'spectators' else 'seats'}"

    @property
    def chat_ids(self) -> str:
        """sorted set: "<player>|<message id>" posted to the game's chat channels (replays)."""
        return f"g:{{{self.game_id}}}:chat:ids"

    def esc_commits(self, round_id: str) -> str:
        """hash: slot key -> commitment, for one round (its HLEN counts the commits)."""
        return f"esc:{{{self.game_id}}}:c:{round_id}"

    def refusals(self, seat: int) -> str:
        """sorted set: a seat's latest refused command ids (score = ms; capped, with a TTL)."""
        return f"g:{{{self.game_id}}}:rej:{seat}"

    def view(self, seat: int | None) -> str:
        return self.spectator if seat is None else f"g:{{{self.game_id}}}:v:{seat}"


def table_chat(table_id: str) -> str:
    """stream: a table's chat before its start (gateway; expires EMPIRE_CHAT_TTL_S after its
    first message; archived with the table's game)."""
    return "tchat:{" + table_id + "}:msgs"


def table_chat_ids(table_id: str) -> str:
    """sorted set: "<player>|<message id>" posted to a table's chat (replays)."""
    return "tchat:{" + table_id + "}:ids"


def chat_mutes(player_id: str) -> str:
    """set: the players whose messages ``player_id`` does not want to see (gateway)."""
    return f"chat:mutes:{player_id}"


def chat_silenced(player_id: str) -> str:
    """string with a TTL, set by an operator: the player may not post (chat/muted)."""
    return f"chat:silenced:{player_id}"
