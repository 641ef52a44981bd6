"""Enumeration of legal actions, and the timeout defaults.

Counts are open-ended where the rules allow any number (reinforcements, move-in, the free
move): the list offers the useful extremes (1 / all, minimum / maximum) and ``apply``
accepts every count in the legal range, which the view states (``pool``, ``move_in``).
Card sets are offered once per combination of pests (the lowest card ids of each pest);
``apply`` accepts any three held cards that form a set.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement

from shared.rules.api import Json
from shared.rules.empire_nyc import board
from shared.rules.empire_nyc.combat import max_defender_dice
from shared.rules.empire_nyc.state import NycState
from shared.rules.empire_nyc.tables import (
    DEFENDS,
    END_ATTACK,
    END_TURN,
    FORTIFY_ONE,
    MAX_INSTIGATOR_DICE,
    PLACE_ONE,
    PLACE_PAIRS,
    PLACE_TABLE_MAX,
    place,
)
from shared.rules.empire_nyc.turns import held, must_trade

KINDS = ("squirrel", "rat", "pigeon", "wild")
TURN_PHASES = frozenset({"setup_place", "reinforce", "attack", "move_in", "fortify"})
NB_IDS = board.NB_IDS
NEIGHBOURS = board.NEIGHBOURS


def awaited(state: NycState) -> int | None:
    """The seat the current Turn waits for, if the node is a Turn."""
    if state.phase in TURN_PHASES:
        return state.current
    if state.phase == "defend" and state.battle is not None:
        return state.battle.defender
    return None


def canonical_trades(hand: tuple[str, ...]) -> list[tuple[str, str, str]]:
    return list(_canonical_trades(hand if type(hand) is tuple else tuple(hand)))


def _pattern_is_set(pattern: tuple[str, ...]) -> bool:
    """``board.is_set`` for three different cards of these pests."""
    pests = [k for k in pattern if k != "wild"]
    return len(pests) < 3 or len(set(pests)) in (1, 3)


# The pest patterns that make a set, in combinations_with_replacement order: (each card's
# pest index, how many cards of each pest)
PATTERNS = tuple(
    (tuple(KINDS.index(k) for k in p), tuple(p.count(k) for k in KINDS))
    for p in combinations_with_replacement(KINDS, 3) if _pattern_is_set(p))
CARD_ORDER = {c: k for k, c in enumerate(board.CARD_IDS)}
CARD_KIND = {c: KINDS.index(pest) for c, pest in board.CARD_PEST.items()}


def _picks(have: tuple[int, ...]) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For a hand of ``have`` cards of each pest (counted up to 3): per pattern that makes a
    set, its three cards as (pest, rank among the hand's cards of that pest)."""
    out = []
    for kinds, need in PATTERNS:
        if all(n <= h for n, h in zip(need, have, strict=True)):
            used = [0, 0, 0, 0]
            picks = []
            for k in kinds:
                picks.append((k, used[k]))
                used[k] += 1
            out.append(tuple(picks))
    return tuple(out)


# ``_picks`` of every hand's counts, indexed by squirrels + 4 rats + 16 pigeons + 64 wilds
# (each up to 3): a hand's sets are then one look-up, not a test of every pattern
PICKS = tuple(_picks((n & 3, n >> 2 & 3, n >> 4 & 3, n >> 6)) for n in range(256))
UP_TO_3 = tuple(min(n, 3) for n in range(len(board.CARD_IDS) + 1))


@lru_cache(maxsize=4096)  # hands recur from move to move (bounded: hostile input)
def _canonical_trades(hand: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    """Per pattern of pests that makes a set, the lowest card ids of each pest held."""
    if len(hand) < 3:
        return ()
    by_kind: tuple[list[str], ...] = ([], [], [], [])
    for c in sorted(hand, key=CARD_ORDER.__getitem__):
        by_kind[CARD_KIND[c]].append(c)
    squirrels, rats, pigeons, wilds = by_kind
    picks = PICKS[UP_TO_3[len(squirrels)] + 4 * UP_TO_3[len(rats)]
                  + 16 * UP_TO_3[len(pigeons)] + 64 * UP_TO_3[len(wilds)]]
    return tuple([(by_kind[a][i], by_kind[b][j], by_kind[c][k])
                  for (a, i), (b, j), (c, k) in picks])


def _counts(lo: int, hi: int) -> tuple[int, ...]:
    return (lo,) if lo == hi else (lo, hi)


def legal_actions(state: NycState, seat: int) -> list[Json]:
    """In the order the seeded games were recorded in; a listed action may be shared with
    other lists (read it, never change it)."""
    phase = state.phase
    if phase == "attack":
        return attacks(state, seat) if state.current == seat else []
    if phase == "defend":
        b = state.battle
        assert b is not None
        if b.defender != seat:
            return []
        return list(DEFENDS[:max_defender_dice(state.cubes[b.to])])
    if state.current != seat or phase not in TURN_PHASES:
        return []
    if phase == "reinforce":
        return _reinforcements(state, seat)
    if phase == "fortify":
        return _fortifies(state, seat)
    if phase == "setup_place":
        return list(map(PLACE_ONE.__getitem__, held(state).owned(seat)))
    m = state.move_in  # "move_in"
    assert m is not None
    return [{"type": "move_in", "n": n}
            for n in _counts(m.moved, m.moved + state.cubes[m.frm] - 1)]


def _reinforcements(state: NycState, seat: int) -> list[Json]:
    """The sets to trade (NY-5), then 1 or all the pool on each neighborhood held."""
    out: list[Json] = [{"type": "trade", "cards": list(t)}
                       for t in _canonical_trades(state.seldom.hands[seat])]
    if must_trade(state, seat):  # NY-6
        return out
    pool, owned = state.pool, held(state).owned(seat)
    if pool == 1:
        out += map(PLACE_ONE.__getitem__, owned)
        return out
    if pool < PLACE_TABLE_MAX:
        pairs = PLACE_PAIRS[pool]
        for i in owned:
            out += pairs[i]
        return out
    for i in owned:
        out.append(PLACE_ONE[i])
        out.append(place(i, pool))
    return out


def attacks(state: NycState, seat: int) -> list[Json]:
    """The list in the attack phase: stop, then each attack from each front neighborhood."""
    out: list[Json] = [END_ATTACK]
    cubes = state.cubes
    h = state.holdings  # ``held``, inline
    if h is None or h.owner is not state.owner:
        h = held(state)
    for i, by_dice in h.fronts.get(seat) or h.front(seat):  # (made once per map and seat)
        c = cubes[i]
        if c >= 2:  # NY-8: one more cube than the dice rolled
            out += by_dice[c - 1 if c <= MAX_INSTIGATOR_DICE else MAX_INSTIGATOR_DICE]
    return out


def _fortifies(state: NycState, seat: int) -> list[Json]:
    out: list[Json] = [END_TURN]
    h, cubes = held(state), state.cubes
    adj, mine = h.adj, h.mask(seat)
    for i in h.owned(seat):
        c = cubes[i]
        if c < 2:
            continue
        m = adj[i] & mine  # ``friends``
        if not m:
            continue
        friends = NEIGHBOURS[i][m]
        ones = FORTIFY_ONE[i]
        if c == 2:
            out += map(ones.__getitem__, friends)
            continue
        frm = NB_IDS[i]
        for j in friends:
            out.append(ones[j])
            out.append({"type": "fortify", "from": frm, "to": NB_IDS[j], "n": c - 1})
    return out


def default_action(state: NycState, seat: int) -> Json:
    """Timeout choice: the cautious option (stop attacking, no free move, fewest cubes moved,
    defend with the most dice); reinforcements all go to one frontier neighborhood. The
    caller's own dict (listed actions are shared)."""
    legal = legal_actions(state, seat)
    if not legal:
        return {"type": "end_turn"}
    if state.phase == "reinforce":
        if must_trade(state, seat):
            return _copy(legal[0])
        h = held(state)
        mine = h.owned(seat)
        front = [i for i in mine if h.enemies(i)] or mine
        return {"type": "place", "nb": NB_IDS[front[0]], "n": state.pool}
    if state.phase == "defend":
        return _copy(legal[-1])
    return _copy(legal[0])


def _copy(action: Json) -> Json:
    assert isinstance(action, dict)
    return dict(action)
