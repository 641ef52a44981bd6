"""The stored form of a state: the JSON of ``GAME.encode`` and what ``GAME.decode`` reads.

These frozen models are the schema of stored games (the adjudicator's documents, the upgrade
fixtures): ``encode`` builds them from a ``state.NycState`` and dumps them, ``decode``
validates JSON with them and builds the plain state. The rules never see them.
"""

from __future__ import annotations

from shared.rules._kit.model import Frozen, construct
from shared.rules.empire_nyc import state as st
from shared.rules.empire_nyc.state import NycOptions, Phase, WinReason


class Battle(Frozen):
    """One roll of an attack in progress."""

    frm: int
    to: int
    defender: int
    dice: int
    def_dice: int | None = None
    inst_roll: tuple[int, ...] | None = None


class MoveIn(Frozen):
    """A conquest whose move-in is pending: ``moved`` cubes are already in (NY-9)."""

    frm: int
    to: int
    moved: int


class Elimination(Frozen):
    seat: int
    by: int
    turn: int


class NycState(Frozen):
    n_seats: int
    options: NycOptions
    phase: Phase
    first_player: int = -1
    order: tuple[int, ...] = ()
    owner: tuple[int, ...] = ()
    cubes: tuple[int, ...] = ()
    to_place: tuple[int, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()
    missions: tuple[str, ...] = ()
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    deck_shuffles: int = 0
    card_due: bool = False
    sets_traded: int = 0
    current: int = -1
    turn: int = 0
    round: int = 0
    pool: int = 0
    attacks: int = 0
    conquered: bool = False
    battle: Battle | None = None
    move_in: MoveIn | None = None
    eliminated: tuple[Elimination, ...] = ()
    winner: int | None = None
    win_reason: WinReason | None = None


def to_stored(s: st.NycState) -> NycState:
    b, m = s.battle, s.move_in
    return construct(
        NycState, n_seats=s.n_seats, options=s.options, phase=s.phase,
        first_player=s.first_player, order=s.order, owner=s.owner, cubes=s.cubes,
        to_place=s.to_place, hands=s.hands, missions=s.missions, deck=s.deck,
        discard=s.discard, deck_shuffles=s.deck_shuffles, card_due=s.card_due,
        sets_traded=s.sets_traded, current=s.current, turn=s.turn, round=s.round,
        pool=s.pool, attacks=s.attacks, conquered=s.conquered,
        battle=None if b is None else construct(
            Battle, frm=b.frm, to=b.to, defender=b.defender, dice=b.dice,
            def_dice=b.def_dice, inst_roll=b.inst_roll),
        move_in=None if m is None else construct(MoveIn, frm=m.frm, to=m.to, moved=m.moved),
        eliminated=tuple(construct(Elimination, seat=e.seat, by=e.by, turn=e.turn)
                         for e in s.eliminated),
        winner=s.winner, win_reason=s.win_reason)


def from_stored(s: NycState) -> st.NycState:
    b, m = s.battle, s.move_in
    return st.NycState(
        n_seats=s.n_seats, options=s.options, phase=s.phase, first_player=s.first_player,
        order=s.order, owner=s.owner, cubes=s.cubes, to_place=s.to_place, hands=s.hands,
        missions=s.missions, deck=s.deck, discard=s.discard, deck_shuffles=s.deck_shuffles,
        card_due=s.card_due, sets_traded=s.sets_traded, current=s.current, turn=s.turn,
        round=s.round, pool=s.pool, attacks=s.attacks, conquered=s.conquered,
        battle=None if b is None else st.Battle(b.frm, b.to, b.defender, b.dice, b.def_dice,
                                                 b.inst_roll),
        move_in=None if m is None else st.MoveIn(m.frm, m.to, m.moved),
        eliminated=tuple(st.Elimination(e.seat, e.by, e.turn) for e in s.eliminated),
        winner=s.winner, win_reason=s.win_reason)
