"""The stored form of a state: the JSON of ``GAME.encode`` and what ``GAME.decode`` reads.

These frozen models are the schema of stored games (the adjudicator's documents, the upgrade
fixtures): ``encode`` builds them from a ``state.State`` and dumps them, ``decode`` validates
JSON with them and builds the plain state. The rules never see them.
"""

from __future__ import annotations

from shared.rules._kit.model import Frozen, construct
from shared.rules.empire_engine import state as st
from shared.rules.empire_engine.data import Action, Boost, EngineName
from shared.rules.empire_engine.state import AttackStatus, Loot, Options, Phase


class Counts(Frozen):
    soldiers: int = 0
    goods: int = 0
    inventions: int = 0


class Player(Frozen):
    ready: Counts
    score: Counts
    engines: tuple[int, int] | None = None


class Placement(Frozen):
    seat: int
    order: int
    engine: EngineName
    gear: int | None = None
    boost: Boost = "none"
    turns: int | None = None
    top: Action
    overridden: bool = False


class Attack(Frozen):
    attacker: int
    engine: EngineName
    target: int
    status: AttackStatus
    loot: Loot | None = None


class State(Frozen):
    options: Options
    n_seats: int
    rounds: int
    round: int = 1
    start_player: int = 0
    phase: Phase
    players: tuple[Player, ...]
    placements: tuple[Placement, ...] = ()
    attacks: tuple[Attack, ...] = ()
    awaiting: tuple[int, ...] = ()
    supplied: Counts = Counts()
    returned: Counts = Counts()


def _counts(c: st.Counts) -> Counts:
    return construct(Counts, soldiers=c.soldiers, goods=c.goods, inventions=c.inventions)


def to_stored(s: st.State) -> State:
    return construct(
        State, options=s.options, n_seats=s.n_seats, rounds=s.rounds, round=s.round,
        start_player=s.start_player, phase=s.phase,
        players=tuple(construct(Player, ready=_counts(p.ready), score=_counts(p.score),
                                engines=p.engines) for p in s.players),
        placements=tuple(construct(Placement, **p.as_json()) for p in s.placements),
        attacks=tuple(construct(Attack, **a.as_json()) for a in s.attacks),
        awaiting=s.awaiting, supplied=_counts(s.supplied), returned=_counts(s.returned))


def _plain(c: Counts) -> st.Counts:
    return st.Counts(c.soldiers, c.goods, c.inventions)


def from_stored(s: State) -> st.State:
    return st.State(
        options=s.options, n_seats=s.n_seats, rounds=s.rounds, round=s.round,
        start_player=s.start_player, phase=s.phase,
        players=tuple(st.Player(_plain(p.ready), _plain(p.score), p.engines)
                      for p in s.players),
        placements=tuple(st.Placement(**dict(p)) for p in s.placements),
        attacks=tuple(st.Attack(**dict(a)) for a in s.attacks),
        awaiting=s.awaiting, supplied=_plain(s.supplied), returned=_plain(s.returned))
