"""An AsyncAPI 3.0 document for the gateway's WebSocket (``/ws``), built from the wire models.

    from shared.protocol.ws_asyncapi import document
    json.dumps(document(), indent=2, sort_keys=True)

Every message of ``CLIENT_ADAPTER`` (client -> gateway) and ``SERVER_ADAPTER`` (gateway ->
client) becomes a component message whose payload is the model's JSON Schema (pydantic, with
``$ref``s into ``#/components/schemas``), with a validated example. Operations are written from
the gateway's side: it *receives* the client's commands (each with the replies it may get) and
*sends* pushes (welcome, views, record entries, refusals). The output is a pure function of the
code: no clock, no environment, stable ordering (so it can sit in the committed-schema check).
"""

from __future__ import annotations

import inspect
from typing import Any

from pydantic import TypeAdapter

from shared.protocol import client as cm
from shared.protocol import server as sm
from shared.protocol.errors import ERROR_CODES
from shared.protocol.versions import KNOWN_PROTOCOL_VERSIONS, PROTOCOL_VERSION

REF = "#/components/schemas/{model}"
# the gateway's WebSocket close codes (docs/protocol.md, "Close codes")
CLOSE_CODES: dict[str, str] = {
    "1008": "flooding: the socket kept sending over its frame rate (more rate refusals "
            "than its burst before calming down); slow down and reconnect",
    "1009": "a frame over the WebSocket limit (4 x EMPIRE_MAX_MESSAGE_BYTES)",
    "1011": "no pong to the server's keepalive ping within 20 s",
    "1012": "this gateway is restarting (a gradual drain over EMPIRE_DRAIN_S): reconnect "
            "and resume with watch after_seq/after_record",
    "1013": "this gateway process is full (a rejected message/unavailable first): reconnect",
    "4008": "slow consumer: the outbound queue passed its bound or a send stayed blocked; "
            "reconnect and resume with watch after_seq/after_record",
    "4029": "too many open sockets for this player or address (a rejected "
            "message/rate_limited first)",
    "4401": "bad or expired token (a rejected auth/* first)",
}
CHANNEL = "play"

# an opening ({"choice": 7, "nonce": "9f" * 32}) sealed to an escrow key (HPKE, base64)
_SEALED = ("WVq8GtoZJjFmrwKELEWj6PGl7HIJZv2mS8+a9h3Bi0O3xoKGuBR6T1SPpr3bJEyUhp0pdFMc2GBomDPewv2XI5m"
           "UeDstZw+Ut+Stjy+AZAjsjYqIj6lfdWKvzvTs8tXqE+g3o2U1q7PYKC98tKJeTgcgu5VgRgyCImybN1KkaQOjmA"
           "agmDa7")
_COMMITMENT = "3c1d0b6a5e2f4978a1b2c3d4e5f60718293a4b5c6d7e8f9012a3b4c5d6e7f809"

# One example per message, validated against its model when the document is built.
EXAMPLES: dict[str, dict[str, Any]] = {
    "Watch": {
        "type": "watch",
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "after_seq": 11,
        "after_record": "1731571200000-3",
    },
    "Unwatch": {"type": "unwatch", "game_id": "g-4f1c2a9e8b7d6c5a"},
    "Act": {
        "type": "act",
        "cmd_id": "c7a91e0b2d4f6a8c1",
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "expected_seq": 12,
        "action": {"type": "call", "stake": 2},
    },
    "Commit": {
        "type": "commit",
        "cmd_id": "k0b1c2d3e4f5a6b7c",
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "round_id": "pick:1",
        "slot": "s0",
        "v": 2,
        "commitment": _COMMITMENT,
        "sealed": _SEALED,
        "public": None,
    },
    "Ping": {"type": "ping"},
    "Auth": {"type": "auth", "token": "<access token from POST /api/players>"},
    "Welcome": {"type": "welcome", "player_id": "p-1a2b3c4d5e6f7a8b", "name": "ada"},
    "Accepted": {"type": "accepted", "cmd_id": "c7a91e0b2d4f6a8c1"},
    "Rejected": {
        "type": "rejected",
        "cmd_id": "c7a91e0b2d4f6a8c1",
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "code": "action/stale_seq",
        "message": "expected seq 12, game is at 13",
    },
    "Committed": {
        "type": "committed",
        "cmd_id": "k0b1c2d3e4f5a6b7c",
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "round_id": "pick:1",
        "slot": "s0",
        "commitment": _COMMITMENT,
    },
    "ViewUpdate": {
        "type": "view",
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "seq": 13,
        "seat": 0,
        "view": {
            "game": "duel",
            "phase": "pick",
            "seat": 0,
            "round": 1,
            "rounds": 3,
            "stake": 2,
            "points": [0, 0],
            "first": 0,
        },
        "legal": [],
        "node": {
            "kind": "simultaneous",
            "round_id": "pick:1",
            "ordered": False,
            "order": [{"seat": 0, "key": "s0"}, {"seat": 1, "key": "s1"}],
            "my_slots": [
                {
                    "seat": 0,
                    "key": "s0",
                    "allowed": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
                    "default": 0,
                    "public_keys": [],
                    "context": None,
                }
            ],
        },
        "events": [{"type": "called", "data": {"seat": 0, "stake": 2, "round": 1}}],
        "cmd_ids": ["c7a91e0b2d4f6a8c1"],
        "gap": False,
    },
    "RecordEntry": {
        "type": "record",
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "id": "1731571200000-4",
        "entry": {
            "type": "committed",
            "round_id": "pick:1",
            "slot": "s0",
            "seat": 0,
            "commitment": _COMMITMENT,
            "public": None,
        },
    },
    "RecordEntries": {
        "type": "records",
        "v": 3,
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "records": [
            {
                "id": "1731571200000-5",
                "entry": {
                    "type": "committed",
                    "round_id": "pick:1",
                    "slot": "s1",
                    "seat": 1,
                    "commitment": _COMMITMENT,
                    "public": None,
                },
            }
        ],
    },
    "Pong": {"type": "pong"},
    "ChatJoin": {"type": "chat_join", "cmd_id": "j1f2e3d4c5b6a7980",
                 "game_id": "g-4f1c2a9e8b7d6c5a"},
    "ChatLeave": {"type": "chat_leave", "table_id": "t-7a8b9c0d1e2f"},
    "ChatSend": {
        "type": "chat",
        "cmd_id": "m0a1b2c3d4e5f6a7b",
        "channel": "seats",
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "text": "I will take the harbour if you leave me the mill",
    },
    "ChatMute": {"type": "chat_mute", "cmd_id": "u5e4d3c2b1a0f9e8d",
                 "player_id": "p-9a8b7c6d5e4f3a2b", "muted": True},
    "ChatReport": {
        "type": "chat_report",
        "cmd_id": "r1a2b3c4d5e6f7a8b",
        "channel": "table",
        "table_id": "t-7a8b9c0d1e2f",
        "msg_id": "1731571200000-0",
        "reason": "insults",
    },
    "ChatMessage": {
        "type": "chat",
        "channel": "seats",
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "id": "1731571200000-0",
        "player_id": "p-1a2b3c4d5e6f7a8b",
        "name": "ada",
        "text": "I will take the harbour if you leave me the mill",
        "ts": 1731571200000,
    },
    "ChatHistory": {
        "type": "chat_history",
        "channel": "seats",
        "game_id": "g-4f1c2a9e8b7d6c5a",
        "messages": [{"id": "1731571200000-0", "player_id": "p-1a2b3c4d5e6f7a8b", "name": "ada",
                      "text": "good luck", "ts": 1731571200000}],
        "muted": [],
    },
    "ChatMutes": {"type": "chat_mutes", "muted": ["p-9a8b7c6d5e4f3a2b"]},
    "MyGameChanged": {
        "type": "my_game", "now_ms": 1731571260000,
        "game": {"game_id": "g-4f1c2a9e8b7d6c5a", "game": "empire", "pace": "turn-based",
                 "seq": 42, "at_ms": 1731571200000, "players": ["p-1a2b", "p-3c4d"],
                 "seat": 0, "waiting": [{"seat": 0, "player_id": "p-1a2b",
                                         "since_ms": 1731571200000,
                                         "deadline_ms": 1731830400000}],
                 "my_turn": True, "since_ms": 1731571200000, "deadline_ms": 1731830400000,
                 "ended": False},
    },
}

# for the models without a docstring
DESCRIPTIONS: dict[str, str] = {
    "Unwatch": "Stop following a game on this connection.",
    "Ping": "Keep-alive; answered with ``pong``.",
    "Welcome": "The first frame of every connection: who the token says you are.",
    "Pong": "The answer to ``ping``.",
}

# client message -> the replies it may get (besides the pushes it causes)
REPLIES: dict[str, tuple[str, ...]] = {
    "Watch": ("ViewUpdate", "RecordEntry", "RecordEntries", "Rejected"),
    "Unwatch": (),
    "Act": ("Accepted", "Rejected"),
    "Commit": ("Committed", "Rejected"),
    "Ping": ("Pong",),
    "Auth": ("Welcome", "Rejected"),
    "ChatJoin": ("ChatHistory", "ChatMessage", "Rejected"),
    "ChatLeave": (),
    "ChatSend": ("Accepted", "Rejected"),
    "ChatMute": ("Accepted", "ChatMutes", "Rejected"),
    "ChatReport": ("Accepted", "Rejected"),
}
PUSHES: tuple[tuple[str, str, str], ...] = (
    ("sendWelcome", "Welcome", "First frame on every connection (else a refusal and close "
     "4401, 4029 or 1013; see x-close-codes)."),
    (
        "sendView",
        "ViewUpdate",
        "Each new seq of a watched game: a full snapshot of the "
        "seat's (or the spectator's) view with the events since.",
    ),
    (
        "sendRecord",
        "RecordEntry",
        "Each new entry of a watched game's public record "
        "(commitments, reveals, draws, the dealer's seed), to a watch below version 3.",
    ),
    (
        "sendRecords",
        "RecordEntries",
        "Version 3 watches: the new record entries that belong to no view (another seat's "
        "commitment, the escrow's close, a backlog page), several per frame; the others ride "
        "in the view's ``records``.",
    ),
    (
        "sendChat",
        "ChatMessage",
        "Each new message of a chat channel the connection joined (chat_join), from anyone "
        "it has not muted.",
    ),
    (
        "sendChatMutes",
        "ChatMutes",
        "The player's mute list, to each of its connections after a chat_mute.",
    ),
    (
        "sendMyGame",
        "MyGameChanged",
        "One of the player's games changed who it waits for, or ended: its \"My games\" "
        "entry (GET /api/me/games has them all), to each of the player's connections.",
    ),
    (
        "sendRejected",
        "Rejected",
        "A refusal that arrives after ``accepted``: the adjudicator's verdict on an action.",
    ),
)


def _schemas(adapter: TypeAdapter[Any], into: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Add the adapter's definitions to ``into``; returns the union's own schema and the
    names of its member messages, in declaration order."""
    schema = adapter.json_schema(ref_template=REF)
    for name, sub in schema.pop("$defs", {}).items():
        if name in into and into[name] != sub:
            raise ValueError(f"two different schemas are named {name!r}")
        into[name] = sub
    members = [ref["$ref"].rsplit("/", 1)[-1] for ref in schema.get("oneOf", [])]
    disc = schema.get("discriminator")
    if isinstance(disc, dict):  # OpenAPI's form -> the AsyncAPI Schema Object's (a name)
        schema["discriminator"] = disc["propertyName"]
    return schema, members


def _message(
    name: str, schema: dict[str, Any], adapter: TypeAdapter[Any], direction: str
) -> dict[str, Any]:
    wire_type = schema["properties"]["type"]["const"]
    description = inspect.cleandoc(schema.get("description") or DESCRIPTIONS.get(name, name))
    summary = description.split("\n\n")[0].replace("\n", " ")
    example = adapter.validate_python(EXAMPLES[name])
    if type(example).__name__ != name:
        raise ValueError(f"the example of {name} decodes as {type(example).__name__}")
    return {
        "name": wire_type,
        "title": f"{name} ({direction})",
        "summary": summary,
        "description": description,
        "contentType": "application/json",
        "payload": {"$ref": REF.format(model=name)},
        "examples": [{"name": f"{wire_type}-example", "payload": example.model_dump(mode="json")}],
    }


def document() -> dict[str, Any]:
    """The AsyncAPI 3.0 document of the WebSocket channel (deterministic)."""
    schemas: dict[str, Any] = {}
    client_union, client_names = _schemas(cm.CLIENT_ADAPTER, schemas)
    server_union, server_names = _schemas(sm.SERVER_ADAPTER, schemas)
    messages: dict[str, Any] = {}
    for name in client_names:
        messages[name] = _message(name, schemas[name], cm.CLIENT_ADAPTER, "client to gateway")
    for name in server_names:
        messages[name] = _message(name, schemas[name], sm.SERVER_ADAPTER, "gateway to client")
    schemas["ClientMessage"] = client_union
    schemas["ServerMessage"] = server_union
    channel_ref = {"$ref": f"#/channels/{CHANNEL}"}

    def msg_ref(name: str) -> dict[str, str]:
        return {"$ref": f"#/channels/{CHANNEL}/messages/{name}"}

    operations: dict[str, Any] = {}
    for name in client_names:
        op: dict[str, Any] = {
            "action": "receive",
            "channel": channel_ref,
            "title": f"{messages[name]['name']} (client command)",
            "summary": messages[name]["summary"],
            "messages": [msg_ref(name)],
        }
        if REPLIES.get(name):
            op["reply"] = {"channel": channel_ref, "messages": [msg_ref(r) for r in REPLIES[name]]}
        operations[f"receive{name}"] = op
    for op_id, name, summary in PUSHES:
        operations[op_id] = {
            "action": "send",
            "channel": channel_ref,
            "title": f"{messages[name]['name']} (push)",
            "summary": summary,
            "messages": [msg_ref(name)],
        }
    return {
        "asyncapi": "3.0.0",
        "id": "urn:empire-hall:gateway:ws",
        "info": {
            "title": "Empire Hall WebSocket",
            "version": str(PROTOCOL_VERSION),
            "description": (
                "One WebSocket per player at /ws, authenticated by its first frame `auth` "
                "(or the Sec-WebSocket-Protocol offer `empire.v1, empire.token.<token>`); "
                "the access token is never in the URL. "
                "Every frame is one JSON object with a `type` and the protocol version `v` "
                f"(known: {', '.join(map(str, KNOWN_PROTOCOL_VERSIONS))}). The gateway "
                "stamps the seat from the token, never from the client; `cmd_id` makes "
                "every command idempotent; `watch` with `after_seq`/`after_record` resumes. "
                "See docs/protocol.md."
            ),
            "x-error-codes": list(ERROR_CODES),
            "x-close-codes": CLOSE_CODES,
        },
        "defaultContentType": "application/json",
        "servers": {
            "local": {
                "host": "127.0.0.1:8000",
                "protocol": "ws",
                "pathname": "/ws",
                "description": "`make run` (the gateway's port; wss behind TLS in production)",
                "security": [{"$ref": "#/components/securitySchemes/token"}],
            },
        },
        "channels": {
            CHANNEL: {
                "address": "/ws",
                "title": "play",
                "description": "A player's (or spectator's) connection: lobby-independent "
                "play of every game the player watches.",
                "servers": [{"$ref": "#/servers/local"}],
                "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in messages},
                "bindings": {
                    "ws": {
                        "bindingVersion": "0.1.0",
                        "query": {
                            "type": "object",
                            "required": ["token"],
                            "properties": {
                                "token": {
                                    "type": "string",
                                    "description": "the signed token from POST /api/players",
                                }
                            },
                        },
                    }
                },
            },
        },
        "operations": operations,
        "components": {
            "schemas": schemas,
            "messages": messages,
            "securitySchemes": {
                "token": {
                    "type": "httpApiKey",
                    "name": "token",
                    "in": "query",
                    "description": "the player's signed token (also sent as "
                    "`Authorization: Bearer` on HTTP)",
                },
            },
        },
    }
