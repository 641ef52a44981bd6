"""HeuristicBot: plays Empire from its view and legal actions only, like any client.

It values a position by simulating its own empire through the remaining developments
(greedy, as the rules do, with a rough commerce in between: surplus goods sold, one
good bought when short) and scoring
``support + w(round) * gold``: gold matters for buying later, less as the game ends.

* Claiming: the nation (with the support stacked below it) whose simulation scores best;
  after a collision it keeps a unique pick, and a contested pick with probability 1/2,
  otherwise it moves to the best other nation nobody else took uniquely.
* Commerce: the sale that maximises the value given the price curve and an estimate of
  what the others sell (half their goods, at most 7).
* Exploration: raises to the cheapest bid that would make it the winner (E-2: the highest
  untied bid), only if the card (with a bond's 10 gold, E-17) is worth that much gold to
  it; passes otherwise (a tie it cannot afford to break still denies the others).
* Trades: accepts only offers that raise its value; declines the rest. In the trade window
  it proposes, once a round to each seat still trading, the card-for-card trade (with some
  gold either way) that raises its value most while raising the other empire's too
  (``_propose``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from shared.rules.api import Json, SealedSlot
from shared.rules.empire.data import BASE_PRICE, BOND_GOLD, KINDS, MAX_SALE, NATIONS, Nation

Counts = dict[str, int]
GOODS_RECIPES = {"goods"}  # nations whose institution uses goods keep them
SIM_PRICE = 4  # a typical commerce price (10 minus ~6 goods sold in all)
SIM_BUY = 6  # a typical price for a good bought at auction
# Claiming: gold weighs double when choosing a nation. At the start a gold piece
# buys about a sixth of a card at auction for five rounds. With the round-1 weight (0.1),
# the Ottomans' protectorate income (15 gold a round, RULEBOOK §12) ranks level with
# Britain, so bots let the seat that gets them keep them without a contest, and it wins 32
# of 35 four-player bot games; contested, the Ottomans take collision Revolts (E-14): 26 of
# 35.
CLAIM_GOLD_WEIGHT = 0.2


def gold_weight(round_: int) -> float:
    """Support per gold piece: gold buys cards while auctions remain (E-16)."""
    return {0: 0.1, 1: 0.1, 2: 0.1, 3: 0.09, 4: 0.07, 5: 0.05}.get(round_, 0.01)


def develop(h: Counts, nation: Nation | None) -> None:
    """The rules' greedy development (E-9 ... E-12) on a plain dict, unlimited bank."""
    goods, pops, cols, bonds = h["goods"], h["populations"], h["colonies"], h["bonds"]
    lux = min(goods, pops)
    goods, pops = goods - lux, pops - lux
    h["goods"] -= lux
    h["supporters"] += lux
    ind = min(pops, cols)
    pops, cols = pops - ind, cols - ind
    gained_goods = ind
    if nation is not None:
        avail = {"goods": goods, "populations": pops, "colonies": cols}
        first, second = nation.recipe
        k = avail[first] // 2 if first == second else min(avail[first], avail[second])
        avail[first] -= k
        avail[second] -= k
        pops = avail["populations"]
        for kind, per in nation.pays.items():
            h[kind] -= per * k
        for kind, per in nation.gains.items():
            h[kind] += per * k
    h["goods"] += gained_goods
    h["revolts"] += pops
    paid = min(bonds, h["gold"])
    h["gold"] -= paid
    h["revolts"] += bonds - paid


def value(h0: Mapping[str, int], nation: Nation | None, devs: int, w: float) -> float:
    """Support at the end of ``devs`` developments plus ``w`` per gold piece.

    Between developments the simulated commerce keeps only the goods that the next
    development turns into support without starving industries (populations beyond the
    colonies; all populations before the last development), sells the rest and buys one
    good when short, at typical prices; nations whose institution uses goods keep them.
    """
    h: Counts = {k: int(h0.get(k, 0)) for k in KINDS}
    keep_all = nation is not None and bool(set(nation.recipe) & GOODS_RECIPES)
    for i in range(devs):
        develop(h, nation)
        if i < devs - 1 and not keep_all:
            pops = h["populations"]
            keep = pops if i == devs - 2 else max(0, pops - h["colonies"])
            sell = min(MAX_SALE, max(0, h["goods"] - keep))
            # A shortfall is made up by buying a good (at most one a round) if gold allows.
            buy = 1 if h["goods"] < keep and h["gold"] >= SIM_BUY else 0
            h["goods"] += buy - sell
            h["gold"] += SIM_PRICE * sell - SIM_BUY * buy
    return h["supporters"] - h["revolts"] + w * h["gold"]


def _plus(h: Mapping[str, int], **delta: int) -> Counts:
    out: Counts = {k: int(h.get(k, 0)) for k in KINDS}
    for k, v in delta.items():
        out[k] += v
    return out


def _moved(h: Mapping[str, int], get: Mapping[str, int], give: Mapping[str, int]) -> Counts:
    return {k: int(h.get(k, 0)) + int(get.get(k, 0)) - int(give.get(k, 0)) for k in KINDS}


class HeuristicBot:
    def __init__(self, seed: int | None = None, horizon: int = 6,
                 gold_scale: float = 1.0) -> None:
        # seed None: OS entropy, so identical bots at one table do not mirror each other's
        # coin flips (they would collide on the same nation forever, E-14)
        self.rng = random.Random(seed)
        self.gold_scale = gold_scale
        self.horizon = horizon  # developments simulated ahead (later ones are too uncertain)
        self._offered: set[tuple[Any, ...]] = set()  # (round, start, seat, to): proposed once

    def _devs(self, view: Mapping[str, Any]) -> int:
        return min(int(view["developments_left"]), self.horizon)

    # -- helpers over the view ------------------------------------------------------------

    @staticmethod
    def _me(view: Mapping[str, Any]) -> tuple[Counts, Nation | None]:
        you = view["you"]
        number = you.get("nation")
        return dict(you["holdings"]), NATIONS[number] if number is not None else None

    def _w(self, view: Mapping[str, Any]) -> float:
        return self.gold_scale * gold_weight(int(view.get("round") or 0))

    def _gain(
        self, view: Mapping[str, Any], get: Mapping[str, int], give: Mapping[str, int]
    ) -> float:
        h, nation = self._me(view)
        devs, w = self._devs(view), self._w(view)
        after: Counts = {k: h[k] + int(get.get(k, 0)) - int(give.get(k, 0)) for k in KINDS}
        return value(after, nation, devs, w) - value(h, nation, devs, w)

    # -- turns ----------------------------------------------------------------------------

    def act(self, view: dict[str, Json], legal: Sequence[Json], seat: int) -> Json:
        v: dict[str, Any] = view
        offers = {o["offer"]: o for o in v.get("offers", [])}
        for a in legal:
            if isinstance(a, dict) and a.get("type") == "accept":
                o = offers[a["offer"]]
                if self._gain(v, o["give"], o["get"]) > 0.05:  # receive give, hand over get
                    return a
        done = {p["seat"] for p in v.get("players", []) if p.get("done")}
        for a in legal:
            if isinstance(a, dict) and a.get("type") == "decline":
                return a
            # our own offer stays open while its seat may still answer it
            if isinstance(a, dict) and a.get("type") == "cancel" and (
                    offers[a["offer"]]["to"] in done or v.get("phase") != "trade_window"):
                return a
        if v.get("auction") and v["auction"]["to_act"] == seat:
            return self._bid(v, legal, seat)
        if {"type": "done"} in legal:
            offer = self._propose(v, seat)
            return offer if offer is not None else {"type": "done"}
        return legal[0]

    # -- proposing trades -------------------------------------------------------------------

    TRADE_KINDS = ("goods", "populations", "colonies")
    SWEETENERS = (0, 2, 5)

    def _propose(self, v: Mapping[str, Any], seat: int) -> Json | None:
        """E-3/E-6: in the trade window, one offer to each seat still trading, once a
        round: a card for a card (plus some gold from us, or asked of them) that raises both
        empires' values as this bot estimates them (the same estimate decides whether it
        accepts an offer, so two of these bots agree). The offer stays open until that seat
        answers or the window closes; None when no such trade exists."""
        if v.get("phase") != "trade_window" or v["options"].get("memory_mode"):
            return None
        if any(o["from"] == seat for o in v.get("offers", [])):
            return None  # one open offer at a time: wait for its answer
        rnd = int(v.get("round") or 0)
        mine = v["players"][seat].get("tradeable")
        if not mine:
            return None
        h, nation = self._me(v)
        devs, w = self._devs(v), self._w(v)
        base = value(h, nation, devs, w)
        best: tuple[float, int, dict[str, int], dict[str, int]] | None = None
        for p in v["players"]:
            to = int(p["seat"])
            key = (rnd, v.get("start_player"), seat, to)
            if to == seat or p.get("done") or key in self._offered or not p.get("tradeable"):
                continue
            theirs, their_nation = dict(p["holdings"]), (
                NATIONS[p["nation"]] if p.get("nation") is not None else None)
            their_base = value(theirs, their_nation, devs, w)
            for give_kind in self.TRADE_KINDS:
                if int(mine.get(give_kind, 0)) < 1:
                    continue
                for get_kind in self.TRADE_KINDS:
                    if get_kind == give_kind or int(p["tradeable"].get(get_kind, 0)) < 1:
                        continue
                    for gold in self.SWEETENERS:
                        for gold_to_them in (True, False):
                            if gold == 0 and not gold_to_them:
                                continue
                            give = {give_kind: 1, "gold": gold if gold_to_them else 0}
                            get = {get_kind: 1, "gold": 0 if gold_to_them else gold}
                            if give["gold"] > int(mine.get("gold", 0)) or get["gold"] > int(
                                    p["tradeable"].get("gold", 0)):
                                continue
                            me_after = _moved(h, get, give)
                            them_after = _moved(theirs, give, get)
                            ours = value(me_after, nation, devs, w) - base
                            gain = value(them_after, their_nation, devs, w) - their_base
                            if ours > 0.3 and gain > 0.1 and (best is None or ours > best[0]):
                                best = (ours, to, give, get)
        if best is None:
            return None
        _, to, give, get = best
        self._offered.add((rnd, v.get("start_player"), seat, to))
        return {"type": "offer_trade", "to": to,
                "give": {k: n for k, n in give.items() if n},
                "get": {k: n for k, n in get.items() if n}}

    def _bid(self, v: Mapping[str, Any], legal: Sequence[Json], seat: int) -> Json:
        a = v["auction"]
        bids, withdrawn = a["bids"], a["withdrawn"]
        min_one = bool(v["options"].get("min_winning_bid_one"))
        others = [b for s, b in enumerate(bids) if s != seat and not withdrawn[s]]
        counts = Counter(others)
        untied = [b for b in others if counts[b] == 1]
        mine = bids[seat]
        leading = mine not in counts and mine > max(untied, default=-1)
        if leading and not (min_one and mine == 0):
            return {"type": "pass"}
        # The cheapest total that would make this seat the highest untied bid (E-2).
        target = max(mine + 1, max(untied, default=-1) + 1, 1)
        while target in counts:
            target += 1
        if {"type": "raise", "bid": target} not in legal:
            return {"type": "pass"}
        h, nation = self._me(v)
        devs, w = self._devs(v), self._w(v)
        card = {a["resource"]: 1}
        if a["resource"] == "bonds":
            card["gold"] = BOND_GOLD
        base = value(h, nation, devs, w)
        after = _plus(h, **card)
        after["gold"] -= target
        if value(after, nation, devs, w) > base + 0.05:
            return {"type": "raise", "bid": target}
        return {"type": "pass"}

    # -- sealed choices -------------------------------------------------------------------

    def choose(
        self, view: dict[str, Json], slot: SealedSlot, seat: int, public_parts: dict[str, Json]
    ) -> Json:
        v: dict[str, Any] = view
        allowed = [int(x) for x in (slot.allowed or ()) if isinstance(x, int)]
        if not allowed:
            return slot.default
        if v.get("phase") == "claim":
            return self._claim(v, allowed, seat)
        return self._sell(v, allowed, seat)

    def _claim(self, v: Mapping[str, Any], allowed: list[int], seat: int) -> int:
        market = {m["number"]: m for m in v["claim"]["market"]}

        def worth(number: int) -> float:
            nation = NATIONS[number]
            stack = market[number]
            h = _plus({}, **dict(nation.start))
            h["supporters"] += int(stack.get("supporters", 0))
            h["revolts"] += int(stack.get("revolts", 0))
            return value(h, nation, self.horizon, CLAIM_GOLD_WEIGHT)

        ranked = sorted(allowed, key=lambda m: (-worth(m), m))
        last = v["claim"]["last_selections"]
        if not last:
            return ranked[0]
        picks = Counter(last)
        mine = last[seat]
        if mine in allowed and (picks[mine] == 1 or self.rng.random() < 0.5):
            return int(mine)  # unique last time (or a coin flip says insist)
        taken = {p for s, p in enumerate(last) if s != seat and picks[p] == 1}
        free = [m for m in ranked if m not in taken and m != mine]
        # spread out: the best few free nations, at random, so colliding bots part ways
        return self.rng.choice(free[:3]) if free else ranked[0]

    def _sell(self, v: Mapping[str, Any], allowed: list[int], seat: int) -> int:
        h, nation = self._me(v)
        devs, w = self._devs(v), self._w(v)
        others = 0.0
        for p in v["players"]:
            if p["seat"] == seat:
                continue
            held = p.get("holdings")
            others += min(int(held["goods"]), MAX_SALE) / 2 if held else 2
        est = round(others)
        best, best_val = 0, float("-inf")
        for k in allowed:
            price = max(0, BASE_PRICE - est - k)
            val = value(_plus(h, goods=-k, gold=price * k), nation, devs, w)
            if val > best_val + 1e-9:
                best, best_val = k, val
        return best
