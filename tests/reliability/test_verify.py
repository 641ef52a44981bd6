"""The ``verify`` command (shared.fairness.verify) on recorded games: it re-derives 100% of
them (every draw from the revealed seed and labels, every sealed choice against its
commitment, every applied outcome) and detects every single flipped bit in the server seed,
the client seeds, the draw labels and the logged outcomes (the dealer's list, the public
record and the adjudicator's move log).

Games are played through the whole system (bots, the gateway's WebSocket). Every bit of every
such field is flipped in the first ``EXHAUSTIVE`` games; in all the others one random bit of
each field kind is flipped.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from clients.sdk import Client
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from shared.fairness.verify import verify
from tests.reliability.conftest import OUT, report, retry, size

pytestmark = [pytest.mark.reliability, pytest.mark.timeout(size(600, 7200))]

Doc = dict[str, Any]
Flip = Callable[[Doc], None]


# one game in 50 is one of the five rule sets (shuffled decks, dice, many labels)
OTHERS: list[tuple[str, int, dict[str, Any]]] = [
    ("empire-engine", 2, {}),
    ("empires-end", 2, {}),
    ("empire", 3, {"version": "beginner"}),
    ("empire-nyc", 3, {}),
    ("empire-cards", 3, {"max_hands": 1, "max_turns_per_hand": 60}),
]


def game_for(i: int) -> tuple[str, int, dict[str, Any]]:
    if i % 50 == 11:
        return OTHERS[(i // 50) % len(OTHERS)]
    return "duel", 2 + i % 3, {"rounds": 1 + i % 3}


async def _one_game(url: str, i: int) -> Doc:
    game, seats, options = game_for(i)
    async with Client(url) as c:
        await retry(c.sign_in, f"rec-{i}")
        t = await retry(c.create_table, game, seats, options)
        for _ in range(seats - 1):
            await retry(c.add_bot, t["table_id"])
        gid = await retry(c.start, t["table_id"])
        session = await asyncio.wait_for(play_seat(c, gid), 900)
        assert session.ended
        for _ in range(300):
            doc = await retry(c.record, gid)
            if doc.get("log") is not None and any(
                e.get("type") == "seed_revealed" for e in doc["record"]
            ):
                return doc
            await asyncio.sleep(0.1)
    raise AssertionError(f"{gid}: no seed reveal")


async def record_games(url: str, n: int, parallel: int = 8) -> list[Doc]:
    sem = asyncio.Semaphore(parallel)

    async def one(i: int) -> Doc:
        async with sem:
            return await _one_game(url, i)

    return list(await asyncio.gather(*[one(i) for i in range(n)]))


# -- single-bit mutations -----------------------------------------------------------------


def _flip_hex(text: str, bit: int) -> str:
    raw = bytearray(bytes.fromhex(text))
    raw[bit // 8] ^= 1 << (bit % 8)
    return raw.hex()


def _flip_text(text: str, bit: int) -> str:
    i, b = divmod(bit, 8)
    return text[:i] + chr(ord(text[i]) ^ (1 << b)) + text[i + 1 :]


def _revealed(doc: Doc) -> Doc:
    return next(e for e in doc["record"] if e.get("type") == "seed_revealed")


def mutations(doc: Doc) -> Iterator[tuple[str, Flip]]:
    """(field kind, an in-place single-bit flip) for every bit of every covered field."""
    rev = _revealed(doc)
    for bit in range(len(rev["server_seed"]) * 4):

        def seed(d: Doc, bit: int = bit) -> None:
            r = _revealed(d)
            r["server_seed"] = _flip_hex(r["server_seed"], bit)

        yield "server_seed", seed
    for k, cs in enumerate(rev["client_seeds"]):
        for bit in range(len(cs) * 4):

            def client(d: Doc, k: int = k, bit: int = bit) -> None:
                r = _revealed(d)
                r["client_seeds"][k] = _flip_hex(r["client_seeds"][k], bit)

            yield "client_seed", client

    def places(d: Doc) -> list[tuple[str, dict[str, Any]]]:
        """Every labelled outcome: the dealer's list, the record's draws, the log's moves."""
        out = [("dealer", x) for x in _revealed(d)["draws"]]
        out += [("record", e) for e in d["record"] if e.get("type") == "draw"]
        out += [("log", e["move"]) for e in d["log"] if e["move"].get("kind") == "chance_outcome"]
        return out

    for idx, (where, item) in enumerate(places(doc)):
        for bit in range(len(item["label"]) * 8):

            def label(d: Doc, idx: int = idx, bit: int = bit) -> None:
                x = places(d)[idx][1]
                x["label"] = _flip_text(x["label"], bit)

            label.where = f"{where}:{item['label']}:bit{bit}"  # type: ignore[attr-defined]
            yield "label", label
        for vi, v in enumerate(item.get("values", [])):
            for bit in range(max(8, int(v).bit_length() + 1)):

                def value(d: Doc, idx: int = idx, vi: int = vi, bit: int = bit) -> None:
                    x = places(d)[idx][1]
                    x["values"][vi] = x["values"][vi] ^ (1 << bit)

                yield "outcome", value


def _flip_all(job: tuple[Doc, bool, int]) -> tuple[Counter[str], list[str]]:
    """Flip bits of one game (every bit, or one random bit per field kind); returns the
    flips per field kind and the ones ``verify`` did not catch."""
    doc, sample, seed = job
    rng = random.Random(seed)
    muts = list(mutations(doc))
    if sample:
        by_kind: dict[str, list[Flip]] = {}
        for kind, fn in muts:
            by_kind.setdefault(kind, []).append(fn)
        muts = [(kind, rng.choice(fns)) for kind, fns in by_kind.items()]
    flips: Counter[str] = Counter()
    missed = []
    for kind, fn in muts:
        bad = copy.deepcopy(doc)
        fn(bad)
        flips[kind] += 1
        if not verify(bad)[0]:
            missed.append(f"{doc['game_id']}:{kind}:{getattr(fn, 'where', '')}")
    return flips, missed


async def test_verify_rederives_every_recorded_game_and_catches_every_flipped_bit(
    hall: Supervisor,
) -> None:
    n_games = size(12, 1000)
    exhaustive = size(3, 100)  # games whose every bit is flipped (the rest: sampled)
    t0 = time.monotonic()
    games = await record_games(hall.url, n_games)
    played_s = time.monotonic() - t0
    counts: Counter[str] = Counter()
    for doc in games:
        problems, c = verify(doc)
        assert problems == [], (doc["game_id"], problems)
        counts.update(c)
    # the command-line verifier on one of them, as an operator runs it
    path = OUT / "verify-sample.json"
    path.write_text(json.dumps(games[0]))
    out = subprocess.run(
        [sys.executable, "-m", "shared.fairness.verify", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0 and out.stdout.startswith("OK"), out.stdout + out.stderr

    jobs = [(doc, gi >= exhaustive, 9 + gi) for gi, doc in enumerate(games)]
    t1 = time.monotonic()
    with ProcessPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(_flip_all, jobs, chunksize=8))
    flips: Counter[str] = Counter()
    missed: list[str] = []
    for f, m in outcomes:
        flips.update(f)
        missed += m
    assert not missed, f"undetected flips: {missed[:10]} ({len(missed)})"
    report(
        "verify",
        {
            "games": len(games),
            "games_by_kind": dict(Counter(doc.get("game", "?") for doc in games)),
            "rederived": len(games),
            "problems": 0,
            **{f"total_{k}": v for k, v in counts.items()},
            "exhaustive_games": min(exhaustive, len(games)),
            "flipped_bits": sum(flips.values()),
            "flipped_by_field": dict(flips),
            "undetected": 0,
            "play_s": round(played_s, 1),
            "flip_s": round(time.monotonic() - t1, 1),
        },
    )
