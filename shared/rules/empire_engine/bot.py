"""HeuristicBot: plays from the view dict and the legal list / sealed slot only.

Planning scores every reachable pair of top actions (16 in round 1; two gear assignments
times the affordable boosts later) with a one-round look-ahead: points gained, the value of
resources kept in the ready pile (falling to ~0 in the last round), the cost of boosts, and
the threat from neighbours whose engines can reach an Attack aimed at this seat.

Plans within ``JITTER`` of each other are told apart at random (the bot's own seeded RNG).
A deterministic choice made every seat at a bot-only table play the same plan in this
symmetric game (identical engines and start): 30 of 30 three-player games ended in an
all-way tie (issue 22). The plan drawn for a round is kept, so the seat's two slots agree.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from itertools import product
from typing import Any

from shared.rules.api import Json, SealedSlot

Plan = tuple[dict[str, Json], dict[str, Json]]  # (L-engine choice, R-engine choice)
JITTER = 0.3  # plans whose values differ by less than about this are a coin flip


def _top(layout: dict[str, Any], engine: str, orientation: int) -> str:
    cycle = layout[engine]
    return str(cycle[(-orientation) % len(cycle)])


def _reachable(view: dict[str, Any], seat: int, engine: str) -> set[str]:
    """Top actions ``seat`` can bring up on ``engine`` this round (any, before round 1)."""
    p = view["players"][seat]
    if p["engines"] is None:
        return set(view["layout"][engine])
    o = p["engines"][engine]["orientation"]
    turns = [1, 2] + ([0, 3] if p["ready"]["soldiers"] + p["ready"]["goods"] else [])
    return {_top(view["layout"], engine, o + t) for t in turns}


class HeuristicBot:
    """A sensible (not optimal) player for The Empire Engine."""

    def __init__(self, seed: int | None = None, jitter: float = JITTER) -> None:
        self.rng = random.Random(seed)  # None: OS entropy, so bots at one table differ
        self.jitter = jitter
        self._plans: dict[tuple[int, int, str], Plan] = {}  # (round, seat, table) -> plan

    # ------------------------------------------------------------------ threat model

    def _threats(self, view: dict[str, Any], seat: int) -> list[int]:
        """Seats that could attack ``seat`` this round (once per engine that aims here)."""
        out: list[int] = []
        for other in view["players"]:
            s = other["seat"]
            if s == seat:
                continue
            for engine, side in (("L", "left"), ("R", "right")):
                if other[side] != seat or "attack" not in _reachable(view, s, engine):
                    continue
                armed = other["ready"]["soldiers"] > 0 or (
                    engine == "R" and "arm" in _reachable(view, s, "L")
                )
                if armed:
                    out.append(s)
        return out

    def _can_defend(self, view: dict[str, Any], seat: int) -> bool:
        return "defend" in _reachable(view, seat, "R")

    # ------------------------------------------------------------------ evaluation

    def _value(self, view: dict[str, Any], seat: int, left: str, right: str) -> float:
        me = view["players"][seat]
        soldiers = int(me["ready"]["soldiers"])
        goods: float = int(me["ready"]["goods"])
        rounds_left = view["rounds"] - view["round"]
        keep = 0.05 if rounds_left == 0 else min(0.6, 0.25 + 0.1 * rounds_left)
        points = 0.0
        tops = (left, right)
        # group 1
        if "arm" in tops:
            soldiers += 2
        if "produce" in tops:
            goods += 2
        if "invent" in tops:
            points += 1.3
        # group 2
        n_att = tops.count("attack")
        if n_att:
            if soldiers >= n_att:
                soldiers -= n_att
                for side, top in zip(("left", "right"), tops, strict=True):
                    if top != "attack":
                        continue
                    target = me[side]
                    p_block = 0.35 if self._can_defend(view, target) else 0.0
                    t_ready = view["players"][target]["ready"]
                    loot = 1.0 + (keep if t_ready["soldiers"] + t_ready["goods"] else 0.0)
                    points += (1.0 - p_block) * loot
            elif soldiers == 1:
                soldiers = 0  # both attacks fail and the Soldier is lost (EE-7)
        threats = self._threats(view, seat)
        p_hit = min(0.9, 0.35 * len(threats))
        if right == "defend":
            points += p_hit * 1.0
            p_hit = max(0.0, p_hit - 0.35) if len(threats) > 1 else 0.0
        # group 3
        if right == "export":
            points += (1.0 - p_hit) * goods
            goods = goods * p_hit  # Goods stay in the ready pile only if the export fails
        if left == "salvage":
            points += (1.0 - p_hit) * 1.1
        ready_left = soldiers + goods
        loss = p_hit * min(len(threats), ready_left)  # resources an attacker would take
        return points + keep * (ready_left - loss)

    def plan(self, view: dict[str, Any], seat: int) -> Plan:
        """This round's plan for ``seat``: drawn once, then repeated for its second slot."""
        key = (int(view["round"]), seat, json.dumps(view["players"], sort_keys=True))
        if key not in self._plans:
            if len(self._plans) > 64:  # a game has a few plans in flight at most
                self._plans.clear()
            self._plans[key] = self.best_plan(view, seat, self.rng, self.jitter)
        return self._plans[key]

    def best_plan(
        self, view: dict[str, Any], seat: int, rng: random.Random | None = None,
        jitter: float = 0.0,
    ) -> Plan:
        """The best choice for each engine (round 1: top action; later: gear and boost),
        each plan's value plus ``jitter`` x a uniform draw from ``rng``."""

        def noise() -> float:
            return jitter * rng.random() if rng is not None and jitter else 0.0

        me = view["players"][seat]
        layout = view["layout"]
        best: tuple[float, Plan] | None = None
        if me["engines"] is None:
            for left, right in product(layout["L"], layout["R"]):
                v = self._value(view, seat, left, right) + noise()
                if best is None or v > best[0]:
                    best = (v, ({"engine": "L", "top": left}, {"engine": "R", "top": right}))
        else:
            ready = me["ready"]
            turns = {g["gear"]: (g["turns"], g["boosted_turns"]) for g in view["gears"]}
            gear_a, gear_b = sorted(turns)
            for gear_l, boost_l, boost_r in product(
                (gear_a, gear_b), ("none", "soldier", "good"), ("none", "soldier", "good")
            ):
                need = {"soldier": 0, "good": 0}
                for b in (boost_l, boost_r):
                    if b != "none":
                        need[b] += 1
                if need["soldier"] > ready["soldiers"] or need["good"] > ready["goods"]:
                    continue
                gear_r = gear_b if gear_l == gear_a else gear_a
                turns_l = turns[gear_l][1 if boost_l != "none" else 0]
                turns_r = turns[gear_r][1 if boost_r != "none" else 0]
                left = _top(layout, "L", me["engines"]["L"]["orientation"] + turns_l)
                right = _top(layout, "R", me["engines"]["R"]["orientation"] + turns_r)
                # a boost spends a specific resource: account for it in the ready pile
                spent_view = _spend(view, seat, need)
                v = self._value(spent_view, seat, left, right)
                # prefer not to spend, and a Soldier before a Good (Goods export for points)
                v -= 0.05 * need["soldier"] + 0.1 * need["good"]
                v += noise()
                plan: Plan = (
                    {"engine": "L", "gear": gear_l, "boost": boost_l},
                    {"engine": "R", "gear": gear_r, "boost": boost_r},
                )
                if best is None or v > best[0]:
                    best = (v, plan)
        assert best is not None
        return best[1]

    # ------------------------------------------------------------------ contract

    def choose(
        self, view: dict[str, Json], slot: SealedSlot, seat: int, public_parts: dict[str, Json]
    ) -> Json:
        ctx = slot.context if isinstance(slot.context, dict) else {}
        placement = ctx.get("placement", 1)
        first, second = self.plan(view, seat)  # L is always placed first
        choice = first if placement == 1 else second
        allowed = slot.allowed or ()
        return choice if choice in allowed else slot.default

    def act(self, view: dict[str, Json], legal: Sequence[Json], seat: int) -> Json:
        v: dict[str, Any] = view
        kinds = {a["type"] for a in legal if isinstance(a, dict)}
        if "loot" in kinds:  # take what hurts the target most: its larger stack
            target = v["pending"]["loot"]["target"]
            ready = v["players"][target]["ready"]
            take = "good" if ready["goods"] > ready["soldiers"] else "soldier"
            return {"type": "loot", "take": take}
        if "block" in kinds:  # block the neighbour with the bigger ready pile

            def size(a: Json) -> int:
                assert isinstance(a, dict)
                r = v["players"][a["attacker"]]["ready"]
                return int(r["soldiers"] + r["goods"])

            return max(legal, key=size)
        if "salvage" in kinds:  # build on the type this seat already leads with
            score = v["players"][seat]["score"] or {}
            order = ("invention", "soldier", "good")
            take = max(order, key=lambda r: (score.get(r + "s", 0), -order.index(r)))
            return {"type": "salvage", "take": take}
        return legal[0]


def _spend(view: dict[str, Any], seat: int, need: dict[str, int]) -> dict[str, Any]:
    if not need["soldier"] and not need["good"]:
        return view
    players = list(view["players"])
    me = dict(players[seat])
    me["ready"] = {
        "soldiers": me["ready"]["soldiers"] - need["soldier"],
        "goods": me["ready"]["goods"] - need["good"],
    }
    players[seat] = me
    return {**view, "players": players}
