"""Empire The Card Game on a compact state, for playouts (issue 22; see ``_kit/fast.py``).

The hot part of a hand runs on plain tuples and lists: the active player's turn (draw, steal
CG-15, trade CG-5, battle CG-6 .. CG-8, armies CG-9, discard/disband, the 2's sabotage CG-14,
the turn order CG-4, the run-out refill CG-12, short draws and the deck rebuild CG-18). The
moves that change the rarer parts of the state (empire, Barbarian and Serf sets CG-10 ..
CG-13 with their tribute and gift, the Expert spells CG-17, winning a hand and its rewards
CG-19, the dealer and the deal CG-2/CG-3/CG-S3/CG-S4, the last turn before the hand cap
CG-S1) are played by the contract path itself: ``to_state``, ``game.apply``, ``from_state``
(about 2% of a random game's moves). The same seat and legal-action index are drawn either
way, so the moves are the contract path's moves; ``tests/property/test_fast_engines.py``
proves it move by move.

A player is kept in four lists indexed by seat (``hands``, ``armies``, ``discards``,
``skips``) whose entries are the model's own immutable tuples, replaced when they change
(hands stay sorted as ``cards.sorted_cards`` keeps them, so one pass groups a hand by rank);
what only the rare moves change (empire sets, regime, specials, the ledger, options, spells,
rewards) stays on the ``base`` model. What a turn's legal list reads of a hand or an army is
memoized on it (bounded caches). A rules change goes into both paths.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from itertools import groupby
from operator import itemgetter
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
    label,
    rank_of,
    regime_of_rank,
    remove_cards,
    sorted_cards,
    suit_of,
)
from shared.rules.empire_cards.combat import battle_sets, battle_winner
from shared.rules.empire_cards.data import (
    BARBARIAN_RANKS,
    EMPIRE_SETS_TO_WIN,
    PACKS_BY_SEATS,
    RANKS,
    REGIME_BONUS,
    REGIME_RANKS,
    REGIMES,
    RUNOUT_DRAW,
    SPECIAL_SET_SIZE,
    SUITS,
    WIZARD,
    deck_cards,
)
from shared.rules.empire_cards.engine import EmpireCardsGame
from shared.rules.empire_cards.match import has_won_condition
from shared.rules.empire_cards.sets import (
    _by_rank,
    army_addition_options,
    new_army_options,
    plunderable_sets,
    run_options,
)
from shared.rules.empire_cards.state import Battle, Owed, State, Trade

GAME = EmpireCardsGame()
# the phases the compact path plays (with no spell under way and no draw owed)
COMPACT_PHASES = frozenset({"play", "trade_reply", "battle_attack", "battle_defend",
                            "battle_give", "sabotage"})
DEMANDS = {"rank": (*((r, None) for r in RANKS), (WIZARD, None)),
           "rank_suit": (*((r, s) for r in RANKS for s in SUITS), (WIZARD, None))}


class Fast:
    """The compact state (mutable; only this module's playout changes it)."""

    __slots__ = ("active", "armies", "base", "battle", "cap", "deck", "discards", "drawn",
                 "hands", "interactions", "n", "owed", "phase", "rebuilds", "skips", "trade",
                 "turn_no", "won")

    def __init__(self, state: State) -> None:
        self.load(state)

    def load(self, state: State) -> None:
        players = state.players
        self.base = state
        self.n = state.n_seats
        self.cap = state.options.hand_turn_limit(state.n_seats)
        self.phase = state.phase
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
        self.hands = [p.hand for p in players]
        self.armies = [p.army for p in players]  # tuples of sets, replaced on change
        self.discards = [p.discard for p in players]
        self.skips = [p.skip_pending for p in players]
        self.won = [has_won_condition(p) for p in players]  # CG-12 (rare moves change it)
        self.owed = [(o.seat, o.count) for o in state.owed]  # CG-18
        self.rebuilds = state.rebuilds


def from_state(state: State) -> Fast:
    return Fast(state)


def to_state(f: Fast) -> State:
    base = f.base
    players = tuple(
        p.model_copy(update={"hand": f.hands[i], "army": f.armies[i],
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


def _first_round(f: Fast) -> bool:
    return f.turn_no < f.n  # CG-1


def _interaction_allowed(f: Fast, kind: str) -> bool:
    """turn.interaction_allowed (CG-4, CG-13)."""
    if f.turn_no < f.n:
        return False
    p = f.base.players[f.active]
    extra = REGIME_BONUS[p.regime] if p.regime and len(p.empire_sets) >= 2 else None
    used = (*f.interactions, kind)
    slots = 2 if extra else 1
    return len(used) <= slots and sum(1 for k in used if k != extra) <= 1


_ALLOWED_NONE: frozenset[str] = frozenset()


@lru_cache(maxsize=1024)
def _allowed(used: tuple[str, ...], extra: str | None) -> frozenset[str]:
    """The interactions turn.interaction_allowed grants after ``used`` (past CG-1's round),
    ``extra`` the regime's second one (CG-13)."""
    slots = 2 if extra else 1
    return frozenset(kind for kind in ("steal", "trade", "battle")
                     if len(used) + 1 <= slots
                     and sum(1 for k in (*used, kind) if k != extra) <= 1)


@lru_cache(maxsize=8192)
def _army_info(army: tuple[tuple[str, ...], ...]) -> tuple[
        tuple[int, ...], tuple[tuple[int, str, int], ...], tuple[tuple[int, str], ...]]:
    """An army's battle sets (combat.battle_sets), the sets one may build onto: (index, rank,
    size) of each regime-rank set (sets.army_addition_options), and its disband choices."""
    addable = tuple((i, rank_of(s[0]), len(s)) for i, s in enumerate(army)
                    if regime_of_rank(rank_of(s[0])) is not None)
    disbands = tuple((i, c) for i, cards in enumerate(army) for c in distinct_by_label(cards))
    return battle_sets(army), addable, disbands


def _add(f: Fast, seat: int, cards: tuple[str, ...]) -> None:
    f.hands[seat] = sorted_cards(f.hands[seat] + cards)


def _take(f: Fast, seat: int, card: str) -> None:
    f.hands[seat] = remove_cards(f.hands[seat], (card,))


def _pool(f: Fast) -> tuple[str, ...]:
    """ops.rebuild_pool (CG-18): every discard pile but its top card, in seat order."""
    return tuple(card for pile in f.discards for card in pile[:-1])


def _draw(f: Fast, seat: int, count: int) -> None:
    """ops.draw_cards: what the deck has; the rest owed until the rebuild (CG-18), or lost
    when no discard pile can rebuild it."""
    cards, f.deck = f.deck[:count], f.deck[count:]
    if cards:
        _add(f, seat, cards)
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


def _disband(f: Fast, owner: int, index: int, card: str) -> None:
    army = f.armies[owner]
    rest = remove_cards(army[index], (card,))
    if len(rest) <= 1:
        f.armies[owner] = army[:index] + army[index + 1:]
        f.hands[owner] = sorted_cards(f.hands[owner] + rest)
    else:
        f.armies[owner] = (*army[:index], rest, *army[index + 1:])


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
    if rank_of(card) == "2" and f.turn_no >= f.n:  # CG-14 (CG-12's win is a rare move)
        f.phase = "sabotage"
    else:
        _end_turn(f)


def _candidates(f: Fast) -> tuple[str, ...]:
    b = f.battle
    assert b is not None
    rank, suit = b[2], b[3]
    return tuple(c for c in f.hands[b[1]]
                 if rank_of(c) == rank and (suit is None or suit_of(c) == suit))


def _after_attack_set(f: Fast) -> None:
    b = f.battle
    assert b is not None
    options = battle_sets(f.armies[b[1]])
    if len(options) <= 1:
        _resolve(f, options[0] if options else None)
    else:
        f.phase = "battle_defend"


def _resolve(f: Fast, defend_set: int | None) -> None:
    b = f.battle
    assert b is not None and b[4] is not None
    attack = f.armies[b[0]][b[4]]
    defence = None if defend_set is None else f.armies[b[1]][defend_set]
    if battle_winner(attack, defence) == "defender":  # CG-8
        f.battle = None
        f.phase = "play"
        return
    candidates = _candidates(f)
    if len(distinct_by_label(candidates)) == 1:
        _give(f, candidates[0])
    else:
        f.phase = "battle_give"


def _give(f: Fast, card: str) -> None:
    b = f.battle
    assert b is not None
    _take(f, b[1], card)
    _add(f, b[0], (card,))
    f.battle = None
    f.phase = "play"


# ------------------------------------------------------------ legal actions, by index

# An action is built only once chosen: the legal list is a sequence of segments (count,
# build(i) -> the action, compact: whether this module plays it), in legal.py's order.
Segment = tuple[int, Callable[[int], Json], bool]


def _not_built(i: int) -> Json:
    raise AssertionError("the contract path plays this move")


_NOT_BUILT = _not_built


# sets.py's options, memoized on the part of the hand they read (a rank's cards recur far
# more often than whole hands); bounded like sets.py's own caches
@lru_cache(maxsize=8192)
def _new_sets(rank: str, cards: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """sets.new_army_options for one rank group."""
    return tuple(new_army_options(cards))


@lru_cache(maxsize=8192)
def _additions(cards: tuple[str, ...], size: int) -> tuple[tuple[str, ...], ...]:
    """sets.army_addition_options for a set of ``size`` cards of the group's rank."""
    return tuple(c for _, c in army_addition_options(cards, (cards[:1] * size,))) \
        if cards else ()


@lru_cache(maxsize=8192)
def _runs(sub: tuple[str, ...], ranks: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """sets.run_options of a hand from the cards it reads (those ranks and the Wizards)."""
    return tuple(run_options(sub, ranks))


Cards = tuple[str, ...]
_RANK = {c: rank_of(c) for c in deck_cards(max(PACKS_BY_SEATS.values()))}
_LABEL = {c: label(c) for c in _RANK}


_SUIT = {c: suit_of(c) for c in _RANK}
_RANK_OF = _RANK.__getitem__
_LABEL_OF = _LABEL.__getitem__


@lru_cache(maxsize=8192)
def _hand_info(hand: Cards, regimes: tuple[str, ...]) -> tuple[
        Cards, tuple[Cards, ...], dict[str, Cards], int]:
    """What legal.play_actions reads of a hand (read-only): one card per label, the new army
    sets (sets.new_army_options), the rank groups, and how many empire (of ``regimes``),
    Barbarian and Serf choices it has (the contract path plays those: only their count)."""
    try:  # hands are kept sorted (cards.sorted_cards): a rank's cards, and a label's, are
        # next to each other; the first card of each label is the last one seen backwards
        groups = {rank: tuple(cards) for rank, cards in groupby(hand, _RANK_OF)}
        back = hand[::-1]
        distinct = tuple(reversed(dict(zip(map(_LABEL_OF, back), back, strict=True)).values()))
    except KeyError:  # not a card of this game: the plain helpers
        groups, distinct = _by_rank(hand), distinct_by_label(hand)
    new = tuple(c for rank, cards in groups.items() for c in _new_sets(rank, cards))
    return distinct, new, groups, _hand_sets(hand, groups, regimes)


def _hand_sets(hand: Cards, groups: dict[str, Cards], regimes: tuple[str, ...]) -> int:
    """How many empire (sets.empire_options), Barbarian and Serf choices a hand has."""
    wizards = groups.get(WIZARD, ())
    out = 0
    get = groups.get
    for regime in regimes:
        out += _run_count(get, wizards, REGIME_RANKS[regime])  # type: ignore[index]
    if len(hand) >= SPECIAL_SET_SIZE:  # a Barbarian or Serf set is 12 cards
        out += _run_count(get, wizards, BARBARIAN_RANKS)
        w = len(wizards)  # sets.serf_options: a suit with a natural, topped up with Wizards
        try:
            suits = Counter(map(_SUIT_OF, hand))
        except KeyError:  # not a card of this game
            suits = Counter(map(suit_of, hand))
        for suit, k in suits.items():
            if suit is not None and min(k, SPECIAL_SET_SIZE) + w >= SPECIAL_SET_SIZE:
                out += 1
    return out


def _run_count(get: Callable[[str], Cards | None], wizards: Cards,
               ranks: tuple[str, ...]) -> int:
    """len(sets.run_options(hand, ranks)) from the hand's rank groups."""
    parts = [get(r) for r in ranks]
    if parts.count(None) > len(wizards):  # neither run can be made
        return 0
    sub = tuple(c for part in parts if part for c in part) + wizards
    return len(_runs(sub, ranks))


_SUIT_OF = _SUIT.__getitem__


def _draw_action(i: int) -> Json:
    return {"type": "draw"}


def _pass_action(i: int) -> Json:
    return {"type": "pass"}


def _addition(adds: list[tuple[int, tuple[Cards, ...]]], i: int) -> Json:
    """The ``i``-th army addition of ``adds`` (set index, its options), in order."""
    for index, options in adds:
        if i < len(options):
            return {"type": "army", "cards": list(options[i]), "set": index}
        i -= len(options)
    raise IndexError(i)


def _play_segments(f: Fast) -> list[Segment]:
    """legal.play_actions, segment by segment."""
    seat, n = f.active, f.n
    base = f.base
    p = base.players[seat]
    hand, army = f.hands[seat], f.armies[seat]
    drawn = f.drawn
    out: list[Segment] = []
    if not drawn:
        out.append((1, _draw_action, True))
    allowed = _ALLOWED_NONE if f.turn_no < n else _allowed(
        f.interactions, REGIME_BONUS[p.regime] if p.regime and len(p.empire_sets) >= 2
        else None)
    battles, addable, disbands = _army_info(army)
    if "steal" in allowed:  # CG-15: a pile's top card but a 2 or a Wizard
        own = base.options.steal_own_pile
        ts = [t for t, pile in enumerate(f.discards)
              if pile and rank_of(pile[-1]) not in ("2", WIZARD) and (own or t != seat)]
        out.append((len(ts), lambda i: {"type": "steal", "target": ts[i]}, True))
    regimes = ((p.regime,) if p.regime else REGIMES) \
        if len(p.empire_sets) < EMPIRE_SETS_TO_WIN else ()
    distinct, new, groups, sets = _hand_info(hand, regimes)
    if "trade" in allowed:
        others = [t for t in range(n) if t != seat and f.hands[t]]
        k = len(distinct)
        out.append((len(others) * k, lambda i: {"type": "trade", "target": others[i // k],
                                                "card": distinct[i % k]}, True))
    if battles and "battle" in allowed:
        demands = DEMANDS[base.options.battle_demand]
        foes = [t for t in range(n) if t != seat]
        m = len(demands)  # (closures see the last value of a name: one name per segment)
        out.append((len(foes) * m, lambda i: {"type": "battle", "target": foes[i // m],
                                              "rank": demands[i % m][0],
                                              "suit": demands[i % m][1]}, True))
    out.append((len(new), lambda i: {"type": "army", "cards": list(new[i]), "set": None},
                True))
    adds: list[tuple[int, tuple[Cards, ...]]] = []
    n_adds = 0
    for index, rank, size in addable:
        cards = groups.get(rank)
        if cards:
            options = _additions(cards, size)
            adds.append((index, options))
            n_adds += len(options)
    out.append((n_adds, lambda i: _addition(adds, i), True))
    if f.turn_no >= n or base.options.first_round_sets:  # CG-1
        out.append((sets, _NOT_BUILT, False))
    if drawn:
        k_hand = len(distinct)
        ends = k_hand + len(disbands)
        won = f.won[seat]  # CG-12: a win is a rare move
        if ends:
            out.append((ends, lambda i: {"type": "discard", "card": distinct[i]} if i < k_hand
                        else {"type": "disband", "set": disbands[i - k_hand][0],
                              "card": disbands[i - k_hand][1]}, not won))
        else:
            out.append((1, _pass_action, not won))
        if base.options.expert_spells and f.turn_no >= n:  # spells.can_cast (CG-17)
            # a spell per card with another Wizard in hand: every card with two Wizards,
            # every card but the Wizard with one (the contract path plays it: its count)
            wizards = len(groups.get(WIZARD, ()))
            out.append((len(distinct) if wizards > 1 else len(distinct) - 1 if wizards else 0,
                        _not_built, False))
    return out


def _segments(f: Fast, seat: int) -> list[Segment]:
    phase = f.phase
    if phase == "play":
        return _play_segments(f)
    if phase == "trade_reply":
        cards = distinct_by_label(f.hands[seat])
        return [(len(cards), lambda i: {"type": "trade_reply", "card": cards[i]}, True)]
    if phase in ("battle_attack", "battle_defend"):
        sets = battle_sets(f.armies[seat])
        return [(len(sets), lambda i: {"type": "battle_set", "set": sets[i]}, True)]
    if phase == "battle_give":
        cards = distinct_by_label(_candidates(f))
        return [(len(cards), lambda i: {"type": "battle_give", "card": cards[i]}, True)]
    # sabotage (CG-14)
    out: list[Json] = [{"type": "sabotage_none"}]
    out += [{"type": "sabotage_skip", "target": t} for t in range(f.n)
            if t != seat and not f.skips[t]]
    for t, army in enumerate(f.armies):
        out += [{"type": "sabotage_take", "target": t, "set": i, "card": c}
                for i in plunderable_sets(army) for c in distinct_by_label(army[i])]
    return [(len(out), lambda i: out[i], True)]


_COUNT = itemgetter(0)


def _locate(segments: list[Segment], index: int) -> tuple[Callable[[int], Json], int, bool]:
    """The segment holding the legal action at ``index``, and the index within it."""
    for count, build, compact in segments:
        if index < count:
            return build, index, compact
        index -= count
    raise IndexError(index)


def _act(f: Fast, seat: int, action: Any) -> None:
    """One compact move (engine._dispatch, then ops.runout_refill)."""
    kind = action["type"]
    before = list(f.hands)
    if kind == "draw":
        f.drawn = True
        _draw(f, f.active, 1)
    elif kind == "steal":  # CG-15
        t = action["target"]
        pile = f.discards[t]
        f.discards[t] = pile[:-1]
        f.interactions = (*f.interactions, "steal")
        _add(f, f.active, (pile[-1],))
    elif kind == "trade":  # CG-5
        t, card = action["target"], action["card"]
        _take(f, seat, card)
        f.interactions = (*f.interactions, "trade")
        _add(f, t, (card,))
        f.phase, f.trade = "trade_reply", (seat, t, card)
    elif kind == "trade_reply":
        trade = f.trade
        assert trade is not None
        _take(f, trade[1], action["card"])
        _add(f, trade[0], (action["card"],))
        f.phase, f.trade = "play", None
    elif kind == "battle":  # CG-6, CG-20: the engine answers for the defender
        t, rank, suit = action["target"], action["rank"], action["suit"]
        f.interactions = (*f.interactions, "battle")
        if any(rank_of(c) == rank and (suit is None or suit_of(c) == suit)
               for c in f.hands[t]):
            f.battle = [seat, t, rank, suit, None]
            options = battle_sets(f.armies[seat])
            if len(options) == 1:
                f.battle[4] = options[0]
                _after_attack_set(f)
            else:
                f.phase = "battle_attack"
    elif kind == "battle_set":
        assert f.battle is not None
        if f.phase == "battle_attack":
            f.battle[4] = action["set"]
            _after_attack_set(f)
        else:
            _resolve(f, action["set"])
    elif kind == "battle_give":
        _give(f, action["card"])
    elif kind == "army":  # CG-9
        cards = tuple(action["cards"])
        army = f.armies[seat]
        i = action["set"]
        if i is None:
            f.armies[seat] = (*army, sorted_cards(cards))
        else:
            f.armies[seat] = (*army[:i], sorted_cards(army[i] + cards), *army[i + 1:])
        f.hands[seat] = remove_cards(f.hands[seat], cards)
    elif kind == "discard":
        card = action["card"]
        _take(f, seat, card)
        f.discards[seat] = (*f.discards[seat], card)
        _after_discard(f, card)
    elif kind == "disband":
        card = action["card"]
        _disband(f, seat, action["set"], card)
        f.discards[seat] = (*f.discards[seat], card)
        _after_discard(f, card)
    elif kind == "pass":
        _end_turn(f)
    elif kind == "sabotage_skip":
        f.skips[action["target"]] = True
        _end_turn(f)
    elif kind == "sabotage_take":
        _disband(f, action["target"], action["set"], action["card"])
        _add(f, seat, (action["card"],))
        _end_turn(f)
    else:  # sabotage_none
        _end_turn(f)
    if f.phase != "trade_reply" and not all(f.hands):  # ops.runout_refill (CG-12)
        for s, was in enumerate(before):
            if was and not f.hands[s] and not any(o[0] == s for o in f.owed):
                _draw(f, s, RUNOUT_DRAW)


def _compact_turn(f: Fast) -> bool:
    """Whether this node is a Turn the compact path may play (if the chosen action is)."""
    if f.phase not in COMPACT_PHASES or f.owed or f.base.spell is not None:
        return False
    return f.cap is None or f.turn_no + 1 < f.cap  # CG-S1 ends the hand: a rare move


def _awaited(f: Fast) -> int:
    phase = f.phase
    if phase == "trade_reply":
        assert f.trade is not None
        return f.trade[1]
    if phase == "battle_attack":
        assert f.battle is not None
        return f.battle[0]  # type: ignore[no-any-return]
    if phase in ("battle_defend", "battle_give"):
        assert f.battle is not None
        return f.battle[1]  # type: ignore[no-any-return]
    return f.active


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
    for _ in range(max_steps):
        move: FastMove | None
        if f.owed and f.phase != "over":  # CG-18: the rebuild shuffle (secret)
            label = f"hand:{f.base.hand_no}:rebuild:{f.rebuilds}"
            perm = shuffle(label, len(_pool(f)))
            _rebuild(f, perm)
            move = ("chance", label, tuple(perm))
        elif _compact_turn(f):
            seat = _awaited(f)
            while getrandbits(1):  # rng.choice over the one awaited seat: _randbelow(1)
                pass
            segments = _segments(f, seat)
            index = below(sum(map(_COUNT, segments)))
            build, i, compact = _locate(segments, index)
            if compact:
                action = build(i)
                _act(f, seat, action)
                move = ("act", seat, action)
            else:
                move = _model_move(f, below, key, seat, index)
        else:
            move = _model_move(f, below, key, None, None)
        if move is None:
            out.finished = True
            break
        out.steps += 1
        if on_step is not None:
            on_step(f, move)
    return out


play_random = random_player(lambda options, n_seats: Fast(GAME.setup(options, n_seats)), playout)
