"""What a seat may see: the table, its own hand, others' hand sizes only (CG-5, CG-16)."""

from __future__ import annotations

from shared.rules.api import Json
from shared.rules.empire_cards.combat import battle_sets
from shared.rules.empire_cards.data import REGIMES
from shared.rules.empire_cards.legal import awaited
from shared.rules.empire_cards.match import has_won_condition
from shared.rules.empire_cards.sets import army_protected
from shared.rules.empire_cards.state import Player, State


def _player(p: Player, seat: int) -> dict[str, Json]:
    return {
        "seat": seat,
        "hand_size": len(p.hand),
        "army": [list(s) for s in p.army],
        "battle_sets": list(battle_sets(p.army)),
        "army_protected": army_protected(p.army),
        "empire_sets": [list(s) for s in p.empire_sets],
        "regime": p.regime,
        "specials": [{"kind": s.kind, "cards": list(s.cards)} for s in p.specials],
        "can_win": has_won_condition(p),
        # CG-16: only the top card of a discard pile is visible (and the pile's height).
        "discard_top": p.discard[-1] if p.discard else None,
        "discard_size": len(p.discard),
        "skip_pending": p.skip_pending,
        "achievements": {r: p.achievements(r) for r in REGIMES},
        "hands_won": p.hands_won,
    }


def _pending(state: State, seat: int | None) -> dict[str, Json]:
    out: dict[str, Json] = {}
    if state.trade is not None:
        t = state.trade
        trade: dict[str, Json] = {"initiator": t.initiator, "target": t.target}
        if seat in (t.initiator, t.target):  # CG-5: only the two traders see the card
            trade["card"] = t.card
        out["trade"] = trade
    if state.battle is not None:
        b = state.battle
        out["battle"] = {
            "attacker": b.attacker,
            "defender": b.defender,
            "rank": b.rank,
            "suit": b.suit,
            "attack_set": b.attack_set,
        }
    if state.tribute_from:
        out["tribute"] = {"to": state.active, "owing": list(state.tribute_from)}
    if state.spell is not None:
        s = state.spell
        out["spell"] = {
            "kind": s.kind,
            "caster": s.caster,
            "stage": s.stage,
            "target": s.target,
            "done": list(s.done),  # opponents already handled (public: their events were)
            "n": s.n,
            "moved": s.moved,
        }
    if state.rewards:
        out["rewards"] = [{"kind": r.kind, "target": r.target} for r in state.rewards]
    return out


def view(state: State, seat: int | None) -> dict[str, Json]:
    out: dict[str, Json] = {
        "game": "empire-cards",
        "phase": state.phase,
        "seat": seat,
        "n_seats": state.n_seats,
        "options": state.options.model_dump(mode="json"),
        "hand_no": state.hand_no,
        "hands_played": state.hands_played,
        "dealer": state.dealer,
        "rps_round": state.rps_round,  # CG-S3: rock-paper-scissors rounds played this hand
        "rps_seats": list(state.rps_seats),  # the seats still in it (empty: every seat)
        "active": state.active,
        "awaiting": list(awaited(state)),
        "turn_no": state.turn_no,
        "first_round": state.first_round,
        "drawn": state.drawn,
        "interactions_used": list(state.interactions),
        "deck_size": len(state.deck),
        "players": [_player(p, i) for i, p in enumerate(state.players)],
        "pending": _pending(state, seat),
        "hand_winner": state.hand_winner,
        "last_winner": state.last_winner,
        "overlord": state.overlord,
    }
    if seat is not None and 0 <= seat < state.n_seats:
        out["hand"] = list(state.players[seat].hand)
    return out
