"""Who may touch what: every Valkey ACL user, its commands and the key patterns it may read or
write, as data. ``deploy/valkey/users.acl.template`` (and its Kubernetes copy) is generated from
this module (``python -m shared.runtime.valkey_acl --write``, ``make acl``) and checked for drift
in ``make test``; the fairness rules it must keep (streams.STREAM_WRITERS, STREAM_CONSUMERS,
KEY_READERS, KEY_WRITERS) are checked against it without a server
(tests/unit/platform/test_acl_generated.py) and against a real Valkey with ``ACL DRYRUN``
(tests/integration/test_acl_registry.py).

A grant is ``(mode, glob)``: mode ``RW`` renders as ``~glob``, ``R`` as ``%R~glob``, ``W`` as
``%W~glob``. A selector (rendered in parentheses) is a second rule set of the same user: its
own commands on its own keys (e.g. the adjudicator consumes reveals without XADD)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Literal

from shared.protocol import keys, streams
from shared.protocol.turns import TURNS

Mode = Literal["R", "W", "RW"]

# -- key families as the ACL sees them ---------------------------------------------------------
G_STATE = "g:*:state"
G_LOG = "g:*:log"
G_PUBLOG = "g:*:publog"
G_RECORD = "g:*:rec"
G_CMDS = "g:*:cmds"
G_VIEWS = "g:*:v:*"
G_REFUSALS = "g:*:rej:*"
G_CHAT = "g:*:chat:*"
G_META = "g:*:meta"
G_RESULT = "g:*:result"
ESCROW = "esc:*"
DEALER = "dealer:*"
TABLE_CHAT = "tchat:*"
CHAT = "chat:*"
# the lobby's session key registry (signed commands): the adjudicator and the escrow read it
# to verify signed acts and commits; only the lobby writes it, the gateway cannot even read it
SESSION_KEYS = keys.lobby_session_keys("*")


def _sharded(base: str) -> str:
    return base + ":*"


# the game fan-out's shards: the adjudicator, escrow and dealer write a game's
# notify / reply there, gateways only read them (services/gateway/fanout/shards.py)
GW_SHARDS = _sharded(streams.GW_SHARDED)
# ... and may still write the shared gw:updates their older release wrote a game's entries to
# (a rolling upgrade applies this ACL while old replicas still run; gateways read it too)
GW_LEGACY = streams.GW_UPDATES


# what every stream consumer runs (shared/runtime/bus.py, service.py, liveness.py, metrics.py)
CONSUMER = ("xreadgroup", "xack", "xautoclaim", "xpending", "xgroup|create", "xinfo|groups",
            "xinfo|consumers", "xgroup|delconsumer")
# every service user: a probe's PING, the client name, RedisCluster's bootstrap
BASE = ("ping", "client|setinfo", "cluster|slots", "cluster|shards", "command")
STREAM_SERVICE = (*BASE, "xadd", *CONSUMER)


@dataclass(frozen=True)
class Selector:
    commands: tuple[str, ...]
    grants: tuple[tuple[Mode, str], ...]


# the turns stream's readers (the lobby's "My games"; a notifier's user takes the same
# selector): consume, never append
TURNS_READER = Selector(CONSUMER, (("RW", TURNS),))


@dataclass(frozen=True)
class User:
    name: str
    commands: tuple[str, ...]
    grants: tuple[tuple[Mode, str], ...] = ()
    channels: bool = False  # pub/sub on every channel (&*), else none (resetchannels)
    selectors: tuple[Selector, ...] = ()
    raw: str = ""  # a fixed rule line (default, admin, probes): rendered as it is
    password: bool = True


USERS: tuple[User, ...] = (
    # AOF replay re-checks queued commands against the default user (valkey-io/valkey#3983):
    # it is off (nobody can sign in as it) but keeps every permission
    User("default", (), raw="resetpass ~* &* +@all", password=False),
    User("admin", (), raw="~* &* +@all"),
    User("health", (), raw="resetchannels -@all +ping +info +client|setinfo"),
    User("backup", (), raw="resetchannels -@all +ping +client|setinfo +sync +psync +replconf "
                           "+info"),
    User("adjudicator",
         (*STREAM_SERVICE, "evalsha", "script|load", "hget", "hset", "hsetnx", "zadd",
          "zrangebyscore", "zrem", "set", "xdel", "pexpire", "hexists", "zscore", "zcard",
          "zremrangebyscore", "zremrangebyrank", "get", "xrange", "xrevrange", "copy"),
         (("RW", G_STATE), ("RW", G_LOG), ("RW", G_PUBLOG), ("RW", G_RECORD), ("RW", G_CMDS),
          ("RW", G_VIEWS), ("RW", _sharded(streams.ADJ_ACTIONS)),
          ("RW", _sharded(streams.ADJ_CONTROL)), ("RW", streams.TIMERS_ADJ),
          # partitioned timers (shared/runtime/timers.py); the legacy global key is drained
          ("RW", streams.TIMERS_ADJ + ":*"),
          ("RW", keys.lease("adj-timer:*")), ("W", _sharded(streams.ESC_OPEN)),
          ("W", _sharded(streams.DEALER_IN)), ("W", streams.GAME_ENDED),
          ("W", GW_SHARDS), ("W", GW_LEGACY), ("W", streams.DEAD_LETTERS), ("RW", G_REFUSALS),
          ("RW", G_CHAT), ("R", TABLE_CHAT), ("RW", G_META), ("RW", G_RESULT),
          ("W", keys.PATTERNS["archive"]), ("R", SESSION_KEYS),
          # the only writer of who a game waits for: appended inside the commit script, whose
          # declared keys need read and write
          ("RW", TURNS),
          # a seat handed to a bot (services/adjudicator/handover.py): the bot's seat to the
          # bot runner; on_expiry "bot": the lobby asked to seat one
          ("W", streams.BOTS_IN), ("W", streams.LOBBY_RPC)),
         selectors=(Selector((*CONSUMER[:1], "xack", "xdel", *CONSUMER[2:]),
                             (("RW", _sharded(streams.ADJ_REVEALS)),
                              ("RW", _sharded(streams.ADJ_DRAWS)))),)),
    User("escrow",
         (*STREAM_SERVICE, "evalsha", "script|load", "hget", "hmget", "hgetall", "hset",
          "hsetnx", "hexists", "hlen", "hincrby", "zadd", "zrangebyscore", "zrem", "set", "xdel",
          "pexpire", "pttl", "xrevrange"),
         (("RW", ESCROW), ("RW", G_RECORD), ("RW", streams.TIMERS_ESC),
          ("RW", streams.TIMERS_ESC + ":*"),
          ("RW", keys.lease("esc-timer:*")), ("W", GW_SHARDS), ("W", GW_LEGACY),
          ("W", streams.DEAD_LETTERS), ("R", SESSION_KEYS),
          # a seat's accepted commit (SeatCommitted: public, no choice): appended, never read
          ("W", TURNS)),
         selectors=(Selector(("xadd",), (("W", _sharded(streams.ADJ_REVEALS)),)),)),
    User("dealer",
         (*STREAM_SERVICE, "evalsha", "script|load", "hget", "hgetall", "hset", "hsetnx",
          "rpush", "lrange", "xdel", "pexpire"),
         (("RW", DEALER), ("RW", streams.GAME_ENDED), ("RW", G_RECORD),
          ("W", GW_SHARDS), ("W", GW_LEGACY), ("W", streams.DEAD_LETTERS)),
         selectors=(Selector(("xadd",), (("W", _sharded(streams.ADJ_DRAWS)),)),)),
    User("scoring",
         (*STREAM_SERVICE, "watch", "multi", "exec", "unwatch", "discard", "hget", "hmget",
          "hset", "set", "zadd", "zremrangebyrank"),
         (("RW", keys.PATTERNS["ratings"]), ("RW", streams.GAME_ENDED), ("W", G_RESULT),
          ("W", keys.PATTERNS["leaderboard"]), ("W", keys.PATTERNS["player_history"]),
          ("W", keys.PATTERNS["game_history"]), ("W", streams.DEAD_LETTERS))),
    User("lobby",
         (*STREAM_SERVICE, "publish", "watch", "multi", "exec", "unwatch", "discard", "get",
          "set", "exists", "zadd", "zrem", "zrange", "zrevrange", "xdel", "evalsha",
          "script|load", "mget", "hget", "hgetall", "hset", "hdel", "hexists", "hlen", "hvals",
          "expire", "zrangebyscore", "zrevrangebyscore", "zremrangebyscore", "del", "incr",
          "incrby", "getdel", "persist", "ttl", "sadd", "xrevrange",
          "zremrangebyrank", "pexpire", "smismember"),  # "My games" (mygames_store.py)
         (("RW", keys.PATTERNS["lobby"]), ("R", G_RESULT), ("RW", G_META),
          ("W", _sharded(streams.ADJ_CONTROL)), ("W", streams.BOTS_IN),
          ("W", streams.DEAD_LETTERS), ("R", keys.PATTERNS["archive"]),
          ("RW", keys.PATTERNS["ratings"]), ("RW", keys.PATTERNS["leaderboard"]),
          ("RW", keys.PATTERNS["player_history"]),
          ("W", streams.GW_UPDATES)),  # "My games" pushed to a player's sockets (my_game)
         channels=True,
         selectors=(TURNS_READER,)),
    User("bots",
         (*STREAM_SERVICE, "hset", "hdel", "hgetall", "set", "del", "xdel", "hscan"),
         (("RW", keys.PATTERNS["bots"]), ("W", streams.DEAD_LETTERS))),
    # the notifier reads whose move games wait for (TURNS, its own group) and answers the
    # gateway's settings requests (notify:rpc); it holds its own keys only, no game's
    User("notifier",
         (*STREAM_SERVICE, "publish", "xdel", "evalsha", "script|load", "get", "set", "getdel",
          "del", "hgetall", "hset", "hdel", "incr", "decr", "expire", "multi", "exec", "zadd",
          "zrangebyscore", "zrem", "zscore"),
         (("RW", keys.PATTERNS["notify"]), ("W", streams.DEAD_LETTERS)),
         channels=True,
         selectors=(TURNS_READER,)),  # consumes turns, never appends (adjudicator, escrow do)
    User("gateway",
         ("ping", "info", "client|setinfo", "cluster|slots", "cluster|shards", "command", "xadd",
          "xread", "xrange", "xrevrange", "get", "hmget", "zrevrange", "subscribe",
          "unsubscribe", "smismember"),
         (("R", G_VIEWS), ("R", G_RECORD), ("R", G_META), ("R", G_PUBLOG), ("R", G_RESULT),
          ("R", keys.PATTERNS["leaderboard"]), ("R", keys.PATTERNS["ratings"]),
          ("R", keys.PATTERNS["player_history"]), ("RW", streams.GW_UPDATES), ("R", GW_SHARDS),
          ("R", keys.lobby_table("*")), ("W", _sharded(streams.ADJ_ACTIONS)),
          ("W", _sharded(streams.ESC_COMMITS)), ("W", streams.LOBBY_RPC),
          ("R", keys.PATTERNS["archive"]), ("R", keys.lobby_revoked("*")),
          ("R", keys.LOBBY_ERASED), ("W", streams.NOTIFY_RPC)),
         channels=True,
         selectors=(
             Selector(("evalsha", "script|load", "get", "set", "zadd", "zrem", "zcard",
                       "zscore", "zremrangebyscore", "pexpire"),
                      (("RW", keys.PATTERNS["rate"]),)),
             Selector(("evalsha", "script|load", "xadd", "xrange", "xrevrange", "get", "sadd",
                       "srem", "smembers", "pexpire", "zscore", "zadd", "zremrangebyrank",
                       "pttl"),
                      (("RW", G_CHAT), ("RW", TABLE_CHAT), ("RW", CHAT))),
         )),
)

PASSWORD = "@PASSWORD@"  # entrypoint.sh (and the embedded Valkey) put each user's password here


@dataclass(frozen=True)
class Access:
    """What one user may do to one concrete key, by its grants (selectors included)."""

    read: bool = False
    write: bool = False
    commands: frozenset[str] = field(default_factory=frozenset)


def _grant(mode: Mode, glob: str) -> str:
    return {"RW": "~", "R": "%R~", "W": "%W~"}[mode] + glob


def render_user(user: User) -> str:
    flag = "on" if user.password else "off"
    head = f"user {user.name} {flag}" + (f" {PASSWORD}" if user.password else "")
    if user.raw:
        return f"{head} {user.raw}"
    parts = [head, "resetchannels"]
    if user.channels:
        parts.append("&*")
    parts.append("-@all")
    parts += [f"+{c}" for c in user.commands]
    parts += [_grant(m, g) for m, g in user.grants]
    for sel in user.selectors:
        inner = [_grant(m, g) for m, g in sel.grants] + [f"+{c}" for c in sel.commands]
        parts.append("(" + " ".join(inner) + ")")
    return " ".join(parts)


def render() -> str:
    """The ACL rules template, one line per user, as deploy/valkey/users.acl.template holds it."""
    return "".join(render_user(u) + "\n" for u in USERS)


def user(name: str) -> User:
    return next(u for u in USERS if u.name == name)


def _matches(glob: str, key: str) -> bool:
    """Valkey's glob for ACL key patterns (only ``*`` is used here)."""
    return fnmatch.fnmatchcase(key, glob)


def access(name: str, key: str) -> Access:
    """What ``name`` may do to ``key`` under its grants and selectors (a model of the ACL for
    tests without a server; the integration test checks the real server agrees)."""
    u = user(name)
    if u.raw:
        everything = "~*" in u.raw.split()
        return Access(everything, everything, frozenset({"@all"}) if everything else frozenset())
    read = write = False
    cmds: set[str] = set()
    for rules, grants in [(u.commands, u.grants), *((s.commands, s.grants) for s in u.selectors)]:
        for mode, glob in grants:
            if _matches(glob, key):
                read |= "R" in mode
                write |= "W" in mode
                cmds |= set(rules)
    return Access(read, write, frozenset(cmds))
