"""A history checker in the spirit of Jepsen's: clients record every operation they
attempt — ``invoke``, then ``ok`` (the server acknowledged it), ``fail`` (a typed refusal: it
definitely did not happen) or ``info`` (unknown: a timeout, a cut link) — and the checker holds
the history against what the server's log says was applied, under the model of a game: each
command (by its id) applied at most once, every acknowledged command applied, no refused one
applied, nothing applied that nobody sent, and, per client, an acknowledged command applied
before every command that client invoked after the acknowledgement (real-time order).

Unknown (``info``) and unfinished operations may or may not have been applied: both are legal,
which is what makes the check sound under faults."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

Kind = Literal["invoke", "ok", "fail", "info"]


@dataclass(frozen=True)
class Op:
    process: str  # one client (a seat's connection)
    kind: Kind
    f: str  # "act" | "commit"
    key: str  # the command id
    game: str
    t: float = 0.0


@dataclass
class History:
    """Thread-safe, append-only; ``dump`` writes it as JSON lines for a failing run."""

    ops: list[Op] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, process: str, kind: Kind, f: str, key: str, game: str) -> None:
        with self._lock:
            self.ops.append(Op(process, kind, f, key, game, time.monotonic()))

    def dump(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(asdict(o)) + "\n" for o in self.ops))


@dataclass
class Verdict:
    anomalies: list[str]
    counts: dict[str, int]

    @property
    def valid(self) -> bool:
        return not self.anomalies


def check(ops: Sequence[Op], applied: Mapping[str, Sequence[str]]) -> Verdict:
    """``applied``: game -> the command ids its log applied, in log order."""
    anomalies: list[str] = []
    outcome: dict[tuple[str, str], Kind] = {}
    invoked: dict[tuple[str, str], int] = {}
    owner: dict[tuple[str, str], str] = {}
    for i, op in enumerate(ops):
        k = (op.game, op.key)
        if op.kind == "invoke":
            if k in invoked:
                anomalies.append(f"{op.game}: {op.key} invoked twice (clients must not reuse ids)")
            invoked[k] = i
            owner[k] = op.process
        else:
            if k not in invoked:
                anomalies.append(f"{op.game}: {op.key} completed ({op.kind}) but never invoked")
                continue
            if k in outcome and outcome[k] != op.kind:
                anomalies.append(f"{op.game}: {op.key} completed twice ({outcome[k]}, {op.kind})")
            outcome[k] = op.kind
    position: dict[tuple[str, str], int] = {}
    for game, seq in applied.items():
        for key, times in Counter(seq).items():
            if times > 1:
                anomalies.append(f"{game}: {key} applied {times} times")
        for pos, key in enumerate(seq):
            position.setdefault((game, key), pos)
            if (game, key) not in invoked:
                anomalies.append(f"{game}: {key} applied but never sent (phantom)")
    for k, kind in outcome.items():
        if kind == "ok" and k not in position:
            anomalies.append(f"{k[0]}: {k[1]} acknowledged but not applied (lost)")
        if kind == "fail" and k in position:
            anomalies.append(f"{k[0]}: {k[1]} refused but applied")
    # real time, per client: acked before a later invoke => applied before it
    acked_at: dict[tuple[str, str], int] = {}
    for i, op in enumerate(ops):
        if op.kind == "ok":
            acked_at[(op.game, op.key)] = i
    by_client: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for k, proc in owner.items():
        by_client.setdefault((proc, k[0]), []).append(k)
    for mine in by_client.values():
        for a in mine:
            if a not in acked_at or a not in position:
                continue
            for b in mine:
                if b != a and b in position and invoked[b] > acked_at[a] \
                        and position[b] < position[a]:
                    anomalies.append(f"{a[0]}: {b[1]} (sent after {a[1]} was acknowledged) "
                                     f"applied before it")
    counts = Counter(outcome.values())
    return Verdict(anomalies, {
        "invoked": len(invoked), "ok": counts["ok"], "fail": counts["fail"],
        "info": counts["info"], "unfinished": len(invoked) - len(outcome),
        "applied": sum(len(v) for v in applied.values()),
        "applied_unknown": sum(1 for k in position if outcome.get(k) in (None, "info")),
    })


def applied_commands(log: Iterable[Mapping[str, object]]) -> list[str]:
    """The command ids a game's private log applied, in order (entries carry ``cmd_id``)."""
    return [str(e["cmd_id"]) for e in log if e.get("cmd_id")]
