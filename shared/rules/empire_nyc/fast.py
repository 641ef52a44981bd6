"""Empire: The Game of New York on a compact state, for playouts (issue 22; ``_kit/fast.py``).

The same rules as ``engine.py``, ``turns.py``, ``combat.py`` and ``legal.py`` (NY-1 to
NY-14, NY-S1) on plain lists: ``owner`` and ``cubes`` per neighborhood index, the battle
``[frm, to, defender, dice, def_dice, inst_roll]`` and the pending move-in ``[frm, to,
moved]``. A random seat's legal actions are enumerated as small tuples in ``legal.py``'s
order and only the chosen one becomes JSON. ``tests/property/test_fast_engines.py`` proves
it equal to the contract path move by move; a rules change goes into both.
"""

from __future__ import annotations

import random
from bisect import insort
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Any

from shared.fairness.draws import draw
from shared.rules._kit.fast import (
    FastMove,
    FastPlayout,
    OnStep,
    dice_drawer,
    random_player,
)
from shared.rules._kit.model import construct
from shared.rules.api import Json, RuleError
from shared.rules.empire_nyc import board, data
from shared.rules.empire_nyc.combat import MAX_DEFENDER_DICE, MAX_INSTIGATOR_DICE
from shared.rules.empire_nyc.state import Battle, Elimination, MoveIn, NycOptions, NycState

LABEL_FIRST = "setup:first_player"  # engine.LABEL_*
LABEL_DEAL = "deal:neighborhoods"
LABEL_MISSIONS = "deal:missions"
N_NB = board.N_NB
NB_IDS = board.NB_IDS
TURN_PHASES = frozenset({"setup_place", "reinforce", "attack", "defend", "move_in", "fortify"})
END_ATTACK: Json = {"type": "end_attack"}
END_TURN: Json = {"type": "end_turn"}
MEMBERS = tuple((board.BOROUGH_BONUS[b], board.BOROUGH_MEMBERS[b]) for b in board.BOROUGH_IDS)


class Fast:
    """The compact state (mutable; only this module's playout changes it)."""

    __slots__ = (
        "adj",
        "attacks",
        "battle",
        "card_due",
        "conquered",
        "cubes",
        "current",
        "deck",
        "deck_shuffles",
        "discard",
        "eliminated",
        "enemies",
        "first_player",
        "hands",
        "mine",
        "missions",
        "move_in",
        "n",
        "options",
        "order",
        "owner",
        "phase",
        "pool",
        "round",
        "sets_traded",
        "to_place",
        "turn",
        "win_reason",
        "winner",
    )

    def __init__(self, options: NycOptions, n: int) -> None:
        self.options = options
        self.adj = board.sorted_adjacency(options.extra_links)
        self.n = n
        self.phase = "first_player"
        self.first_player = -1
        self.order: tuple[int, ...] = ()
        self.owner = [-1] * N_NB
        self.mine: list[list[int]] = [[] for _ in range(n)]  # per seat: its nbs, in order
        self.cubes = [0] * N_NB
        # nb -> its enemy neighbours in adjacency order, for the owners of now (cleared
        # whenever a neighborhood changes hands)
        self.enemies: dict[int, list[int]] = {}
        self.to_place = [0] * n
        self.hands: list[tuple[str, ...]] = [()] * n
        self.missions: tuple[str, ...] = ()
        self.deck: tuple[str, ...] = ()
        self.discard: tuple[str, ...] = ()
        self.deck_shuffles = 0
        self.card_due = False
        self.sets_traded = 0
        self.current = -1
        self.turn = 0
        self.round = 0
        self.pool = 0
        self.attacks = 0
        self.conquered = False
        self.battle: list[Any] | None = None
        self.move_in: list[int] | None = None
        self.eliminated: list[tuple[int, int, int]] = []
        self.winner: int | None = None
        self.win_reason: str | None = None


# ---------------------------------------------------------------------------- the edge


def setup(options: dict[str, Json], n_seats: int) -> Fast:
    opts = NycOptions.model_validate(options)
    if not 3 <= n_seats <= 6:
        raise RuleError(f"empire-nyc is for 3 to 6 players, not {n_seats} (NY-13)")
    return Fast(opts, n_seats)


def from_state(state: NycState) -> Fast:
    f = Fast(state.options, state.n_seats)
    f.phase = state.phase
    f.first_player = state.first_player
    f.order = tuple(state.order)
    f.owner = list(state.owner)
    f.mine = [[i for i in range(N_NB) if f.owner[i] == s] for s in range(f.n)]
    f.cubes = list(state.cubes)
    f.to_place = list(state.to_place)
    f.hands = list(state.hands)
    f.missions = tuple(state.missions)
    f.deck = tuple(state.deck)
    f.discard = tuple(state.discard)
    f.deck_shuffles = state.deck_shuffles
    f.card_due = state.card_due
    f.sets_traded = state.sets_traded
    f.current = state.current
    f.turn = state.turn
    f.round = state.round
    f.pool = state.pool
    f.attacks = state.attacks
    f.conquered = state.conquered
    b = state.battle
    f.battle = None if b is None else [b.frm, b.to, b.defender, b.dice, b.def_dice, b.inst_roll]
    m = state.move_in
    f.move_in = None if m is None else [m.frm, m.to, m.moved]
    f.eliminated = [(e.seat, e.by, e.turn) for e in state.eliminated]
    f.winner = state.winner
    f.win_reason = state.win_reason
    return f


def to_state(f: Fast) -> NycState:
    b = f.battle
    battle = None if b is None else construct(Battle, frm=b[0], to=b[1], defender=b[2],
                                              dice=b[3], def_dice=b[4], inst_roll=b[5])
    m = f.move_in
    move_in = None if m is None else construct(MoveIn, frm=m[0], to=m[1], moved=m[2])
    return construct(
        NycState, n_seats=f.n, options=f.options, phase=f.phase, first_player=f.first_player,
        order=f.order, owner=tuple(f.owner), cubes=tuple(f.cubes), to_place=tuple(f.to_place),
        hands=tuple(f.hands), missions=f.missions, deck=f.deck, discard=f.discard,
        deck_shuffles=f.deck_shuffles, card_due=f.card_due, sets_traded=f.sets_traded,
        current=f.current, turn=f.turn, round=f.round, pool=f.pool, attacks=f.attacks,
        conquered=f.conquered, battle=battle, move_in=move_in,
        eliminated=tuple(construct(Elimination, seat=s, by=by, turn=t)
                         for s, by, t in f.eliminated),
        winner=f.winner, win_reason=f.win_reason)


# ---------------------------------------------------------------------------- the rules


def _alive(f: Fast, seat: int) -> bool:
    return all(e[0] != seat for e in f.eliminated)


def _next_alive(f: Fast, seat: int) -> int:
    order = f.order
    k = order.index(seat)
    for step in range(1, len(order) + 1):
        cand = order[(k + step) % len(order)]
        if _alive(f, cand):
            return cand
    return seat


def _first_player(f: Fast, first: int) -> None:
    f.first_player = first
    f.order = tuple((first + k) % f.n for k in range(f.n))
    f.phase = "deal"


def _deal(f: Fast, perm: list[int]) -> None:
    owner = [-1] * N_NB
    for k, nb in enumerate(perm):
        owner[nb] = f.order[k % f.n]
    start = data.STARTING_CUBES[f.n]
    f.owner = owner
    f.mine = [[i for i in range(N_NB) if owner[i] == s] for s in range(f.n)]
    f.to_place = [start - owner.count(s) for s in range(f.n)]
    f.cubes = [1] * N_NB
    f.phase = "deal_missions" if f.options.missions else "setup_place"
    f.current = f.first_player


def _setup_place(f: Fast, seat: int, nb: int) -> None:
    f.cubes[nb] += 1
    f.to_place[seat] -= 1
    order = f.order
    k = order.index(seat)
    for step in range(1, len(order) + 1):
        cand = order[(k + step) % len(order)]
        if f.to_place[cand] > 0:
            f.current = cand
            return
    f.phase = "shuffle_deck"  # NY-2
    f.current = -1


def _has_won(f: Fast, seat: int) -> str | None:
    owner = f.owner
    if len(f.mine[seat]) == N_NB:
        return "map"
    if f.options.missions and board.holds_boroughs(
            tuple(owner), seat, board.MISSION_BOROUGHS[f.missions[seat]]):
        return "mission"
    return None


def _finish(f: Fast, seat: int | None, reason: str) -> None:
    f.phase = "over"
    f.winner = seat
    f.win_reason = reason
    f.battle = None
    f.move_in = None
    f.pool = 0


def _round_limit_leader(f: Fast) -> int | None:
    keys = {}
    for s in range(f.n):
        if _alive(f, s):
            mine = f.mine[s]
            keys[s] = (len(mine), sum(f.cubes[i] for i in mine))
    best = max(keys.values())
    leaders = [s for s, k in keys.items() if k == best]
    return leaders[0] if len(leaders) == 1 else None


def _start_turn(f: Fast, seat: int) -> None:
    order = f.order
    wraps = f.current < 0 or order.index(seat) <= order.index(f.current)
    limit = f.options.max_rounds
    if wraps and limit is not None and f.round >= limit:  # NY-S1
        _finish(f, _round_limit_leader(f), "round_limit")
        return
    f.current = seat
    f.turn += 1
    if wraps:
        f.round += 1
    f.attacks = 0
    f.conquered = False
    f.battle = None
    f.move_in = None
    f.phase = "reinforce"
    reason = _has_won(f, seat)
    if reason is not None:  # NY-12
        _finish(f, seat, reason)
        return
    owner = f.owner
    part_a = max(data.BASE_MINIMUM, len(f.mine[seat]) // data.BASE_DIVISOR)  # NY-3
    part_b = sum(bonus for bonus, members in MEMBERS if all(owner[i] == seat for i in members))
    f.pool = part_a + part_b


def _must_trade(f: Fast, seat: int) -> bool:
    return f.options.forced_trade and len(f.hands[seat]) >= 5


def _trade(f: Fast, seat: int, cards: tuple[str, ...]) -> None:
    value = board.set_value(f.sets_traded)  # NY-5
    f.hands[seat] = tuple(c for c in f.hands[seat] if c not in cards)
    f.discard = f.discard + tuple(cards)
    f.pool += value
    f.sets_traded += 1


def _can_attack(f: Fast, seat: int) -> bool:
    owner, cubes, adj = f.owner, f.cubes, f.adj
    for i in f.mine[seat]:
        if cubes[i] >= 2:
            for j in adj[i]:
                if owner[j] != seat:
                    return True
    return False


def _can_fortify(f: Fast, seat: int) -> bool:
    owner, cubes, adj = f.owner, f.cubes, f.adj
    for i in f.mine[seat]:
        if cubes[i] >= 2:
            for j in adj[i]:
                if owner[j] == seat:
                    return True
    return False


def _enter_attack(f: Fast) -> None:
    f.phase = "attack"
    f.battle = None
    f.move_in = None
    if not _can_attack(f, f.current):
        _enter_fortify(f)


def _enter_fortify(f: Fast) -> None:
    f.phase = "fortify"
    f.battle = None
    f.move_in = None
    if not _can_fortify(f, f.current):
        _end_turn(f)


def _draw_card(f: Fast) -> None:
    seat = f.current
    f.hands[seat] = (*f.hands[seat], f.deck[0])
    f.deck = f.deck[1:]
    f.card_due = False


def _end_turn(f: Fast) -> None:
    f.phase = "fortify"
    f.battle = None
    f.move_in = None
    if f.conquered:  # NY-4
        if f.deck:
            _draw_card(f)
        elif f.discard:
            f.phase = "shuffle_deck"
            f.card_due = True
            return
    _start_turn(f, _next_alive(f, f.current))


def _deck_shuffled(f: Fast, perm: list[int]) -> None:
    source = board.CARD_IDS if f.turn == 0 else f.discard
    f.deck = tuple(source[i] for i in perm)
    f.discard = ()
    f.deck_shuffles += 1
    if f.turn == 0:
        _start_turn(f, f.first_player)
        return
    _draw_card(f)
    _start_turn(f, _next_alive(f, f.current))


def _attack(f: Fast, frm: int, to: int, dice: int) -> None:
    defender = f.owner[to]
    max_def = min(MAX_DEFENDER_DICE, f.cubes[to])
    f.attacks += 1
    if f.options.defender_chooses_dice and max_def > 1:
        f.battle = [frm, to, defender, dice, None, None]
        f.phase = "defend"
    else:
        f.battle = [frm, to, defender, dice, max_def, None]
        f.phase = "roll"


def _rolled(f: Fast, values: tuple[int, ...]) -> None:
    b = f.battle
    assert b is not None
    if b[5] is None:
        b[5] = values
        return
    inst_losses = def_losses = 0  # combat.compare: highest against highest, ties defend
    for x, y in zip(sorted(b[5], reverse=True), sorted(values, reverse=True)):  # noqa: B905
        if x > y:
            def_losses += 1
        else:
            inst_losses += 1
    frm, to, defender, dice = b[0], b[1], b[2], b[3]
    cubes = f.cubes
    cubes[frm] -= inst_losses
    cubes[to] -= def_losses
    if cubes[to] > 0:
        _enter_attack(f)
        return
    seat = f.current  # conquer (NY-9)
    f.owner[to] = seat
    f.mine[defender].remove(to)
    f.enemies.clear()
    insort(f.mine[seat], to)
    cubes[to] = dice
    cubes[frm] -= dice
    f.conquered = True
    f.battle = None
    if not f.mine[defender]:  # NY-7
        cards = f.hands[defender]
        f.hands[defender] = ()
        if f.options.eliminated_cards == "eliminator":
            f.hands[seat] = f.hands[seat] + cards
        else:
            f.discard = f.discard + cards
        f.eliminated.append((defender, seat, f.turn))
    reason = _has_won(f, seat)  # NY-12
    if reason is not None:
        _finish(f, seat, reason)
        return
    if cubes[frm] > 1:
        f.phase = "move_in"
        f.move_in = [frm, to, dice]
        return
    _enter_attack(f)


def _counts(lo: int, hi: int) -> tuple[int, ...]:
    return (lo,) if lo == hi else (lo, hi)


CARD_ORDER = {c: k for k, c in enumerate(board.CARD_IDS)}
KINDS = ("squirrel", "rat", "pigeon", "wild")  # legal.KINDS
KIND_INDEX = {k: i for i, k in enumerate(KINDS)}


def _pattern_is_set(pattern: tuple[str, ...]) -> bool:
    """board.is_set for three different cards of these pests."""
    pests = [k for k in pattern if k != "wild"]
    return len(pests) < 3 or len(set(pests)) in (1, 3)


# legal._canonical_trades' pests patterns that make a set: (the pests' indices, how many of
# each pest), in combinations_with_replacement order
PATTERNS = tuple(
    (tuple(KIND_INDEX[k] for k in p), tuple(p.count(k) for k in KINDS))
    for p in combinations_with_replacement(KINDS, 3) if _pattern_is_set(p))


@lru_cache(maxsize=4096)
def _trades(hand: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """legal.canonical_trades (the same sets in the same order): per pattern of pests the
    lowest card ids of each pest."""
    if len(hand) < 3:
        return ()
    by_kind: list[list[str]] = [[], [], [], []]
    for c in sorted(hand, key=CARD_ORDER.__getitem__):
        by_kind[KIND_INDEX[board.CARD_PEST[c]]].append(c)
    have = [len(cards) for cards in by_kind]
    out = []
    for kinds, need in PATTERNS:
        if need[0] > have[0] or need[1] > have[1] or need[2] > have[2] or need[3] > have[3]:
            continue
        used = [0, 0, 0, 0]
        triple = []
        for k in kinds:
            triple.append(by_kind[k][used[k]])
            used[k] += 1
        out.append(tuple(triple))
    return tuple(out)


def _pick(f: Fast, seat: int, below: Any) -> tuple[Any, ...]:
    """``rng.choice(legal.legal_actions(...))`` as a tuple: the options are counted, one is
    drawn and only that one is built (attacks, placements and free moves are many)."""
    phase = f.phase
    owner, cubes = f.owner, f.cubes
    if phase == "attack":
        adj, enemy_cache = f.adj, f.enemies
        rows = []  # (from, enemy neighbours, dice choices, options) in legal_actions' order
        total = 1
        for i in f.mine[seat]:
            c = cubes[i]
            if c < 2:
                continue
            enemies = enemy_cache.get(i)
            if enemies is None:
                enemies = enemy_cache[i] = [j for j in adj[i] if owner[j] != seat]
            if enemies:
                top = c - 1 if c <= MAX_INSTIGATOR_DICE else MAX_INSTIGATOR_DICE
                w = top * len(enemies)
                rows.append((i, enemies, top, w))
                total += w
        k = below(total)
        if k == 0:
            return ("end_attack",)
        k -= 1
        for i, enemies, top, w in rows:
            if k < w:
                return ("attack", i, enemies[k // top], k % top + 1)
            k -= w
        raise AssertionError("unreachable")
    if phase == "reinforce":
        trades = _trades(f.hands[seat])
        if _must_trade(f, seat):
            return ("trade", trades[below(len(trades))])
        counts = _counts(1, f.pool)
        mine = f.mine[seat]
        k = below(len(trades) + len(mine) * len(counts))
        if k < len(trades):
            return ("trade", trades[k])
        k -= len(trades)
        return ("place", mine[k // len(counts)], counts[k % len(counts)])
    if phase == "fortify":
        adj = f.adj
        frows = []  # (from, own neighbours, counts)
        total = 1
        for i in f.mine[seat]:
            if cubes[i] >= 2:
                friends = [j for j in adj[i] if owner[j] == seat]
                if friends:
                    counts = _counts(1, cubes[i] - 1)
                    frows.append((i, friends, counts))
                    total += len(friends) * len(counts)
        k = below(total)
        if k == 0:
            return ("end_turn",)
        k -= 1
        for i, friends, counts in frows:
            if k < len(friends) * len(counts):
                return ("fortify", i, friends[k // len(counts)], counts[k % len(counts)])
            k -= len(friends) * len(counts)
        raise AssertionError("unreachable")
    if phase == "defend":
        assert f.battle is not None
        return ("defend", below(min(MAX_DEFENDER_DICE, cubes[f.battle[1]])) + 1)
    legal = _legal(f, seat)
    act: tuple[Any, ...] = legal[below(len(legal))]
    return act


def _legal(f: Fast, seat: int) -> list[tuple[Any, ...]]:
    """legal.legal_actions as tuples, in its order (the phases with few options)."""
    if f.phase == "setup_place":
        return [("place", i, 1) for i in f.mine[seat]]
    if f.phase == "defend":
        assert f.battle is not None
        return [("defend", d)
                for d in range(1, min(MAX_DEFENDER_DICE, f.cubes[f.battle[1]]) + 1)]
    m = f.move_in  # "move_in"
    assert m is not None
    return [("move_in", n) for n in _counts(m[2], m[2] + f.cubes[m[0]] - 1)]


def _json(act: tuple[Any, ...]) -> Json:
    kind = act[0]
    if kind == "attack":
        return {"type": "attack", "from": NB_IDS[act[1]], "to": NB_IDS[act[2]], "dice": act[3]}
    if kind == "place":
        return {"type": "place", "nb": NB_IDS[act[1]], "n": act[2]}
    if kind == "fortify":
        return {"type": "fortify", "from": NB_IDS[act[1]], "to": NB_IDS[act[2]], "n": act[3]}
    if kind == "trade":
        return {"type": "trade", "cards": list(act[1])}
    if kind in ("defend", "move_in"):
        return {"type": kind, "dice" if kind == "defend" else "n": act[1]}
    return END_ATTACK if kind == "end_attack" else END_TURN


def _act(f: Fast, seat: int, act: tuple[Any, ...]) -> None:
    kind = act[0]
    if kind == "attack":
        _attack(f, act[1], act[2], act[3])
    elif kind == "end_attack":
        _enter_fortify(f)
    elif kind == "place":
        if f.phase == "setup_place":
            _setup_place(f, seat, act[1])
            return
        f.cubes[act[1]] += act[2]  # NY-11
        f.pool -= act[2]
        if f.pool == 0:
            _enter_attack(f)
    elif kind == "fortify":  # NY-10
        f.cubes[act[1]] -= act[3]
        f.cubes[act[2]] += act[3]
        _end_turn(f)
    elif kind == "end_turn":
        _end_turn(f)
    elif kind == "trade":
        _trade(f, seat, act[1])
    elif kind == "defend":
        assert f.battle is not None
        f.battle[4] = act[1]
        f.phase = "roll"
    else:  # move_in (NY-9)
        m = f.move_in
        assert m is not None
        extra = act[1] - m[2]
        f.cubes[m[0]] -= extra
        f.cubes[m[1]] += extra
        f.move_in = None
        _enter_attack(f)


# ---------------------------------------------------------------------------- playouts


def playout(f: Fast, rng: random.Random, key: bytes, max_steps: int = 100_000,
            on_step: OnStep | None = None) -> FastPlayout:
    """Play ``f`` on (in place) with random seats to the end or ``max_steps`` moves."""
    # rng.choice(seq) is seq[rng._randbelow(len(seq))] (CPython 3.11-3.13): the same draws
    # as _kit.playout's random seats (the property test pins it)
    below = rng._randbelow  # type: ignore[attr-defined]
    out = FastPlayout(state=f)
    move: FastMove = ("", None, None)
    getrandbits = rng.getrandbits
    dice = dice_drawer(key)
    for _ in range(max_steps):
        phase = f.phase
        if phase == "roll":
            b = f.battle
            assert b is not None
            role, count = ("instigator", b[3]) if b[5] is None else ("defender", b[4])
            label = f"dice:turn:{f.turn}:attack:{f.attacks}:{role}"
            values = tuple(dice(label, 6, count))
            if on_step is not None:
                move = ("chance", label, values)
            _rolled(f, values)
        elif phase in TURN_PHASES:
            while getrandbits(1):  # play's rng.choice of the one awaited seat: below(1)
                pass
            if phase == "defend":
                assert f.battle is not None
                seat = f.battle[2]
            else:
                seat = f.current
            act = _pick(f, seat, below)
            if on_step is not None:
                move = ("act", seat, _json(act))
            _act(f, seat, act)
        elif phase == "over":
            out.finished = True
            break
        else:
            if phase == "shuffle_deck":  # NY-2
                label = f"deck:draw:shuffle:{f.deck_shuffles}"
                perm = draw(key, label, "shuffle",
                            len(board.CARD_IDS) if f.turn == 0 else len(f.discard))
                _deck_shuffled(f, perm)
            elif phase == "first_player":  # NY-1
                label = LABEL_FIRST
                perm = draw(key, label, "below", f.n)
                _first_player(f, perm[0])
            elif phase == "deal":
                label = LABEL_DEAL
                perm = draw(key, label, "shuffle", N_NB)
                _deal(f, perm)
            else:  # deal_missions (NY-12)
                label = LABEL_MISSIONS
                perm = draw(key, label, "shuffle", len(data.MISSIONS))
                f.missions = tuple(board.MISSION_IDS[perm[s]] for s in range(f.n))
                f.phase = "setup_place"
            if on_step is not None:
                move = ("chance", label, tuple(perm))
        out.steps += 1
        if on_step is not None:
            on_step(f, move)
    return out


play_random = random_player(setup, playout)
