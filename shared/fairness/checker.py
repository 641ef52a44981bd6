"""The verifier's checker: the record being verified and what the checks found in it so far,
shared by the checks of each subject (round_checks, play_checks, seat_checks; the record's
frame, the seed and the audit bundle are checked in verify.py). Standard library only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shared.fairness.problems import Report

ENTROPY_ROUND = "entropy"
SEED_SCHEME = "sha256(lp('empire-hall/dealer/seed/v1')|lp(game)|seed)"
# a round closed with defaults must not close before its deadline; the record's stream ids
# are the storage server's clock, the deadline the adjudicator's: this much skew is tolerated
DEADLINE_SLACK_MS = 1000
AUDIT_VERSION = 1  # the audit bundle's format (GET /api/matches/<id>/audit)
PLAY_TYPES = ("round_opened", "committed", "slot_timed_out", "round_closed", "round_revealed",
              "draw", "event",
              "game_ended")
ROUND_TYPES = ("round_opened", "committed", "slot_timed_out", "round_closed", "round_revealed")


@dataclass
class Round:
    """A sealed round as the record tells it: its entries and their places in the record."""

    rid: str
    opened: int = -1
    spec: dict[str, Any] = field(default_factory=dict)
    commits: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    closed: int = -1
    close: dict[str, Any] = field(default_factory=dict)
    revealed: int = -1
    reveal: dict[str, Any] = field(default_factory=dict)


class Checker:
    """The state the checks share; ``run`` (verify.py) calls them in order."""

    created: dict[str, Any]  # the game_created entry (set by ``structure``)
    revealed: dict[str, Any]  # the seed_revealed entry (set by ``structure``)

    def __init__(self, doc: dict[str, Any], report: Report) -> None:
        self.doc = doc
        self.r = report
        self.gid: str = doc["game_id"]
        self.rec: list[dict[str, Any]] = doc["record"]
        self.log: list[dict[str, Any]] | None = doc.get("log")
        self.rounds: dict[str, Round] = {}
        self.joint: dict[str, dict[str, Any]] = {}  # rid -> slot -> revealed choice
        self.joint_defaulted: dict[str, list[str]] = {}
        self.dealt: dict[str, dict[str, Any]] = {}
        self.key: str | None = None  # the escrow key the rounds' openings were sealed to

    def add(self, cls: str, where: str, text: str) -> None:
        self.r.add(cls, where, text)

    def first(self, t: str) -> int:
        return next((i for i, e in enumerate(self.rec) if e["type"] == t), -1)

    def expired(self) -> bool:
        """The game ended by its lifetime (outcome status "expired", nobody placed) or an
        admin ended it ("aborted", likewise): a round or the entropy round may have been open
        then; it stays open in the record (the escrow writes nothing after game_ended) and is
        not applied."""
        end = self.first("game_ended")
        outcome = self.rec[end].get("outcome") if end >= 0 else None
        return isinstance(outcome, dict) and outcome.get("status") in ("expired", "aborted")
