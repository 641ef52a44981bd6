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
from shared.rules.empire_nyc.combat import MAX_INSTIGATOR_DICE, max_defender_dice
from shared.rules.empire_nyc.state import NycState
from shared.rules.empire_nyc.turns import adj, must_trade, owned

KINDS = ("squirrel", "rat", "pigeon", "wild")


def awaited(state: NycState) -> int | None:
    """The seat the current Turn waits for, if the node is a Turn."""
    if state.phase in ("setup_place", "reinforce", "attack", "move_in", "fortify"):
        return state.current
    if state.phase == "defend" and state.battle is not None:
        return state.battle.defender
    return None


def canonical_trades(hand: tuple[str, ...]) -> list[tuple[str, str, str]]:
    return list(_canonical_trades(hand if type(hand) is tuple else tuple(hand)))


@lru_cache(maxsize=4096)  # hands recur from move to move (bounded: hostile input)
def _canonical_trades(hand: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    by_kind: dict[str, list[str]] = {k: [] for k in KINDS}
    for c in sorted(hand, key=board.CARD_IDS.index):
        by_kind[board.CARD_PEST[c]].append(c)
    out: list[tuple[str, str, str]] = []
    for pattern in combinations_with_replacement(KINDS, 3):
        if any(pattern.count(k) > len(by_kind[k]) for k in KINDS):
            continue
        used = {k: 0 for k in KINDS}
        cards: list[str] = []
        for k in pattern:
            cards.append(by_kind[k][used[k]])
            used[k] += 1
        triple = (cards[0], cards[1], cards[2])
        if board.is_set(triple):
            out.append(triple)
    return tuple(out)


def _counts(lo: int, hi: int) -> list[int]:
    return [lo] if lo == hi else [lo, hi]


def legal_actions(state: NycState, seat: int) -> list[Json]:
    if awaited(state) != seat:
        return []
    a = board.sorted_adjacency(state.options.extra_links)
    mine = owned(state, seat)
    out: list[Json] = []
    if state.phase == "setup_place":
        return [{"type": "place", "nb": board.NB_IDS[i], "n": 1} for i in mine]
    if state.phase == "reinforce":
        out += [{"type": "trade", "cards": list(t)} for t in canonical_trades(state.hands[seat])]
        if must_trade(state, seat):
            return out
        for i in mine:
            out += [
                {"type": "place", "nb": board.NB_IDS[i], "n": n} for n in _counts(1, state.pool)
            ]
        return out
    if state.phase == "attack":
        out.append({"type": "end_attack"})
        for i in mine:
            top = min(MAX_INSTIGATOR_DICE, state.cubes[i] - 1)
            for j in a[i]:
                if state.owner[j] != seat:
                    out += [
                        {
                            "type": "attack",
                            "from": board.NB_IDS[i],
                            "to": board.NB_IDS[j],
                            "dice": d,
                        }
                        for d in range(1, top + 1)
                    ]
        return out
    if state.phase == "defend" and state.battle is not None:
        top = max_defender_dice(state.cubes[state.battle.to])
        return [{"type": "defend", "dice": d} for d in range(1, top + 1)]
    if state.phase == "move_in" and state.move_in is not None:
        m = state.move_in
        most = m.moved + state.cubes[m.frm] - 1
        return [{"type": "move_in", "n": n} for n in _counts(m.moved, most)]
    if state.phase == "fortify":
        out.append({"type": "end_turn"})
        for i in mine:
            if state.cubes[i] < 2:
                continue
            for j in a[i]:
                if state.owner[j] == seat:
                    out += [
                        {"type": "fortify", "from": board.NB_IDS[i], "to": board.NB_IDS[j], "n": n}
                        for n in _counts(1, state.cubes[i] - 1)
                    ]
        return out
    return out  # pragma: no cover - every awaited phase is handled above


def default_action(state: NycState, seat: int) -> Json:
    """Timeout choice: the cautious option (stop attacking, no free move, fewest cubes moved,
    defend with the most dice); reinforcements all go to one frontier neighborhood."""
    legal = legal_actions(state, seat)
    if not legal:
        return {"type": "end_turn"}
    if state.phase == "reinforce":
        if must_trade(state, seat):
            return legal[0]
        a = adj(state)
        mine = owned(state, seat)
        front = [i for i in mine if any(state.owner[j] != seat for j in a[i])] or mine
        return {"type": "place", "nb": board.NB_IDS[front[0]], "n": state.pool}
    if state.phase == "defend":
        return legal[-1]
    return legal[0]
