"""What the verifier reports: one problem per failed check, in a class (docs/fairness.md has
one section per class), and the counts of what held. Standard library only."""

from __future__ import annotations

from dataclasses import dataclass, field

# problem classes (docs/fairness.md has one section per class)
CLASSES = {
    "shape": "a field is missing or of the wrong type",
    "record": "an entry the verification needs is missing or repeated, or the game is not over",
    "order": "entries are out of order (stream ids, events, the end)",
    "seed": "the dealer's seed commitment (match, scheme, published before anything else)",
    "entropy": "the client seeds in the game key versus the entropy round",
    "draw": "a draw does not recompute, is repeated or is not the dealer's",
    "secret": "something secret was published during play",
    "round": "a sealed round's life: opened, commits, closed, revealed, once each, in order",
    "slot": "a slot that was not opened, or opened, committed or revealed twice",
    "seat": "the seat of a slot, a commitment or an opening differs from the round's",
    "commitment": "an opening does not match the commitment published before the close",
    "root": "the commitments root is not the published commitments'",
    "default": "a default that is not the one fixed at open, or shown for a committed slot",
    "deadline": "a round closed with defaults before its deadline",
    "public": "a public part shown to later seats is not the seat's revealed choice's",
    "ordered": "a fixed-order round's commits are out of its order",
    "log": "the move log is missing or its seqs or origins are wrong",
    "applied": "the log does not apply exactly the revealed rounds and the dealer's draws",
    "receipt": "a seat's own receipt disagrees with the record",
    "seal": "the escrow key openings were sealed to differs between rounds, the bundle or a "
            "seat's receipt (a substituted key)",
    "signature": "a seat's act or commitment is not signed by that seat's session key, or a "
                 "key signs for two seats",
    "rules": "the game's engine disagrees with the record (--rules)",
}


@dataclass(frozen=True)
class Problem:
    cls: str
    where: str
    text: str

    def __str__(self) -> str:
        return f"{self.cls}: {self.where}: {self.text}"


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {
        "draws": 0, "commitments": 0, "rounds": 0, "applied": 0, "receipts": 0,
        "signatures": 0})

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def classes(self) -> set[str]:
        return {p.cls for p in self.problems}

    def add(self, cls: str, where: str, text: str) -> None:
        self.problems.append(Problem(cls, where, text))
