"""Every stream name, consumer group and key pattern in one place.

All keys of one game share the hash tag ``{<game_id>}`` so a Lua script can update them
atomically, also on a Redis/Valkey Cluster. Inter-service streams are sharded by game id into
``partitions`` streams so load spreads across cluster nodes and replicas.
"""

from __future__ import annotations

import zlib

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
ESC_COMMITS = "esc:commits"  # gateway -> escrow: commitments with openings
DEALER_IN = "dealer:in"  # adjudicator -> dealer: seed commit, draw, reveal
GAME_ENDED = "game:ended"  # adjudicator -> scoring (and anyone): game over
BOTS_IN = "bots:in"  # lobby -> bot runner: seat a bot
LOBBY_RPC = "lobby:rpc"  # gateway -> lobby: request/reply
GW_UPDATES = "gw:updates"  # everyone -> every gateway replica (fan-out, no group)
DEAD_LETTERS = "dlq"  # poison messages, after MAX_DELIVERIES

SHARDED = (ADJ_ACTIONS, ADJ_REVEALS, ADJ_DRAWS, ADJ_CONTROL, ESC_OPEN, ESC_COMMITS, DEALER_IN)

MAXLEN_INTERNAL = 100_000  # approximate trim of inter-service streams (MAXLEN ~)
MAXLEN_UPDATES = 10_000
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


class Keys:
    """Redis keys of one game (all in one hash slot)."""

    def __init__(self, game_id: str) -> None:
        t = "{" + game_id + "}"
        self.game_id = game_id
        self.meta = f"g:{t}:meta"  # JSON: game, options, seats, players (public)
        self.state = f"g:{t}:state"  # JSON: seq + engine state (authoritative, private)
        self.log = f"g:{t}:log"  # stream: every applied move (private until the end)
        self.record = f"g:{t}:rec"  # stream: the public record
        self.cmds = f"g:{t}:cmds"  # hash: command id -> result (idempotency)
        self.spectator = f"g:{t}:v:spec"  # stream: spectator view snapshots
        self.result = f"g:{t}:result"  # JSON: final outcome (public)
        # escrow-only keys (ACL: only the escrow's Redis user reads esc:*)
        self.esc_round = f"esc:{t}:round"  # hash: round id -> spec JSON; "<id>#reveal" -> reveal
        self.esc_status = f"esc:{t}:st"  # hash: round id -> open | closing | closed
        self.esc_open = f"esc:{t}:open"  # hash: "<round>/<slot>" -> opening JSON (secret)
        # dealer-only keys (ACL: only the dealer's Redis user reads dealer:*)
        self.dealer = f"dealer:{t}:seed"  # hash: server seed, game key, draws
        self.scored = f"sc:{t}:done"  # scoring idempotency marker

    def esc_commits(self, round_id: str) -> str:
        """hash: slot key -> commitment, for one round (its HLEN counts the commits)."""
        return f"esc:{{{self.game_id}}}:c:{round_id}"

    def view(self, seat: int | None) -> str:
        return self.spectator if seat is None else f"g:{{{self.game_id}}}:v:{seat}"
