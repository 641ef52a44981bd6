"""Search support for Empire: a full state from one seat's view, and a position's
estimated win chances.

Empire hides little. By default every empire's counts are public (E-8), and so are the row,
the claim market, the auction and the open offers. The view carries all of it, and
``determinize`` copies it. What it cannot see:

* sealed choices (claims, commerce sales): they never reach the state, and the search draws
  the other seats' choices itself;
* with ``memory_mode`` (E-8), the other empires' counts: they are sampled as the nation's
  starting cards with its claim stack of one Supporter and one Revolt (the beginner cards
  without a nation). This is a crude prior, but it never reads the true counts;
* bookkeeping that never changes play: the bank flows (with ``strict_supply``, the cards in
  play count as taken and none as returned) and the count of auctions opened.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from shared.ai.empire.bot import gold_weight, value
from shared.ai.search.spec import SearchSpec, win_shares
from shared.rules.api import Json
from shared.rules.empire.data import BEGINNER_START, KINDS, NATIONS, ROUNDS
from shared.rules.empire.state import (
    Auction,
    ClaimState,
    EmpireOptions,
    EmpireState,
    Holdings,
    Offer,
)


def _holdings(data: Any) -> Holdings:
    return Holdings(**{k: int(data.get(k, 0)) for k in KINDS})


def _prior(nation: int | None) -> Holdings:
    start = dict(NATIONS[nation].start) if nation is not None else dict(BEGINNER_START)
    if nation is not None:
        start["supporters"] = start.get("supporters", 0) + 1
        start["revolts"] = start.get("revolts", 0) + 1
    return _holdings(start)


def determinize(view: dict[str, Json], seat: int, rng: random.Random) -> EmpireState:
    v: dict[str, Any] = view
    options = EmpireOptions(**v["options"])
    n = int(v["n_seats"])
    players = v["players"]
    nations = tuple(p["nation"] for p in players)
    holdings = tuple(
        _holdings(v["you"]["holdings"]) if s == seat
        else _holdings(p["holdings"]) if p["holdings"] is not None
        else _prior(nations[s])
        for s, p in enumerate(players)
    )
    claim = None
    if v.get("claim") is not None:
        c = v["claim"]
        claim = ClaimState(
            market=tuple(int(m["number"]) for m in c["market"]),
            stacks=tuple(_holdings(m) for m in c["market"]),
            round=int(c["round"]),
            collisions=int(c["collisions"]),
            last_selections=tuple(int(x) for x in c["last_selections"]),
        )
    auction = None
    if v.get("auction") is not None:
        a = v["auction"]
        auction = Auction(card=a["card"], resource=a["resource"], bids=list(a["bids"]),
                          withdrawn=list(a["withdrawn"]), to_act=a["to_act"],
                          opener=a["opener"], passes=a["passes"])
    offers = tuple(
        Offer(id=o["offer"], seat=o["from"], to=o["to"], give=_holdings(o["give"]),
              get=_holdings(o["get"]))
        for o in v["offers"]
    )
    commerce = v.get("last_commerce")
    phase = v["phase"]
    in_play = Holdings()
    if options.strict_supply:
        for h in (*holdings, *(claim.stacks if claim else ())):
            in_play = in_play.plus(h)
    done_auctions = tuple(r["index"] for r in v["row"] if r["status"] == "done")
    return EmpireState(
        options=options,
        n=n,
        phase=phase,
        round=int(v["round"]),
        start_player=v["start_player"],
        row=tuple(r["resource"] for r in v["row"]),
        shortage=int(v["shortage"]),
        nations=nations,
        holdings=holdings,
        claim=claim,
        auction=auction,
        auctions_done=done_auctions,
        auction_lead=int(v["auction_lead"]),
        auction_count=max(0, int(v["round"]) - 1) * 5 + len(done_auctions) + (auction is not None),
        offers=offers,
        next_offer_id=1 + max((o.id for o in offers), default=0),
        done=tuple(bool(p["done"]) for p in players) if phase == "trade_window" else (),
        developments=ROUNDS - int(v["developments_left"]),
        last_commerce=tuple(commerce["sold"]) if commerce else (),
        last_price=commerce["price"] if commerce else None,
        bank_taken=in_play,
    )


def evaluate(state: EmpireState) -> Sequence[float]:
    """Each empire's support after the remaining developments plus gold by the round's
    weight (the heuristic bot's own simulation, E-9 to E-12); a lead of 3 support makes a
    seat e times likelier to win."""
    devs = min(ROUNDS - state.developments, 6)
    w = gold_weight(state.round)
    strengths = []
    for s in range(state.n):
        number = state.nations[s] if state.nations else None
        nation = NATIONS[number] if number is not None else None
        strengths.append(value(state.holdings[s].as_dict(), nation, devs, w))
    return win_shares(strengths, 3.0)


def _heuristic() -> Any:
    from shared.ai.empire.bot import HeuristicBot

    return HeuristicBot()


SEARCH = SearchSpec(determinize=determinize, evaluate=evaluate, heuristic=_heuristic)
