"""The bot ladder: round-robin matches between bot levels, per game and seat count.

``make bots`` = ``python -m bench.ladder`` (plus the 1,000-game end-bound tests). The
entrants are:

* ``defaults``: a seat that only ever times out. It gets the game's ``default_action`` and
  each slot's default, as the adjudicator applies them.
* ``heuristic``: the game's one-step ``HeuristicBot``.
* ``easy``, ``normal``, ``hard``: the search bot (``shared/ai/search/``) at that
  level. Each gets the level's iteration budget and a CPU-time deadline of ``Level.time_s``
  per decision, built here as the bot runner would build it (the engine has no clock).
* ``oracle-<level>`` (e.g. ``oracle-hard``): a diagnostic, never a seat a host can pick. The
  same search at that level, but every iteration starts from the true state instead of a
  determinization of the view: it sees the hidden hands, score piles and missions (and any
  deck order already dealt into the state). It bounds what a better determinizer or opponent
  tally could win with the same search and budget.

A match between A and B is a series of games. In a 2-seat game they alternate seats. With
more seats, A and B alternate around the table, and whoever gets the even seats swaps from
one game to the next; with ``--lone`` A plays one seat (seat = the game's number mod the
seats) and B all the others, which is how the multi-player target reads (a hard seat
among heuristic seats takes first place >= 2x its fair share 1/N; with two A seats at one
table they take first places from each other). A's score in a game is its share of the win:
1 for a sole win, shared among tied winners, so a tie between an A and a B seat gives each
half. The report gives A's mean score with a 95% Wilson interval (games = trials; a shared
win counts as its fraction), A's first places per A seat against the fair share 1/N, the
all-way ties, the win rate per seat position, the nations' balance in
*Empire*, and the CPU time per decision of each entrant. Every game's record goes to
``bench/results/ladder-<time>.jsonl`` as it ends, and the summary with all records to
``ladder-<time>.json`` (and ``ladder-latest.json``). ``--summarize`` reports on saved
``.jsonl`` files; runs can be split and summarized together.

```sh
python -m bench.ladder                              # the default schedule (hours)
python -m bench.ladder --games empire --seats 2 --pairs hard:heuristic --matches 40
python -m bench.ladder --games empire-engine --seats 3 --pairs hard:heuristic --lone
python -m bench.ladder --quick                      # a smoke run, a few minutes
```
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
ENTRANTS = ("defaults", "heuristic", "easy", "normal", "hard")

# game -> the seat counts the default schedule plays
SCHEDULE: dict[str, tuple[int, ...]] = {
    "empire": (2, 4),
    "empire-engine": (2, 3),
    "empires-end": (2, 3),
    "empire-nyc": (3,),
    "empire-cards": (3,),
}
# the default pairings: the ladder's rungs and the targets of docs/bots.md
PAIRS: tuple[tuple[str, str], ...] = (
    ("easy", "defaults"),
    ("heuristic", "defaults"),
    ("easy", "heuristic"),
    ("normal", "easy"),
    ("hard", "normal"),
    ("normal", "heuristic"),
    ("hard", "heuristic"),
)
# also in the default schedule, at tables of 3 or more seats: A in one seat, B in every other
# (the multi-player target: one hard seat takes first place >= 2x its fair share)
LONE_PAIRS: tuple[tuple[str, str], ...] = (("hard", "heuristic"),)


@dataclass(frozen=True)
class Match:
    game: str
    seats: int
    a: str
    b: str
    index: int  # the game's number in this pairing (seeds and seat swaps)
    options: tuple[tuple[str, Any], ...] = ()
    lone: bool = False  # A in one seat (index mod seats), B in every other

    def entrant_of(self, seat: int) -> str:
        if self.lone:
            return self.a if seat == self.index % self.seats else self.b
        if self.seats == 2:
            return self.a if seat == self.index % 2 else self.b
        return self.a if (seat + self.index) % 2 == 0 else self.b


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``p`` observed over ``n`` trials."""
    if n == 0:
        return (0.0, 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


# ---------------------------------------------------------------------------- one game


class _Timed:
    """Wraps a bot: CPU time per decision, and the level's deadline for search bots."""

    def __init__(self, bot: Any, budget_s: float | None) -> None:
        self.bot = bot
        self.budget_s = budget_s
        self.times: list[float] = []

    def _deadline(self) -> Callable[[], bool] | None:
        if self.budget_s is None:
            return None
        from shared.ai.search import deadline_within

        return deadline_within(self.budget_s, time.process_time)

    def act(self, view: Any, legal: Sequence[Any], seat: int) -> Any:
        t0 = time.process_time()
        deadline = self._deadline()
        out = self.bot.act(view, legal, seat, deadline) if deadline else self.bot.act(
            view, legal, seat)
        self.times.append(time.process_time() - t0)
        return out

    def choose(self, view: Any, slot: Any, seat: int, public_parts: Any) -> Any:
        t0 = time.process_time()
        deadline = self._deadline()
        out = (self.bot.choose(view, slot, seat, public_parts, deadline) if deadline
               else self.bot.choose(view, slot, seat, public_parts))
        self.times.append(time.process_time() - t0)
        return out


def search_level(who: str) -> Any:
    """A search entrant's level: a ``LEVELS`` name, optionally ``+fast<depth>`` for the same
    level with ``fast_depth`` (random rollouts through the rollout driver) and ``*<k>`` for k
    times its iterations (the time budget stays), e.g. ``normal+fast300*4``; then any number of
    ``~field=value`` overrides of ``Level`` fields, e.g. ``normal~iterations=400~time_s=2``
    (normal's shape with hard's budget). A variant is a level of its own: a game's
    ``SearchSpec.blunders`` name the plain levels only, so give a variant ``~blunder=<share>``
    to keep easy's random moves in the Card Game or New York."""
    import dataclasses

    from shared.ai.search import LEVELS

    base, *overrides = who.split("~")
    name, _, variant = base.partition("+fast")
    depth, _, times = variant.partition("*")
    level = LEVELS[name]
    if variant:
        level = dataclasses.replace(level, fast_depth=int(depth),
                                    iterations=level.iterations * int(times or 1))
    types = {f.name: f.type for f in dataclasses.fields(level)}
    changes: dict[str, Any] = {}
    for item in overrides:
        key, _, value = item.partition("=")
        assert key in types and key != "name", f"not a Level field: {key}"
        changes[key] = int(value) if types[key] in ("int", int) else float(value)
    if variant or overrides:
        level = dataclasses.replace(level, name=who, **changes)
    return level


def _players(m: Match) -> tuple[dict[int, Any], dict[int, Any], dict[int, _Timed]]:
    from shared.ai import registry as ai
    from shared.ai.playout import bot_actor, bot_chooser
    from shared.rules._kit.playout import default_actor, default_chooser

    actors: dict[int, Any] = {}
    choosers: dict[int, Any] = {}
    timers: dict[int, _Timed] = {}
    for seat in range(m.seats):
        who = m.entrant_of(seat)
        seed = m.index * 1000 + seat
        if who == "defaults":
            actors[seat], choosers[seat] = default_actor, default_chooser
            continue
        if who == "heuristic":
            bot: Any = ai.get_bot(m.game)
            if isinstance(getattr(bot, "rng", None), random.Random):
                bot.rng.seed(seed)
            timed = _Timed(bot, None)
        elif who.startswith(ORACLE):
            level = search_level(who.removeprefix(ORACLE))
            timed = _Timed(ai.get_search_bot(m.game, level, seed), level.time_s)
            timers[seat] = timed
            actors[seat], choosers[seat] = oracle_players(timed)
            continue
        else:
            level = search_level(who)
            timed = _Timed(ai.get_search_bot(m.game, level, seed), level.time_s)
        timers[seat] = timed
        actors[seat], choosers[seat] = bot_actor(timed), bot_chooser(timed)
    return actors, choosers, timers


ORACLE = "oracle-"


def oracle_players(timed: _Timed) -> tuple[Any, Any]:
    """An actor and a chooser for ``timed``'s search bot that search from the true state:
    before each decision the bot's spec gets a determinizer that returns ``state`` itself
    (the engines are pure, so one state serves every iteration)."""
    import dataclasses

    from shared.rules.api import Game, SealedSlot

    bot = timed.bot
    spec = bot.spec

    def see(state: Any) -> None:
        bot.spec = dataclasses.replace(spec, determinize=lambda view, seat, rng: state,
                                       recall=None)

    def act(game: Game, state: Any, seat: int, rng: random.Random) -> Any:
        see(state)
        return timed.act(game.view(state, seat), list(game.legal_actions(state, seat)), seat)

    def choose(game: Game, state: Any, slot: SealedSlot, rng: random.Random,
               public_parts: dict[str, Any]) -> Any:
        see(state)
        return timed.choose(game.view(state, slot.seat), slot, slot.seat, public_parts)

    return act, choose


def play_match(m: Match) -> dict[str, Any]:
    from shared.rules import registry
    from shared.rules._kit.playout import play
    from shared.rules.api import Event, client_events

    game = registry.get(m.game)
    actors, choosers, timers = _players(m)
    watchers = {seat: t.bot for seat, t in timers.items() if hasattr(t.bot, "observe")}

    def observe(events: list[Event]) -> None:  # as each seat's client gets them
        for seat, bot in watchers.items():
            bot.observe(client_events(events, seat), seat)

    t0 = time.process_time()
    out = play(game, m.seats, dict(m.options), seed=10_000 + m.index, actors=actors,
               choosers=choosers, max_steps=200_000, on_events=observe)
    times: dict[str, list[float]] = defaultdict(list)
    for seat, timed in timers.items():
        times[m.entrant_of(seat)] += timed.times
    outcome = game.score(out.state)
    winners = [r.seat for r in outcome.results if r.place == 1]
    score_a = sum(1 for s in winners if m.entrant_of(s) == m.a) / max(1, len(winners))
    record: dict[str, Any] = {
        **{k: v for k, v in asdict(m).items() if k != "options"},
        "options": dict(m.options),
        "finished": out.finished,
        "moves": out.steps,
        "cpu_s": round(time.process_time() - t0, 2),
        "winners": winners,
        "entrants": [m.entrant_of(s) for s in range(m.seats)],
        "score_a": score_a,
        "all_way_tie": len(winners) == m.seats,
        "decision_s": {k: [round(x, 4) for x in v] for k, v in times.items()},
    }
    state = out.state
    if m.game == "empire":
        from shared.rules.empire.data import NATIONS

        record["nations"] = [NATIONS[x].key if x is not None else None for x in state.nations]
    for attr in ("start_player", "first_player", "first", "dealer"):
        value = getattr(state, attr, None)
        if isinstance(value, int) and value >= 0:
            record["start"] = value
            break
    return record


# ---------------------------------------------------------------------------- the report


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    pairs: dict[tuple[str, int, str, str, bool], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        pairs[(r["game"], r["seats"], r["a"], r["b"], r.get("lone", False))].append(r)
    matches = []
    for (game, seats, a, b, lone), rs in sorted(pairs.items()):
        n = len(rs)
        p = sum(r["score_a"] for r in rs) / n
        lo, hi = wilson(p, n)
        a_seats = sum(r["entrants"].count(a) for r in rs)
        matches.append({"game": game, "seats": seats, "a": a, "b": b, "lone": lone, "games": n,
                        "score_a": round(p, 3), "ci95": [round(lo, 3), round(hi, 3)],
                        # A's first places per A seat (= score_a when A has one seat a game)
                        "first_per_a_seat": round(p * n / max(1, a_seats), 3),
                        "fair_share": round(1 / seats, 3),
                        "all_way_ties": sum(r["all_way_tie"] for r in rs),
                        "unfinished": sum(not r["finished"] for r in rs)})
    seat_rows = []
    by_seats: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_seats[(r["game"], r["seats"])].append(r)
    for (game, seats), rs in sorted(by_seats.items()):
        for seat in range(seats):
            share = sum((seat in r["winners"]) / len(r["winners"]) for r in rs) / len(rs)
            lo, hi = wilson(share, len(rs))
            seat_rows.append({"game": game, "seats": seats, "seat": seat, "games": len(rs),
                              "win_share": round(share, 3), "ci95": [round(lo, 3), round(hi, 3)]})
        starts = [r for r in rs if "start" in r]
        for pos in range(seats):
            if not starts:
                break
            share = sum(sum(1 for w in r["winners"] if (w - r["start"]) % seats == pos)
                        / len(r["winners"]) for r in starts) / len(starts)
            lo, hi = wilson(share, len(starts))
            seat_rows.append({"game": game, "seats": seats, "position_from_start": pos,
                              "games": len(starts), "win_share": round(share, 3),
                              "ci95": [round(lo, 3), round(hi, 3)]})
    nations: dict[str, list[float]] = defaultdict(list)
    for r in records:
        for seat, nation in enumerate(r.get("nations") or []):
            if nation is not None:
                nations[nation].append((seat in r["winners"]) / len(r["winners"]))
    nation_rows = []
    for nation, shares in sorted(nations.items()):
        p = sum(shares) / len(shares)
        lo, hi = wilson(p, len(shares))
        nation_rows.append({"nation": nation, "held": len(shares), "win_share": round(p, 3),
                            "ci95": [round(lo, 3), round(hi, 3)]})
    cpu: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in records:
        for who, xs in r["decision_s"].items():
            cpu[(r["game"], who)] += xs
    cpu_rows = []
    for (game, who), xs in sorted(cpu.items()):
        xs = sorted(xs)
        if xs:
            cpu_rows.append({"game": game, "entrant": who, "decisions": len(xs),
                             "mean_s": round(sum(xs) / len(xs), 4),
                             "p50_s": round(xs[(len(xs) - 1) // 2], 4),
                             "p95_s": round(xs[int(0.95 * (len(xs) - 1))], 4),
                             "max_s": round(xs[-1], 4)})
    return {"matches": matches, "seats": seat_rows, "empire_nations": nation_rows,
            "decision_cpu": cpu_rows}


def print_report(summary: dict[str, Any]) -> None:
    print("\nMatches: A's score vs B (win share), 95% Wilson interval")
    print(f"{'game':14} {'n':>2} {'A':>9} {'B':>9} {'games':>5} {'A score':>8} {'CI95':>15} "
          f"{'all-tie':>7} {'1st/A seat':>10} {'fair':>5}")
    for m in summary["matches"]:
        lo, hi = m["ci95"]
        a = f"{m['a']}(1)" if m.get("lone") else m["a"]
        print(f"{m['game']:14} {m['seats']:>2} {a:>9} {m['b']:>9} {m['games']:>5} "
              f"{m['score_a']:>8.2f} {f'[{lo:.2f}, {hi:.2f}]':>15} {m['all_way_ties']:>7} "
              f"{m['first_per_a_seat']:>10.2f} {m['fair_share']:>5.2f}")
    print("\nSeat balance (every game of that game and seat count)")
    for s in summary["seats"]:
        where = (f"seat {s['seat']}" if "seat" in s
                 else f"{s['position_from_start']} after the start player")
        lo, hi = s["ci95"]
        print(f"{s['game']:14} {s['seats']}p {where:26} {s['win_share']:.2f} "
              f"[{lo:.2f}, {hi:.2f}] of {s['games']}")
    if summary["empire_nations"]:
        print("\nEmpire: nations (win share of the seat that held it)")
        for r in summary["empire_nations"]:
            lo, hi = r["ci95"]
            print(f"  {r['nation']:12} held {r['held']:>4}  {r['win_share']:.2f} "
                  f"[{lo:.2f}, {hi:.2f}]")
    print("\nCPU per decision")
    for r in summary["decision_cpu"]:
        print(f"  {r['game']:14} {r['entrant']:9} {r['decisions']:>6} decisions  mean "
              f"{r['mean_s']:.3f}s  p50 {r['p50_s']:.3f}s  p95 {r['p95_s']:.3f}s  "
              f"max {r['max_s']:.3f}s")


def schedule(games: Sequence[str], seats: Sequence[int] | None, pairs: Sequence[tuple[str, str]],
             matches: int, options: dict[str, dict[str, Any]] | None = None,
             first: int = 0, lone: bool = False, min_seats: int = 2) -> list[Match]:
    """Every game of the run: ``matches`` per pairing, numbered from ``first`` (the number
    gives the seeds and seat swaps, so a later run with ``first`` = the games already played
    adds new games instead of repeating them). ``lone``: A in one seat, B in the others;
    ``min_seats``: only tables of at least that many seats."""
    out = []
    for game in games:
        opts = tuple(sorted((options or {}).get(game, {}).items()))
        for n in [k for k in seats or SCHEDULE[game] if k >= min_seats]:
            for a, b in pairs:
                out += [Match(game, n, a, b, i, opts, lone)
                        for i in range(first, first + matches)]
    return out


def plan_of(games: Sequence[str], seats: Sequence[int] | None, pairs_arg: str, matches: int,
            options: dict[str, dict[str, Any]], first: int = 0, lone: bool = False,
            quick: bool = False) -> list[Match]:
    """The run's games from the command line: ``pairs_arg`` ``a:b,...`` (empty: ``PAIRS``,
    and ``LONE_PAIRS`` with A alone at the tables of 3 or more seats)."""
    pairs = [tuple(p.split(":")) for p in pairs_arg.split(",") if p] or list(PAIRS)
    for pair in pairs:
        assert len(pair) == 2 and all(
            x.removeprefix(ORACLE).split("~")[0].partition("+fast")[0] in ENTRANTS
            for x in pair), pair
    from shared.rules import registry

    for g in games:  # refused before any game is played, not when the first one sets up
        lo, hi = registry.get(g).min_seats, registry.get(g).max_seats
        wrong = [n for n in seats or () if not lo <= n <= hi]
        if wrong:
            raise SystemExit(f"{g} plays {lo} to {hi} seats, not {wrong}")
    if quick:
        return schedule(games, seats, [("easy", "defaults"), ("easy", "heuristic")], 2, options,
                        first)
    plan = schedule(games, seats, pairs, matches, options, first, lone)  # type: ignore[arg-type]
    if not pairs_arg and not lone:  # the multi-player target's match
        plan += schedule(games, seats, LONE_PAIRS, matches, options, first, lone=True,
                         min_seats=3)
    return plan


def _new_log() -> tuple[str, Any]:
    """A fresh ``ladder-<time>.jsonl`` (one line per game as it ends), opened for writing. Two
    runs started in the same second once wrote into one file (each over the other's lines):
    the second gets ``-2`` after the time, and so on."""
    stamp = base = time.strftime("%Y%m%d-%H%M%S")
    for k in range(2, 1000):
        try:
            return stamp, (RESULTS / f"ladder-{stamp}.jsonl").open("x")
        except FileExistsError:
            stamp = f"{base}-{k}"
    raise FileExistsError(RESULTS / f"ladder-{base}.jsonl")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(SCHEDULE))
    parser.add_argument("--seats", default="", help="seat counts (default: SCHEDULE)")
    parser.add_argument("--pairs", default="", help="a:b,... (default: PAIRS)")
    parser.add_argument("--matches", type=int, default=20, help="games per pairing")
    parser.add_argument("--first", type=int, default=0,
                        help="number of the first game per pairing (seeds: 10000 + number)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--lone", action="store_true",
                        help="A plays one seat (rotating), B every other seat")
    parser.add_argument("--quick", action="store_true", help="2 games per pairing, 2 seats")
    parser.add_argument("--options", default="{}",
                        help='per-game options, JSON: {"empire-cards": {"max_hands": 2}}')
    parser.add_argument("--summarize", nargs="*", default=None, metavar="JSONL",
                        help="only report on the game records of earlier runs (.jsonl)")
    args = parser.parse_args(argv)
    if args.summarize is not None:
        saved = [json.loads(line) for path in args.summarize
                 for line in Path(path).read_text().splitlines() if line.strip()]
        print_report(summarize(saved))
        return
    games = [g for g in args.games.split(",") if g]
    seats = [int(s) for s in args.seats.split(",") if s] or None
    plan = plan_of(games, seats, args.pairs, args.matches, json.loads(args.options),
                   args.first, args.lone, args.quick)
    print(f"{len(plan)} games on {args.workers} workers", flush=True)
    t0 = time.time()
    records: list[dict[str, Any]] = []
    RESULTS.mkdir(exist_ok=True)
    stamp, log = _new_log()
    with ProcessPoolExecutor(max_workers=args.workers) as pool, log:
        for k, record in enumerate(pool.map(play_match, plan, chunksize=1)):
            records.append(record)
            log.write(json.dumps(record) + "\n")
            log.flush()
            if (k + 1) % 10 == 0 or k + 1 == len(plan):
                print(f"  {k + 1}/{len(plan)} games, {time.time() - t0:.0f}s", flush=True)
    summary = summarize(records)
    print_report(summary)
    data = {"when": stamp, "argv": list(argv or []), "summary": summary, "games": records}
    for name in (f"ladder-{stamp}.json", "ladder-latest.json"):
        (RESULTS / name).write_text(json.dumps(data, indent=1))
    print(f"\nwrote {RESULTS / f'ladder-{stamp}.json'}")


if __name__ == "__main__":
    main()
