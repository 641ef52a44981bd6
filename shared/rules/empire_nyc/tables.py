"""The listed actions that repeat from list to list, made once: the lists share them (callers
read a listed action and never change it, as the kit's memo hands one list out repeatedly).

Attacks are listed by their neighborhood's set of enemy neighbours (a bit mask,
``board.NEIGHBOURS``), which ``holdings.Holdings.front`` looks up once per map and seat.
"""

from __future__ import annotations

from shared.rules.api import Json
from shared.rules.empire_nyc import board

MAX_INSTIGATOR_DICE = 3  # NY-8
MAX_DEFENDER_DICE = 2  # NY-8
NB_IDS = board.NB_IDS
# reinforcements of more cubes than this are listed as new dicts (``place``)
PLACE_TABLE_MAX = 64

END_ATTACK: Json = {"type": "end_attack"}
END_TURN: Json = {"type": "end_turn"}
DEFENDS: tuple[Json, ...] = tuple({"type": "defend", "dice": d}
                                  for d in range(1, MAX_DEFENDER_DICE + 1))


def _attack_rows(frm: int, to: int) -> tuple[tuple[Json, ...], ...]:
    """The attacks from ``frm`` on ``to`` indexed by the most dice allowed: with 1 die
    only, with 1 or 2, with 1 to 3 (NY-8)."""
    each: tuple[Json, ...] = tuple(
        {"type": "attack", "from": NB_IDS[frm], "to": NB_IDS[to], "dice": d}
        for d in range(1, MAX_INSTIGATOR_DICE + 1))
    return tuple(each[:top] for top in range(MAX_INSTIGATOR_DICE + 1))


# per neighborhood: per neighbour (any link, NY-14 included) its ``_attack_rows``
ATTACKS: tuple[dict[int, tuple[tuple[Json, ...], ...]], ...] = tuple(
    {j: _attack_rows(i, j) for j in sorted(links)} for i, links in enumerate(board.ADJ_EXTRA))


def _attack_table(i: int) -> dict[int, tuple[tuple[Json, ...], ...]]:
    """For each set of neighbours of ``i`` (its mask, ``board.NEIGHBOURS``), the attacks
    from ``i`` on them, in index order, indexed by the most dice allowed."""
    rows = ATTACKS[i]
    return {mask: tuple(tuple(a for j in targets for a in rows[j][top])
                        for top in range(MAX_INSTIGATOR_DICE + 1))
            for mask, targets in board.NEIGHBOURS[i].items()}


# per neighborhood: per mask of enemy neighbours, the attacks on them by the most dice allowed
ATTACK_SETS: tuple[dict[int, tuple[tuple[Json, ...], ...]], ...] = tuple(
    _attack_table(i) for i in range(board.N_NB))
# per neighborhood: per neighbour the free move of 1 cube (NY-10)
FORTIFY_ONE: tuple[dict[int, Json], ...] = tuple(
    {j: {"type": "fortify", "from": NB_IDS[i], "to": NB_IDS[j], "n": 1} for j in sorted(links)}
    for i, links in enumerate(board.ADJ_EXTRA))
# per neighborhood: its reinforcements of n cubes for n < ``PLACE_TABLE_MAX`` (n = 0 unused)
PLACE_N: tuple[tuple[Json, ...], ...] = tuple(
    tuple({"type": "place", "nb": nb, "n": n} for n in range(PLACE_TABLE_MAX)) for nb in NB_IDS)
PLACE_ONE: tuple[Json, ...] = tuple(row[1] for row in PLACE_N)
# per n < ``PLACE_TABLE_MAX``: per neighborhood its reinforcements of 1 and of n cubes
PLACE_PAIRS: tuple[tuple[tuple[Json, Json], ...], ...] = tuple(
    tuple((one, row[n]) for one, row in zip(PLACE_ONE, PLACE_N, strict=True))
    for n in range(PLACE_TABLE_MAX))


def place(nb: int, n: int) -> Json:
    """The listed reinforcement of ``n`` cubes on ``nb``."""
    return PLACE_N[nb][n] if n < PLACE_TABLE_MAX else {"type": "place", "nb": NB_IDS[nb], "n": n}
