"""Empire on a compact state, for playouts (issue 22; see ``_kit/fast.py``).

The same rules as ``engine.py``, ``claiming.py``, ``commerce.py``, ``development.py`` and
``exploration.py`` (E-1 to E-22), on plain lists: a seat's holdings and the bank's counters
are lists of seven ints in ``KINDS`` order, the open auction is ``[card, resource, bids,
withdrawn, to_act, opener, passes]``, an open offer ``(id, seat, to, give, get)``.
Random seats never make offers (``legal_actions`` does not list them) but a state taken with
``from_state`` may hold some: they are accepted, declined and cancelled as by the contract.
``tests/property/test_fast_engines.py`` proves it equal to the contract path move by move;
a rules change goes into both.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from shared.fairness.draws import draw
from shared.rules._kit.fast import FastMove, FastPlayout, OnStep, random_player
from shared.rules._kit.model import construct
from shared.rules.api import Json, RuleError
from shared.rules.empire.data import (
    AUCTION_ROW,
    BASE_PRICE,
    BEGINNER_START,
    BOND_GOLD,
    CLAIM_STACK_START,
    KINDS,
    MAX_SALE,
    MAX_SEATS,
    MIN_SEATS,
    NATIONS,
    ROUNDS,
    ROW_LENGTH,
    SUPPLY,
)
from shared.rules.empire.state import (
    Auction,
    ClaimState,
    EmpireOptions,
    EmpireState,
    Holdings,
    Offer,
)

GOODS, POPS, COLS, BONDS, SUPP, REV, GOLD = range(7)  # indices into a holdings list
IX: dict[str, int] = {k: i for i, k in enumerate(KINDS)}
SUPPLY_L = [SUPPLY[k] for k in KINDS]
ROW_PERM = ROW_LENGTH
NATION_START = [[n.start.get(k, 0) for k in KINDS] for n in NATIONS]
BEGINNER = [BEGINNER_START.get(k, 0) for k in KINDS]
STACK_START = [(IX[k], v) for k, v in CLAIM_STACK_START.items()]
# per nation: (first, second, same, pays [(ix, per)], gains [(ix, per)])
RECIPES = [(IX[n.recipe[0]], IX[n.recipe[1]], n.recipe[0] == n.recipe[1],
            [(IX[k], v) for k, v in n.pays.items()], [(IX[k], v) for k, v in n.gains.items()])
           for n in NATIONS]
PASS: Json = {"type": "pass"}
WITHDRAW: Json = {"type": "withdraw"}
DONE: Json = {"type": "done"}
SALES = tuple(tuple(range(k + 1)) for k in range(MAX_SALE + 1))


class Fast:
    """The compact state (mutable; only this module's playout changes it)."""

    __slots__ = (
        "auction",
        "auction_count",
        "auction_lead",
        "auctions_done",
        "claim",
        "developments",
        "done",
        "hands",
        "last_commerce",
        "last_price",
        "n",
        "nations",
        "next_offer_id",
        "offers",
        "options",
        "phase",
        "returned",
        "round",
        "row",
        "shortage",
        "start_player",
        "strict",
        "taken",
    )

    def __init__(self, options: EmpireOptions, n: int) -> None:
        self.options = options
        self.strict = options.strict_supply
        self.n = n
        self.phase = "setup"
        self.round = 0
        self.start_player: int | None = None
        self.row: tuple[str, ...] = ()
        self.shortage = 0
        self.nations: tuple[int | None, ...] = (None,) * n
        self.hands = [[0] * 7 for _ in range(n)]
        # [market, stacks (7-lists), round, collisions, last_selections, assign_seats,
        #  assign_nations] or None
        self.claim: list[Any] | None = None
        self.auction: list[Any] | None = None
        self.auctions_done: tuple[int, ...] = ()
        self.auction_lead = 0
        self.auction_count = 0
        self.offers: tuple[tuple[int, int, int, list[int], list[int]], ...] = ()
        self.next_offer_id = 1
        self.done: tuple[bool, ...] = ()
        self.developments = 0
        self.last_commerce: tuple[int, ...] = ()
        self.last_price: int | None = None
        self.taken = [0] * 7
        self.returned = [0] * 7


# ---------------------------------------------------------------------------- the edge


def setup(options: dict[str, Json], n_seats: int) -> Fast:
    opts = EmpireOptions.model_validate(options or {})
    if isinstance(n_seats, bool) or not isinstance(n_seats, int):
        raise RuleError("n_seats must be an integer")
    if not MIN_SEATS <= n_seats <= MAX_SEATS:
        raise RuleError(f"Empire needs {MIN_SEATS}-{MAX_SEATS} players, not {n_seats}")
    return Fast(opts, n_seats)


def _list(h: Holdings) -> list[int]:
    return [h.goods, h.populations, h.colonies, h.bonds, h.supporters, h.revolts, h.gold]


def _holdings(v: list[int]) -> Holdings:
    return construct(Holdings, goods=v[0], populations=v[1], colonies=v[2], bonds=v[3],
                     supporters=v[4], revolts=v[5], gold=v[6])


def from_state(state: EmpireState) -> Fast:
    f = Fast(state.options, state.n)
    f.phase = state.phase
    f.round = state.round
    f.start_player = state.start_player
    f.row = tuple(state.row)
    f.shortage = state.shortage
    f.nations = tuple(state.nations)
    f.hands = [_list(h) for h in state.holdings]
    c = state.claim
    f.claim = None if c is None else [
        tuple(c.market), [_list(s) for s in c.stacks], c.round, c.collisions,
        tuple(c.last_selections), tuple(c.assign_seats), tuple(c.assign_nations)]
    a = state.auction
    f.auction = None if a is None else [a.card, a.resource, list(a.bids), list(a.withdrawn),
                                        a.to_act, a.opener, a.passes]
    f.auctions_done = tuple(state.auctions_done)
    f.auction_lead = state.auction_lead
    f.auction_count = state.auction_count
    f.offers = tuple((o.id, o.seat, o.to, _list(o.give), _list(o.get)) for o in state.offers)
    f.next_offer_id = state.next_offer_id
    f.done = tuple(state.done)
    f.developments = state.developments
    f.last_commerce = tuple(state.last_commerce)
    f.last_price = state.last_price
    f.taken = _list(state.bank_taken)
    f.returned = _list(state.bank_returned)
    return f


def to_state(f: Fast) -> EmpireState:
    c = f.claim
    claim = None if c is None else construct(
        ClaimState, market=c[0], stacks=tuple(_holdings(s) for s in c[1]), round=c[2],
        collisions=c[3], last_selections=c[4], assign_seats=c[5], assign_nations=c[6])
    a = f.auction
    auction = None if a is None else construct(
        Auction, card=a[0], resource=a[1], bids=tuple(a[2]), withdrawn=tuple(a[3]),
        to_act=a[4], opener=a[5], passes=a[6])
    offers = tuple(construct(Offer, id=o[0], seat=o[1], to=o[2], give=_holdings(o[3]),
                             get=_holdings(o[4])) for o in f.offers)
    return construct(
        EmpireState, options=f.options, n=f.n, phase=f.phase, round=f.round,
        start_player=f.start_player, row=f.row, shortage=f.shortage, nations=f.nations,
        holdings=tuple(_holdings(h) for h in f.hands), claim=claim, auction=auction,
        auctions_done=f.auctions_done, auction_lead=f.auction_lead,
        auction_count=f.auction_count, offers=offers, next_offer_id=f.next_offer_id,
        done=f.done, developments=f.developments, last_commerce=f.last_commerce,
        last_price=f.last_price, bank_taken=_holdings(f.taken),
        bank_returned=_holdings(f.returned))


# ---------------------------------------------------------------------------- the ledger


def _draw(f: Fast, k: int, amount: int) -> int:
    """ledger.Ledger.draw: E-5 strict supply gives what the bank has."""
    if f.strict:
        left = SUPPLY_L[k] - f.taken[k] + f.returned[k]
        amount = max(0, min(amount, left))
    f.taken[k] += amount
    return amount


def _take(f: Fast, seat: int, k: int, amount: int) -> int:
    got = _draw(f, k, amount)
    f.hands[seat][k] += got
    return got


def _pay(f: Fast, seat: int, k: int, amount: int) -> None:
    assert 0 <= amount <= f.hands[seat][k], (seat, k, amount)
    f.hands[seat][k] -= amount
    f.returned[k] += amount


# ---------------------------------------------------------------------------- the rules


def _start_game(f: Fast) -> None:
    f.round = 1
    f.shortage = 0
    _develop(f)


def _develop(f: Fast) -> None:
    """development.development_phase (E-9 to E-12), then engine._develop (E-16)."""
    n = f.n
    start = f.start_player or 0
    for i in range(n):
        seat = (start + i) % n
        number = f.nations[seat]
        hand = f.hands[seat]
        avail = hand[:4]
        lux = min(avail[GOODS], avail[POPS])  # 1. luxuries
        avail[GOODS] -= lux
        avail[POPS] -= lux
        _pay(f, seat, GOODS, lux)
        _take(f, seat, SUPP, lux)
        ind = min(avail[POPS], avail[COLS])  # 2. industries
        avail[POPS] -= ind
        avail[COLS] -= ind
        _take(f, seat, GOODS, ind)
        if number is not None:  # 3. national institutions (E-22)
            first, second, same, pays, gains = RECIPES[number]
            national = avail[first] // 2 if same else min(avail[first], avail[second])
            avail[first] -= national
            avail[second] -= national
            for k, per in pays:
                _pay(f, seat, k, per * national)
            for k, per in gains:
                _take(f, seat, k, per * national)
        _take(f, seat, REV, avail[POPS])  # 4. unused populations (E-12)
        bonds = avail[BONDS]  # 5. bond upkeep (E-11)
        paid = min(bonds, hand[GOLD])
        _pay(f, seat, GOLD, paid)
        _take(f, seat, REV, bonds - paid)
    f.developments += 1
    f.phase = "ended" if f.round >= ROUNDS else "commerce"


def _deal_row(f: Fast, perm: list[int]) -> None:
    cards = AUCTION_ROW[f.options.version]
    f.row = tuple(cards[i] for i in perm)
    for card in f.row:
        _draw(f, IX[card], 1)
    f.shortage = 0
    if f.options.version == "beginner":  # E-22
        for seat in range(f.n):
            for k, v in enumerate(BEGINNER):
                _take(f, seat, k, v)
        f.nations = (None,) * f.n
        _start_game(f)


def _deal_nations(f: Fast, perm: list[int]) -> None:
    market = tuple(perm[: f.n])
    stacks = []
    for _ in market:
        stack = [0] * 7
        for k, v in STACK_START:
            stack[k] = _draw(f, k, v)
        stacks.append(stack)
    f.claim = [market, stacks, 1, 0, (), (), ()]
    f.phase = "claim"


def _finalize_claims(f: Fast, picks: tuple[int, ...]) -> None:
    assert f.claim is not None
    market, stacks = f.claim[0], f.claim[1]
    for seat, number in enumerate(picks):
        stack = stacks[market.index(number)]
        hand = f.hands[seat]
        for k in range(7):
            hand[k] += stack[k]
        for k, v in enumerate(NATION_START[number]):
            _take(f, seat, k, v)
    for number, stack in zip(market, stacks, strict=True):
        if number not in picks:
            for k in range(7):
                f.returned[k] += stack[k]
    f.nations = picks
    f.claim = None
    _start_game(f)


def _resolve_claim(f: Fast, picks: tuple[int, ...]) -> None:
    claim = f.claim
    assert claim is not None
    counts = Counter(picks)
    market = claim[0]
    if not any(counts[m] > 1 for m in market):
        _finalize_claims(f, picks)
        return
    stacks = [s[:] for s in claim[1]]
    for i, m in enumerate(market):
        if counts[m] == 0:
            stacks[i][SUPP] += _draw(f, SUPP, 1)
        elif counts[m] > 1:
            stacks[i][REV] += _draw(f, REV, 1)
    collisions = claim[3] + 1
    new = [market, stacks, claim[2] + 1, collisions, picks, claim[5], claim[6]]
    cap = f.options.claim_collision_cap
    if cap is not None and collisions >= cap:  # E-14 house rule
        new[5] = tuple(s for s in range(f.n) if counts[picks[s]] > 1)
        taken = {picks[s] for s in range(f.n) if counts[picks[s]] == 1}
        new[6] = tuple(m for m in market if m not in taken)
    f.claim = new


def _open_next_auction(f: Fast) -> None:
    done = list(f.auctions_done)
    for card, resource in enumerate(f.row):
        if card == f.shortage or card in done:
            continue
        if f.strict:
            k = IX[resource]
            if SUPPLY_L[k] - f.taken[k] + f.returned[k] < 1:  # E-5: skipped
                done.append(card)
                continue
        opener = (f.auction_lead + 1) % f.n
        f.auction = [card, resource, [0] * f.n, [False] * f.n, opener, opener, 0]
        f.auctions_done = tuple(done)
        f.auction_count += 1
        return
    f.auction = None
    f.auctions_done = tuple(done)
    f.phase = "trade_window"
    f.done = (False,) * f.n


def _is_tied(a: list[Any], seat: int) -> bool:
    bids, withdrawn = a[2], a[3]
    b = bids[seat]
    if True not in withdrawn:
        return bool(bids.count(b) > 1)
    return any(s != seat and not withdrawn[s] and bids[s] == b for s in range(len(bids)))


def _next_active(a: list[Any], seat: int) -> int:
    n = len(a[2])
    for step in range(1, n + 1):
        s = (seat + step) % n
        if not a[3][s]:
            return s
    return seat


def _winner(a: list[Any], min_one: bool) -> int | None:
    bids = {s: b for s, b in enumerate(a[2]) if not a[3][s]}
    counts = Counter(bids.values())
    untied = [(b, s) for s, b in bids.items() if counts[b] == 1]
    if not untied:
        return None
    bid, seat = max(untied)
    if min_one and bid < 1:
        return None
    return seat


def _close_auction(f: Fast) -> None:
    a = f.auction
    assert a is not None
    win = _winner(a, f.options.min_winning_bid_one)
    if win is not None:  # E-3, E-17
        _pay(f, win, GOLD, a[2][win])
        _take(f, win, IX[a[1]], 1)
        if a[1] == "bonds":
            _take(f, win, GOLD, BOND_GOLD)
    f.auction = None
    f.auctions_done = (*f.auctions_done, a[0])
    f.auction_lead = win if win is not None else a[5]
    _open_next_auction(f)


def _tradeable_covers(f: Fast, seat: int, bundle: list[int]) -> bool:
    hand = f.hands[seat]
    a = f.auction
    locked = 0 if a is None or a[3][seat] else a[2][seat]
    return all(hand[k] - (locked if k == GOLD else 0) >= bundle[k] for k in range(7))


def _responses(f: Fast, seat: int) -> list[Json]:
    """exploration.trade_responses."""
    out: list[Json] = []
    for o in f.offers:
        if o[2] == seat:
            if _tradeable_covers(f, o[1], o[3]) and _tradeable_covers(f, o[2], o[4]):
                out.append({"type": "accept", "offer": o[0]})
            out.append({"type": "decline", "offer": o[0]})
        elif o[1] == seat:
            out.append({"type": "cancel", "offer": o[0]})
    return out


def _answer(f: Fast, action: Any) -> None:
    """exploration.apply_trade for an accept / decline / cancel the seat may make."""
    o = next(x for x in f.offers if x[0] == action["offer"])
    f.offers = tuple(x for x in f.offers if x[0] != o[0])
    if action["type"] == "accept":
        src, dst = f.hands[o[1]], f.hands[o[2]]
        for k in range(7):
            src[k] += o[4][k] - o[3][k]
            dst[k] += o[3][k] - o[4][k]


def _bid(f: Fast, seat: int, action: Any) -> None:
    a = f.auction
    assert a is not None
    kind = action["type"]
    if kind == "pass":
        a[6] += 1
        if a[6] >= len(a[3]) - a[3].count(True):
            _close_auction(f)
        else:
            a[4] = _next_active(a, seat)
    elif kind == "withdraw":
        a[3][seat] = True
        a[6] = 0
        a[4] = _next_active(a, seat)
    else:
        a[2][seat] = action["bid"]
        a[6] = 0
        a[4] = _next_active(a, seat)


def _done(f: Fast, seat: int) -> None:
    f.done = tuple(d or s == seat for s, d in enumerate(f.done))
    if all(f.done):  # engine._end_round (E-6, E-16)
        f.offers = ()
        f.done = ()
        f.shortage += 1
        f.round += 1
        f.auctions_done = ()
        _develop(f)


# ---------------------------------------------------------------------------- playouts


def playout(f: Fast, rng: random.Random, key: bytes, max_steps: int = 100_000,
            on_step: OnStep | None = None) -> FastPlayout:
    """Play ``f`` on (in place) with random seats to the end or ``max_steps`` moves."""
    # rng.choice(seq) is seq[rng._randbelow(len(seq))] (CPython 3.11-3.13): the same draws
    # as _kit.playout's random seats without building the lists (the property test pins it)
    below = rng._randbelow  # type: ignore[attr-defined]
    out = FastPlayout(state=f)
    n = f.n
    move: FastMove = ("", None, None)
    for _ in range(max_steps):
        phase = f.phase
        if phase == "exploration":  # Turn(seats=(bidder,)): the bidder acts
            a = f.auction
            assert a is not None
            seat = a[4]
            below(1)  # play's rng.choice of the one awaited seat still draws a bit
            gold = f.hands[seat][GOLD]
            tied = _is_tied(a, seat)
            raises = max(0, gold - a[2][seat])
            responses = _responses(f, seat) if f.offers else []
            i = below(1 + tied + raises + len(responses))
            if i == 0:
                action: Json = PASS
            elif tied and i == 1:
                action = WITHDRAW
            elif i < 1 + tied + raises:
                action = {"type": "raise", "bid": a[2][seat] + i - tied}
            else:
                action = responses[i - 1 - tied - raises]
            if on_step is not None:
                move = ("act", seat, action)
            if i < 1 + tied + raises:
                _bid(f, seat, action)
            else:
                _answer(f, action)
        elif phase == "commerce":
            sold = []
            for seat in range(n):
                allowed = SALES[min(f.hands[seat][GOODS], MAX_SALE)]
                sold.append(allowed[below(len(allowed))])
            picks = tuple(sold)
            if on_step is not None:
                move = ("joint", f"commerce:{f.round}", {f"s{s}": p for s, p in enumerate(picks)})
            _commerce(f, picks)
        elif phase == "trade_window":
            waiting = [s for s in range(n) if not f.done[s]]
            seat = waiting[below(len(waiting))]
            legal = [DONE, *_responses(f, seat)] if f.offers else [DONE]
            action = legal[below(len(legal))]
            if on_step is not None:
                move = ("act", seat, action)
            if action is DONE:
                _done(f, seat)
            else:
                _answer(f, action)
        elif phase == "claim":
            claim = f.claim
            assert claim is not None
            if claim[5]:  # E-14 cap: the colliding seats get the free nations by a shuffle
                label = "claim:assign"
                values = draw(key, label, "shuffle", len(claim[6]))
                picks_l = list(claim[4])
                for i, seat in enumerate(claim[5]):
                    picks_l[seat] = claim[6][values[i]]
                if on_step is not None:
                    move = ("chance", label, tuple(values))
                _finalize_claims(f, tuple(picks_l))
            else:
                allowed = tuple(sorted(claim[0]))
                picks = tuple(allowed[below(len(allowed))] for _ in range(n))
                if on_step is not None:
                    move = ("joint", f"claim:{claim[2]}",
                            {f"s{s}": p for s, p in enumerate(picks)})
                _resolve_claim(f, picks)
        elif phase == "setup":
            if f.start_player is None:  # E-20
                label = "setup:start-player"
                values = draw(key, label, "below", n)
                f.start_player = f.auction_lead = values[0]
            elif not f.row:
                label = "setup:auction-row"
                values = draw(key, label, "shuffle", ROW_LENGTH)
                _deal_row(f, values)
            else:
                label = "setup:nations"
                values = draw(key, label, "shuffle", len(NATIONS))
                _deal_nations(f, values)
            if on_step is not None:
                move = ("chance", label, tuple(values))
        else:  # "ended"
            out.finished = True
            break
        out.steps += 1
        if on_step is not None:
            on_step(f, move)
    return out


def _commerce(f: Fast, sold: tuple[int, ...]) -> None:
    """commerce.resolve_commerce (E-13, E-21), then the first auction (E-17)."""
    price = max(0, BASE_PRICE - sum(sold))
    start = f.start_player or 0
    for i in range(f.n):
        seat = (start + i) % f.n
        _pay(f, seat, GOODS, sold[seat])
        _take(f, seat, GOLD, price * sold[seat])
    f.last_commerce = sold
    f.last_price = price
    f.phase = "exploration"
    f.auctions_done = ()
    _open_next_auction(f)


play_random = random_player(setup, playout)
