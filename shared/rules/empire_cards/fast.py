"""Empire The Card Game on a compact state, for playouts (issue 22; see ``_kit/fast.py``).

The hot part of a hand runs on plain lists: the active player's turn (draw, steal CG-15,
trade CG-5, battle CG-6 .. CG-8, armies CG-9, discard/disband, the 2's sabotage CG-14, the
turn order CG-4, the run-out refill CG-12, short draws and the deck rebuild CG-18). The moves
that change the rarer parts of the state (empire, Barbarian and Serf sets CG-10 .. CG-13 with
their tribute and gift, the Expert spells CG-17, winning a hand and its rewards CG-19, the
dealer and the deal CG-2/CG-3/CG-S3/CG-S4, the last turn before the hand cap CG-S1) are
played by the contract path itself: ``to_state``, ``game.apply``, ``from_state`` (about 2% of
a random game's moves). The same seat and legal-action index are drawn either way, so the
moves are the contract path's moves; ``tests/property/test_fast_engines.py`` proves it move
by move.

A player's hand is a ``Hand``: its cards as a list kept in ``cards.sorted_cards``' order, and
counts kept up to date per card moved (``Hand.put``/``Hand.take``): per label, per rank (one
small integer per rank, the rank's label counts in base 4), per suit, the number of distinct
labels and of new army sets (CG-9). A turn's legal list is never built: its length is the sum
of option counts read from those (trade, battle, new sets, additions, empire/Barbarian/Serf
runs, discards, spells: tables indexed by a rank's integer), one index is drawn, and only the
action at that index is built. The other per-seat parts (``armies``, ``discards``, ``skips``)
are the model's own immutable tuples, replaced when they change; what only the rare moves
change (empire sets, regime, specials, the ledger, options, spells, rewards) stays on the
``base`` model. ``tests/property/test_fast_engines.py`` also checks every count against a
recount of the hand after every move. A rules change goes into both paths.
"""

from __future__ import annotations

import random
from bisect import bisect_left, insort
from collections.abc import Callable
from functools import lru_cache
from itertools import product
from typing import Any

from shared.fairness.draws import draw
from shared.rules._kit.fast import (
    FastMove,
    FastPlayout,
    OnStep,
    random_player,
    shuffle_drawer,
)
from shared.rules._kit.model import construct
from shared.rules._kit.playout import apply_or_raise
from shared.rules.api import (
    Act,
    Chance,
    ChanceOutcome,
    JointAction,
    Json,
    Simultaneous,
    Terminal,
)
from shared.rules.empire_cards.cards import (
    distinct_by_label,
    rank_of,
    remove_cards,
    sort_key,
    sorted_cards,
    suit_of,
)
from shared.rules.empire_cards.combat import battle_winner
from shared.rules.empire_cards.data import (
    ARMY_MAX,
    BARBARIAN_RANKS,
    EMPIRE_SETS_TO_WIN,
    FIRST_SET_DRAW,
    HAND_SIZE,
    PACKS_BY_SEATS,
    RANKS,
    REGIME_BONUS,
    REGIME_RANKS,
    REGIMES,
    RUNOUT_DRAW,
    SAME_SUIT_DRAW,
    SPECIAL_SET_SIZE,
    SUITS,
    WIZARD,
    Regime,
    deck_cards,
)
from shared.rules.empire_cards.engine import EmpireCardsGame
from shared.rules.empire_cards.match import has_won_condition
from shared.rules.empire_cards.sets import (
    army_addition_options,
    empire_options,
    is_battle_set,
    is_four_twos,
    is_grail,
    new_army_options,
    same_suit_bonus,
)
from shared.rules.empire_cards.state import Battle, Owed, State, Trade

GAME = EmpireCardsGame()
DEMANDS = {"rank": (*((r, None) for r in RANKS), (WIZARD, None)),
           "rank_suit": (*((r, s) for r in RANKS for s in SUITS), (WIZARD, None))}

Cards = tuple[str, ...]

# ------------------------------------------------------------------ cards as small integers

# Every card code of any table (3 packs), in sorted_cards' order (sort_key is a total order).
_ALL = tuple(sorted(deck_cards(max(PACKS_BY_SEATS.values())), key=sort_key))
_ORD = {c: i for i, c in enumerate(_ALL)}
_ORD_OF = _ORD.__getitem__
_RANK = {c: rank_of(c) for c in _ALL}
_RANK_OF = _RANK.__getitem__
_SUIT = {c: suit_of(c) for c in _ALL}
W_RANK = len(RANKS)  # 13: the Wizards' rank id
W_LABEL = 4 * W_RANK  # 52: the Wizards' one label
_RID = {**{r: i for i, r in enumerate(RANKS)}, WIZARD: W_RANK}  # rank -> rank id (2 = 0)
_RANK_START = [min(i for i, c in enumerate(_ALL) if _RID[_RANK[c]] == r)
               for r in range(W_RANK + 1)]  # the sort position of a rank's first card
# card -> label id: rank id * 4 + suit index for a natural, 52 for a Wizard
_LID = {c: 4 * _RID[_RANK[c]] + (0 if s is None else SUITS.index(s)) for c, s in _SUIT.items()}
# A rank's code: the sum of its label counts c_i * 4**i (suit i, at most 3 packs: c_i <= 3);
# the Wizards' code is their count.
_STEP = [4 ** (lid & 3) for lid in range(W_LABEL)] + [1]
_MAX_WIZARDS = 2 * max(PACKS_BY_SEATS.values())
_CODES = range(4 ** 4)


def _counts(code: int) -> tuple[int, ...]:
    return tuple((code >> 2 * i) & 3 for i in range(4))


def _multisets(code: int, size: int) -> int:
    """How many distinct multisets of ``size`` labels a rank of label counts ``code`` holds
    (sets._label_combos: one combination per distinct multiset of labels)."""
    counts = _counts(code)
    return sum(1 for xs in product(*(range(c + 1) for c in counts)) if sum(xs) == size)


# new army sets (sets.new_army_options, CG-9) per rank code: 2-4 of a regime rank, four 2s,
# four Wizards
_NEW_REGIME = [sum(_multisets(code, k) for k in (2, 3, 4)) for code in _CODES]
_NEW_TWOS = [_multisets(code, 4) for code in _CODES]
_NEW_WIZARDS = [int(w >= 4) for w in range(_MAX_WIZARDS + 1)]
_NEW = [_NEW_TWOS, *([_NEW_REGIME] * (W_RANK - 1)), _NEW_WIZARDS]
# additions onto a set of ``size`` cards of the rank (sets.army_addition_options): 1 .. 4-size
_ADD = [[sum(_multisets(code, k) for k in range(1, ARMY_MAX - size + 1)) for code in _CODES]
        for size in range(ARMY_MAX + 1)]
# a rank code's suits present as a bit mask, a mask's lowest suit and its number of suits
_MASK = [sum(1 << i for i, c in enumerate(_counts(code)) if c) for code in _CODES]
_LOW = [(m & -m).bit_length() - 1 for m in range(16)]
_POP = [m.bit_count() for m in range(16)]
# the runs a hand keeps counts of: each regime's empire set (REGIMES' order), the Barbarian
BARBARIAN = len(REGIMES)
_RUN_RIDS = (*(tuple(_RID[r] for r in REGIME_RANKS[regime]) for regime in REGIMES),
             tuple(_RID[r] for r in BARBARIAN_RANKS))
_REGIME_OF_RID = [next((g for g, rids in enumerate(_RUN_RIDS[:BARBARIAN]) if r in rids), -1)
                  for r in range(W_RANK + 1)]
_REGIME_ID = {regime: g for g, regime in enumerate(REGIMES)}
_ALL_REGIMES = tuple(range(len(REGIMES)))


def _run_count(rc: list[int], rids: tuple[int, ...]) -> int:
    """len(sets.run_options(hand, ranks)) from the hand's rank codes: one per suit with a
    natural of every rank, and the fewest-Wizards run (the lowest card of each rank, Wizards
    for the missing ranks) unless it is one of those."""
    common, missing, low, same = 15, 0, -1, True
    for r in rids:
        m = _MASK[rc[r]]
        if not m:
            missing += 1
            continue
        common &= m
        first = _LOW[m]
        if low < 0:
            low = first
        elif first != low:
            same = False
    if missing:
        return int(missing <= rc[W_RANK])
    return _POP[common] + (not same)


class Hand:
    """A hand (sorted card list) and its counts, kept up to date per card moved."""

    __slots__ = ("cards", "k", "lab", "new", "rc", "runs", "suits")

    def __init__(self, cards: Cards) -> None:
        self.cards: list[str] = list(cards)
        self.lab = [0] * (W_LABEL + 1)  # per label id
        self.rc = [0] * (W_RANK + 1)  # per rank id: the rank code
        self.suits = [0, 0, 0, 0]  # naturals per suit (sets.serf_options)
        self.k = 0  # distinct labels
        self.new = 0  # new army sets (sets.new_army_options)
        # runs per regime and the Barbarian's (_RUN_RIDS), None once a suit of one of their
        # ranks or the Wizards change
        self.runs: list[int | None] = [None, None, None, None]
        for card in cards:
            self._count(card)

    def _count(self, card: str) -> None:
        lid = _LID[card]
        lab = self.lab
        c = lab[lid]
        lab[lid] = c + 1
        r = lid >> 2
        rc = self.rc
        old = rc[r]
        rc[r] = code = old + _STEP[lid]
        table = _NEW[r]
        self.new += table[code] - table[old]
        if lid == W_LABEL:
            self.runs = [None, None, None, None]
        else:
            self.suits[lid & 3] += 1
        if not c:
            self.k += 1
            if 0 < r < W_RANK:
                runs = self.runs
                runs[_REGIME_OF_RID[r]] = runs[BARBARIAN] = None

    def put(self, card: str) -> None:
        insort(self.cards, card, key=_ORD_OF)
        self._count(card)

    def take(self, card: str) -> None:
        self.cards.remove(card)
        lid = _LID[card]
        lab = self.lab
        c = lab[lid] - 1
        lab[lid] = c
        r = lid >> 2
        rc = self.rc
        old = rc[r]
        rc[r] = code = old - _STEP[lid]
        table = _NEW[r]
        self.new += table[code] - table[old]
        if lid == W_LABEL:
            self.runs = [None, None, None, None]
        else:
            self.suits[lid & 3] -= 1
        if not c:
            self.k -= 1
            if 0 < r < W_RANK:
                runs = self.runs
                runs[_REGIME_OF_RID[r]] = runs[BARBARIAN] = None

    def distinct(self) -> list[str]:
        """One card per label (cards.distinct_by_label): the first of each, in order."""
        out: list[str] = []
        last = -1
        lid = _LID
        for card in self.cards:
            i = lid[card]
            if i != last:
                out.append(card)
                last = i
        return out

    def rank_cards(self, rid: int) -> Cards:
        """The hand's cards of rank id ``rid``, in order (next to each other)."""
        cards = self.cards
        lo = bisect_left(cards, _RANK_START[rid], key=_ORD_OF)
        return tuple(cards[lo:lo + sum(self.lab[4 * rid:4 * rid + 4])])

    def sets(self, regimes: tuple[int, ...]) -> int:
        """How many empire (of the regime ids ``regimes``), Barbarian and Serf choices the
        hand has (sets.empire_options, barbarian_options, serf_options: the contract path
        plays those, so only their count)."""
        runs, rc = self.runs, self.rc
        out = 0
        for g in regimes:
            count = runs[g]
            if count is None:
                count = runs[g] = _run_count(rc, _RUN_RIDS[g])
            out += count
        if len(self.cards) >= SPECIAL_SET_SIZE:  # a Barbarian run or a Serf set is 12 cards
            count = runs[BARBARIAN]
            if count is None:
                count = runs[BARBARIAN] = _run_count(rc, _RUN_RIDS[BARBARIAN])
            out += count
            w = rc[W_RANK]  # a Serf set: a suit with a natural, topped up with Wizards
            for k in self.suits:
                if k and min(k, SPECIAL_SET_SIZE) + w >= SPECIAL_SET_SIZE:
                    out += 1
        return out


class Fast:
    """The compact state (mutable; only this module's playout changes it)."""

    __slots__ = ("active", "ainfo", "armies", "base", "battle", "cap", "deck", "demands",
                 "discards",
                 "drawn", "expert", "extra", "first_sets", "hands", "interactions", "n",
                 "owed", "phase", "rebuilds", "regimes", "skips", "spell", "steal_own", "trade",
                 "turn_no", "won")

    def __init__(self, state: State) -> None:
        self.load(state)

    def load(self, state: State) -> None:
        players = state.players
        options = state.options
        self.base = state
        self.n = state.n_seats
        self.cap = options.hand_turn_limit(state.n_seats)
        self.steal_own = options.steal_own_pile
        self.demands = DEMANDS[options.battle_demand]
        self.first_sets = options.first_round_sets
        self.expert = options.expert_spells
        self.phase = state.phase
        self.spell = state.spell is not None  # CG-17: a spell under way (the contract's)
        self.active = state.active
        self.turn_no = state.turn_no
        self.deck = state.deck
        self.drawn = state.drawn
        self.interactions = state.interactions
        t = state.trade
        self.trade = None if t is None else (t.initiator, t.target, t.card)
        b = state.battle
        self.battle: list[Any] | None = (
            None if b is None else [b.attacker, b.defender, b.rank, b.suit, b.attack_set])
        self.hands = [Hand(p.hand) for p in players]
        self.armies = [p.army for p in players]  # tuples of sets, replaced on change
        # each army's _army_info, None once the army changes (_set_army)
        self.ainfo: list[ArmyInfo | None] = [None] * self.n
        self.discards = [p.discard for p in players]
        self.skips = [p.skip_pending for p in players]
        self.won = [has_won_condition(p) for p in players]  # CG-12 (rare moves change it)
        # the regime's second interaction (CG-13) and the regimes a seat may still build
        self.extra = [REGIME_BONUS[p.regime] if p.regime and len(p.empire_sets) >= 2 else None
                      for p in players]
        self.regimes = [((_REGIME_ID[p.regime],) if p.regime else _ALL_REGIMES)
                        if len(p.empire_sets) < EMPIRE_SETS_TO_WIN else () for p in players]
        self.owed = [(o.seat, o.count) for o in state.owed]  # CG-18
        self.rebuilds = state.rebuilds


def from_state(state: State) -> Fast:
    return Fast(state)


def to_state(f: Fast) -> State:
    base = f.base
    players = tuple(
        p.model_copy(update={"hand": tuple(f.hands[i].cards), "army": f.armies[i],
                             "discard": f.discards[i], "skip_pending": f.skips[i]})
        for i, p in enumerate(base.players))
    t, b = f.trade, f.battle
    return base.model_copy(update={
        "phase": f.phase, "active": f.active, "turn_no": f.turn_no, "deck": f.deck,
        "players": players, "drawn": f.drawn, "interactions": f.interactions,
        "owed": tuple(construct(Owed, seat=s, count=c) for s, c in f.owed),
        "rebuilds": f.rebuilds,
        "trade": None if t is None else construct(Trade, initiator=t[0], target=t[1],
                                                  card=t[2]),
        "battle": None if b is None else construct(Battle, attacker=b[0], defender=b[1],
                                                   rank=b[2], suit=b[3], attack_set=b[4])})


# ---------------------------------------------------------------------------- the rules


_ALLOWED_NONE: frozenset[str] = frozenset()


@lru_cache(maxsize=1024)
def _allowed(used: tuple[str, ...], extra: str | None) -> frozenset[str]:
    """The interactions turn.interaction_allowed grants after ``used`` (past CG-1's round),
    ``extra`` the regime's second one (CG-13)."""
    slots = 2 if extra else 1
    return frozenset(kind for kind in ("steal", "trade", "battle")
                     if len(used) + 1 <= slots
                     and sum(1 for k in (*used, kind) if k != extra) <= 1)


# an army's battle sets, the sets one may build onto (index, rank id, size), its disbands
# (index, card) and what another seat's 2 may take from it (index, card)
ArmyInfo = tuple[list[int], list[tuple[int, int, int]], list[tuple[int, str]],
                 list[tuple[int, str]]]


@lru_cache(maxsize=8192)
def _set_info(cards: Cards) -> tuple[int, bool, bool, bool, Cards]:
    """An army set's rank id, whether it battles (sets.is_battle_set, CG-8), is four 2s
    (sets.army_protected, CG-14), is the Holy Grail (sets.is_grail), and its cards one per
    label (cards.distinct_by_label)."""
    return (_RID[_RANK_OF(cards[0])] if cards else -1, is_battle_set(cards),
            is_four_twos(cards), is_grail(cards), distinct_by_label(cards))


def _army_info(army: tuple[Cards, ...]) -> ArmyInfo:
    """An army's battle sets (combat.battle_sets), the sets one may build onto: (index, rank
    id, size) of each regime-rank set (sets.army_addition_options), its disband choices and
    its sabotage takes (sets.plunderable_sets)."""
    battles: list[int] = []
    addable: list[tuple[int, int, int]] = []
    disbands: list[tuple[int, str]] = []
    takes: list[tuple[int, str]] = []
    protected = False
    for i, cards in enumerate(army):
        rid, battle, twos, grail, labels = _set_info(cards)
        if battle:
            battles.append(i)
        if 0 < rid < W_RANK:
            addable.append((i, rid, len(cards)))
        protected = protected or twos
        for card in labels:
            disbands.append((i, card))
            if not grail:
                takes.append((i, card))
    return battles, addable, disbands, [] if protected else takes


def _info(f: Fast, seat: int) -> ArmyInfo:
    info = f.ainfo[seat]
    if info is None:
        info = f.ainfo[seat] = _army_info(f.armies[seat])
    return info


def _set_army(f: Fast, seat: int, army: tuple[Cards, ...]) -> None:
    f.armies[seat] = army
    f.ainfo[seat] = None


def _pool(f: Fast) -> Cards:
    """ops.rebuild_pool (CG-18): every discard pile but its top card, in seat order."""
    return tuple(card for pile in f.discards for card in pile[:-1])


def _draw(f: Fast, seat: int, count: int) -> None:
    """ops.draw_cards: what the deck has; the rest owed until the rebuild (CG-18), or lost
    when no discard pile can rebuild it."""
    cards, f.deck = f.deck[:count], f.deck[count:]
    put = f.hands[seat].put
    for card in cards:
        put(card)
    short = count - len(cards)
    if short > 0 and any(len(pile) > 1 for pile in f.discards):
        f.owed.append((seat, short))


def _rebuild(f: Fast, perm: list[int]) -> None:
    """ops.rebuild_deck: the shuffled pool, then the owed draws in order."""
    pool = _pool(f)
    f.deck = tuple(pool[i] for i in perm)
    f.discards = [pile[-1:] for pile in f.discards]
    owed, f.owed = f.owed, []
    f.rebuilds += 1
    for seat, count in owed:
        _draw(f, seat, count)


def _deal(f: Fast, perm: list[int]) -> None:
    """match.deal: the shuffled cards, ten to each seat from the dealer on (CG-2)."""
    cards = deck_cards(PACKS_BY_SEATS[f.n])
    deck = tuple(cards[i] for i in perm)
    f.deck = deck[HAND_SIZE * f.n:]
    dealer = f.base.dealer
    for k in range(f.n):
        put = f.hands[(dealer + k) % f.n].put
        for card in deck[k * HAND_SIZE:(k + 1) * HAND_SIZE]:
            put(card)
    f.phase = "grab" if f.base.options.perfect_deal else "play"  # CG-S4: the grab first


def _disband(f: Fast, owner: int, index: int, card: str) -> None:
    army = f.armies[owner]
    rest = remove_cards(army[index], (card,))
    if len(rest) <= 1:
        _set_army(f, owner, army[:index] + army[index + 1:])
        for c in rest:
            f.hands[owner].put(c)
    else:
        _set_army(f, owner, (*army[:index], rest, *army[index + 1:]))


def _empire(f: Fast, seat: int, regime: Regime, cards: Cards) -> None:
    """turn.do_empire for a first or second set: the regime (CG-10), the first set's draw
    (CG-13) and the same-suit bonus (CG-11)."""
    h = f.hands[seat]
    for card in cards:
        h.take(card)
    base = f.base
    players = list(base.players)
    p = players[seat]
    players[seat] = p.model_copy(update={"empire_sets": (*p.empire_sets, cards),
                                         "regime": regime})
    f.base = base.model_copy(update={"players": tuple(players)})
    f.regimes[seat] = (_REGIME_ID[regime],)
    if p.empire_sets:  # the second set: the regime's extra interaction (CG-13)
        f.extra[seat] = REGIME_BONUS[regime]
    else:
        _draw(f, seat, FIRST_SET_DRAW)
    if same_suit_bonus(cards):
        _draw(f, seat, SAME_SUIT_DRAW)


def _end_turn(f: Fast) -> None:
    """match.end_turn short of the hand cap (CG-S1 is a rare move)."""
    f.turn_no += 1
    f.drawn = False
    f.interactions = ()
    f.trade = None
    f.battle = None
    seat = f.active
    skips = f.skips
    for _ in range(f.n):
        seat = (seat + 1) % f.n
        if not skips[seat]:
            break
        skips[seat] = False  # CG-14
    f.active = seat
    f.phase = "play"


def _after_discard(f: Fast, card: str) -> None:
    if _RANK_OF(card) == "2" and f.turn_no >= f.n:  # CG-14 (CG-12's win is a rare move)
        f.phase = "sabotage"
    else:
        _end_turn(f)


def _candidates(f: Fast) -> Cards:
    b = f.battle
    assert b is not None
    rank, suit = b[2], b[3]
    return tuple(c for c in f.hands[b[1]].cards
                 if _RANK_OF(c) == rank and (suit is None or _SUIT[c] == suit))


def _after_attack_set(f: Fast) -> int:
    """The defender's set, chosen if it has one or none; the seat that gave a card or -1."""
    b = f.battle
    assert b is not None
    options = _info(f, b[1])[0]
    if len(options) <= 1:
        return _resolve(f, options[0] if options else None)
    f.phase = "battle_defend"
    return -1


def _resolve(f: Fast, defend_set: int | None) -> int:
    """CG-8's winner; the defender gives a card it has one label of; the seat that gave a
    card or -1."""
    b = f.battle
    assert b is not None and b[4] is not None
    attack = f.armies[b[0]][b[4]]
    defence = None if defend_set is None else f.armies[b[1]][defend_set]
    if battle_winner(attack, defence) == "defender":  # CG-8
        f.battle = None
        f.phase = "play"
        return -1
    candidates = _candidates(f)
    if len(distinct_by_label(candidates)) == 1:
        return _give(f, candidates[0])
    f.phase = "battle_give"
    return -1


def _give(f: Fast, card: str) -> int:
    b = f.battle
    assert b is not None
    f.hands[b[1]].take(card)
    f.hands[b[0]].put(card)
    f.battle = None
    f.phase = "play"
    return b[1]  # type: ignore[no-any-return]


# ------------------------------------------------------------ legal actions, by index

# sets.py's options, memoized on the rank group they read; built only for the action drawn
@lru_cache(maxsize=8192)
def _new_sets(cards: Cards) -> tuple[Cards, ...]:
    """sets.new_army_options for one rank group."""
    return tuple(new_army_options(cards))


@lru_cache(maxsize=8192)
def _additions(cards: Cards, size: int) -> tuple[Cards, ...]:
    """sets.army_addition_options for a set of ``size`` cards of the group's rank."""
    return tuple(c for _, c in army_addition_options(cards, (cards[:1] * size,))) \
        if cards else ()


def _play(f: Fast, below: Callable[[int], int]) -> Json | int:
    """legal.play_actions: its length from the counts, one index drawn, and the action at
    that index if this module plays it, else the index (the contract path plays it)."""
    seat, n = f.active, f.n
    h = f.hands[seat]
    k = h.k
    drawn = f.drawn
    past_first = f.turn_no >= n  # CG-1
    allowed = _allowed(f.interactions, f.extra[seat]) if past_first else _ALLOWED_NONE
    battles, addable, disbands, _ = _info(f, seat)
    total = 0 if drawn else 1  # draw
    steals: list[int] = []
    if "steal" in allowed:  # CG-15: a pile's top card but a 2 or a Wizard
        own = f.steal_own
        steals = [t for t, pile in enumerate(f.discards)
                  if pile and _RANK_OF(pile[-1]) not in ("2", WIZARD) and (own or t != seat)]
        total += len(steals)
    traders: list[int] = []
    if "trade" in allowed:
        traders = [t for t, other in enumerate(f.hands) if t != seat and other.cards]
        total += len(traders) * k
    fights = (n - 1) * len(f.demands) if battles and "battle" in allowed else 0
    total += fights + h.new
    adds = 0
    if addable:
        rc = h.rc
        for _, r, size in addable:
            adds += _ADD[size][rc[r]]
        total += adds
    sets = h.sets(f.regimes[seat]) if past_first or f.first_sets else 0
    total += sets
    ends = spells = 0
    if drawn:
        ends = (k + len(disbands)) or 1  # discards and disbands, or the pass
        if f.expert and past_first:  # spells.can_cast (CG-17): a spell per card with
            # another Wizard in hand (every card with two Wizards, all but the Wizard with
            # one; the contract path plays it: its count)
            w = h.rc[W_RANK]
            spells = k if w > 1 else k - 1 if w else 0
        total += ends + spells
    index = i = below(total)
    if not drawn:
        if not i:
            return {"type": "draw"}
        i -= 1
    if i < len(steals):
        return {"type": "steal", "target": steals[i]}
    i -= len(steals)
    if traders:
        if i < len(traders) * k:
            return {"type": "trade", "target": traders[i // k], "card": h.distinct()[i % k]}
        i -= len(traders) * k
    if i < fights:
        demand = f.demands[i % len(f.demands)]
        others = [t for t in range(n) if t != seat]
        return {"type": "battle", "target": others[i // len(f.demands)], "rank": demand[0],
                "suit": demand[1]}
    i -= fights
    if i < h.new:
        rc, table = h.rc, _NEW
        for r in range(W_RANK + 1):
            count = table[r][rc[r]]
            if i < count:
                return {"type": "army", "cards": list(_new_sets(h.rank_cards(r))[i]),
                        "set": None}
            i -= count
        raise AssertionError("new army sets miscounted")
    i -= h.new
    if i < adds:
        rc = h.rc
        for index_, r, size in addable:
            count = _ADD[size][rc[r]]
            if i < count:
                return {"type": "army", "cards": list(_additions(h.rank_cards(r), size)[i]),
                        "set": index_}
            i -= count
        raise AssertionError("army additions miscounted")
    i -= adds
    if i < sets:
        p = f.base.players[seat]
        if len(p.empire_sets) < 2:  # a first or second empire set (the third's tribute,
            # the fourth's gift, Barbarian and Serf sets: the contract path's)
            for g in f.regimes[seat]:
                regime = REGIMES[g]
                options = empire_options(tuple(h.cards), regime)
                if i < len(options):
                    return {"type": "empire", "regime": regime, "cards": list(options[i])}
                i -= len(options)
        return index
    i -= sets
    if i < ends and not f.won[seat] and not _last_turn(f):  # a win (CG-12) and the end of
        # the hand's last turn (CG-S1) are rare moves
        if not k and not disbands:
            return {"type": "pass"}
        if i < k:
            return {"type": "discard", "card": h.distinct()[i]}
        set_, card = disbands[i - k]
        return {"type": "disband", "set": set_, "card": card}
    return index


def _sabotage(f: Fast, seat: int, below: Callable[[int], int]) -> Json:
    """The drawn one of legal._sabotage_actions (CG-14)."""
    skips = [t for t in range(f.n) if t != seat and not f.skips[t]]
    takes = [_info(f, t)[3] for t in range(f.n)]
    i = below(1 + len(skips) + sum(map(len, takes)))
    if not i:
        return {"type": "sabotage_none"}
    i -= 1
    if i < len(skips):
        return {"type": "sabotage_skip", "target": skips[i]}
    i -= len(skips)
    for t, options in enumerate(takes):
        if i < len(options):
            set_, card = options[i]
            return {"type": "sabotage_take", "target": t, "set": set_, "card": card}
        i -= len(options)
    raise AssertionError("sabotage miscounted")


def _choose(f: Fast, seat: int, below: Callable[[int], int]) -> Json | int:
    """The drawn legal action of ``seat`` (legal.legal_actions), or its index when the
    contract path plays it."""
    phase = f.phase
    if phase == "play":
        return _play(f, below)
    if phase == "trade_reply":
        labels = f.hands[seat].distinct()
        return {"type": "trade_reply", "card": labels[below(len(labels))]}
    if phase in ("battle_attack", "battle_defend"):
        sets = _info(f, seat)[0]
        return {"type": "battle_set", "set": sets[below(len(sets))]}
    if phase == "battle_give":
        cards = distinct_by_label(_candidates(f))
        return {"type": "battle_give", "card": cards[below(len(cards))]}
    return _sabotage(f, seat, below)


def _act(f: Fast, seat: int, action: Any) -> None:
    """One compact move (engine._dispatch, then ops.runout_refill)."""
    kind = action["type"]
    hands = f.hands
    loser = -1  # the seat whose hand lost cards (one at most in a compact move)
    if kind == "draw":
        f.drawn = True
        _draw(f, f.active, 1)
    elif kind == "battle":  # CG-6, CG-20: the engine answers for the defender
        t, rank, suit = action["target"], action["rank"], action["suit"]
        f.interactions = (*f.interactions, "battle")
        h = hands[t]
        rid = _RID[rank]
        if (h.rc[rid] if suit is None else h.lab[4 * rid + SUITS.index(suit)]):
            f.battle = [seat, t, rank, suit, None]
            options = _info(f, seat)[0]
            if len(options) == 1:
                f.battle[4] = options[0]
                loser = _after_attack_set(f)
            else:
                f.phase = "battle_attack"
    elif kind == "army":  # CG-9
        cards = tuple(action["cards"])
        army = f.armies[seat]
        i = action["set"]
        if i is None:
            _set_army(f, seat, (*army, sorted_cards(cards)))
        else:
            _set_army(f, seat, (*army[:i], sorted_cards(army[i] + cards), *army[i + 1:]))
        take = hands[seat].take
        for card in cards:
            take(card)
        loser = seat
    elif kind == "discard":
        card = action["card"]
        hands[seat].take(card)
        f.discards[seat] = (*f.discards[seat], card)
        _after_discard(f, card)
        loser = seat
    elif kind == "disband":
        card = action["card"]
        _disband(f, seat, action["set"], card)
        f.discards[seat] = (*f.discards[seat], card)
        _after_discard(f, card)
    elif kind == "battle_set":
        assert f.battle is not None
        if f.phase == "battle_attack":
            f.battle[4] = action["set"]
            loser = _after_attack_set(f)
        else:
            loser = _resolve(f, action["set"])
    elif kind == "trade":  # CG-5
        t, card = action["target"], action["card"]
        hands[seat].take(card)
        f.interactions = (*f.interactions, "trade")
        hands[t].put(card)
        f.phase, f.trade = "trade_reply", (seat, t, card)
        return  # no refill while the trade is open
    elif kind == "trade_reply":
        trade = f.trade
        assert trade is not None
        hands[trade[1]].take(action["card"])
        hands[trade[0]].put(action["card"])
        f.phase, f.trade = "play", None
        loser = trade[1]
    elif kind == "steal":  # CG-15
        t = action["target"]
        pile = f.discards[t]
        f.discards[t] = pile[:-1]
        f.interactions = (*f.interactions, "steal")
        hands[f.active].put(pile[-1])
    elif kind == "battle_give":
        loser = _give(f, action["card"])
    elif kind == "empire":  # CG-10 .. CG-13: a first or second empire set
        _empire(f, seat, action["regime"], sorted_cards(action["cards"]))
        loser = seat
    elif kind == "pass":
        _end_turn(f)
    elif kind == "sabotage_skip":
        f.skips[action["target"]] = True
        _end_turn(f)
    elif kind == "sabotage_take":
        _disband(f, action["target"], action["set"], action["card"])
        hands[seat].put(action["card"])
        _end_turn(f)
    else:  # sabotage_none
        _end_turn(f)
    # ops.runout_refill (CG-12): a hand this move emptied (the only hand that lost cards)
    if loser >= 0 and not hands[loser].cards and not any(o[0] == loser for o in f.owed):
        _draw(f, loser, RUNOUT_DRAW)


def _compact_turn(f: Fast) -> bool:
    """Whether this node is a Turn the compact path may play (if the chosen action is)."""
    return not f.owed and _turn_seat(f) >= 0


def _turn_seat(f: Fast) -> int:
    """The awaited seat of a Turn the compact path may play (no draw owed), or -1."""
    phase = f.phase
    if f.spell:  # CG-17: the contract path plays a spell to its end
        return -1
    if phase == "play":
        return f.active
    if phase == "trade_reply":
        assert f.trade is not None
        return f.trade[1]
    if phase in ("battle_defend", "battle_give"):
        assert f.battle is not None
        return f.battle[1]  # type: ignore[no-any-return]
    if phase == "battle_attack":
        assert f.battle is not None
        return f.battle[0]  # type: ignore[no-any-return]
    if phase == "sabotage" and not _last_turn(f):  # (in the last turn its end ends the hand)
        return f.active
    return -1


def _last_turn(f: Fast) -> bool:
    """Whether ending this turn ends the hand (CG-S1: a rare move, the contract path's)."""
    return f.cap is not None and f.turn_no + 1 >= f.cap


# ---------------------------------------------------------------------------- playouts


def _model_move(f: Fast, below: Callable[[int], int], key: bytes, seat: int | None,
                index: int | None) -> FastMove | None:
    """One move on the contract path (``_kit.playout.play``'s random seats); ``seat`` and
    ``index`` when the compact path has drawn them already. None at the end."""
    state = to_state(f)
    node = GAME.next(state)
    move: Any
    if isinstance(node, Terminal):
        return None
    if isinstance(node, Chance):
        values = draw(key, node.label, node.draw, node.n, node.count)
        move = construct(ChanceOutcome, label=node.label, values=tuple(values))
        fmove: FastMove = ("chance", node.label, tuple(values))
    elif isinstance(node, Simultaneous):
        choices: dict[str, Json] = {}
        for slot in node.slots:  # random_chooser: rng.choice(slot.allowed)
            allowed = list(slot.allowed or ())
            choices[slot.key] = allowed[below(len(allowed))] if allowed else slot.default
        move = JointAction(round_id=node.round_id, choices=choices)
        fmove = ("joint", node.round_id, choices)
    else:
        if seat is None:
            seats = list(node.seats)
            seat = seats[below(len(seats))]
        legal = list(GAME.legal_actions(state, seat))
        if index is None:
            index = below(len(legal))
        action = legal[index]
        move = Act(seat=seat, action=action)
        fmove = ("act", seat, action)
    f.load(apply_or_raise(GAME, state, move).state)
    return fmove


def playout(f: Fast, rng: random.Random, key: bytes, max_steps: int = 100_000,
            on_step: OnStep | None = None) -> FastPlayout:
    """Play ``f`` on (in place) with random seats to the end or ``max_steps`` moves."""
    # rng.choice(seq) is seq[rng._randbelow(len(seq))] (CPython 3.11-3.13), as in the
    # other fast engines
    below = rng._randbelow  # type: ignore[attr-defined]
    getrandbits = rng.getrandbits
    out = FastPlayout(state=f)
    shuffle = shuffle_drawer(key)
    steps = 0
    for _ in range(max_steps):
        move: FastMove | None
        if f.owed and f.phase != "over":  # CG-18: the rebuild shuffle (secret)
            label_ = f"hand:{f.base.hand_no}:rebuild:{f.rebuilds}"
            perm = shuffle(label_, len(_pool(f)))
            _rebuild(f, perm)
            move = ("chance", label_, tuple(perm))
        elif f.phase == "shuffle":  # CG-2: the deal (secret)
            label_ = f"hand:{f.base.hand_no}:deal"
            perm = shuffle(label_, len(f.deck))
            _deal(f, perm)
            move = ("chance", label_, tuple(perm))
        elif (seat := _turn_seat(f)) >= 0:
            while getrandbits(1):  # rng.choice over the one awaited seat: _randbelow(1)
                pass
            action = _choose(f, seat, below)
            if type(action) is int:
                move = _model_move(f, below, key, seat, action)
            else:
                _act(f, seat, action)
                move = ("act", seat, action)
        else:
            move = _model_move(f, below, key, None, None)
        if move is None:
            out.finished = True
            break
        steps += 1
        if on_step is not None:
            on_step(f, move)
    out.steps = steps
    return out


play_random = random_player(lambda options, n_seats: Fast(GAME.setup(options, n_seats)), playout)

