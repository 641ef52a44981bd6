"""The dealer's functional core: the public record entries and the draws themselves, from
the stored fields (shared/fairness/draws.py holds the cryptography). No I/O."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shared.fairness import draws
from shared.protocol import internal as im
from shared.runtime.jsonutil import loads

SEED_SCHEME = "sha256(lp('empire-hall/dealer/seed/v1')|lp(game)|seed)"


def seed_committed_entry(commitment: str) -> dict[str, Any]:
    return {"type": "seed_committed", "commitment": commitment, "scheme": SEED_SCHEME}


def draw_request(msg: im.DrawRequest) -> dict[str, Any]:
    """What a draw of a label is asked with: a label's first request stands."""
    return {"draw": msg.draw, "n": msg.n, "count": msg.count}


def deal(fields: Mapping[str, str], msg: im.DrawRequest) -> list[int]:
    """The values of a draw from the game key (the seed, its rules version and the client
    seeds of the request)."""
    key = draws.game_key(bytes.fromhex(fields["seed"]), msg.game_id, fields["rules_version"],
                         [bytes.fromhex(s) for s in msg.client_seeds])
    return draws.draw(key, msg.label, msg.draw, msg.n, msg.count)


def same_request(prior: Mapping[str, Any], request: Mapping[str, Any]) -> bool:
    return {x: prior.get(x) for x in request} == dict(request)


def seed_revealed_entry(fields: Mapping[str, str], labels: list[str]) -> dict[str, Any]:
    """The reveal: the seed, its rules version, the client seeds and every draw in order."""
    return {"type": "seed_revealed", "server_seed": fields["seed"],
            "rules_version": fields["rules_version"],
            "client_seeds": loads(fields.get("client_seeds", "[]")),
            "draws": [loads(fields["draw:" + lb]) for lb in labels]}
