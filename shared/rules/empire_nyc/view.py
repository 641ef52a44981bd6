"""What one seat may see: the whole public table, its own hand and mission, nothing else.

Hidden: the draw pile's order, other seats' cards (only their number) and other seats'
missions (NY-12). At the end only the winner's mission is revealed.
"""

from __future__ import annotations

from shared.rules.api import Json
from shared.rules.empire_nyc import board, data
from shared.rules.empire_nyc.legal import awaited
from shared.rules.empire_nyc.state import NycState
from shared.rules.empire_nyc.turns import must_trade, reinforcements


def _static(extra_links: bool) -> dict[str, Json]:
    adj = board.adjacency(extra_links)
    return {
        "adjacency": {
            board.NB_IDS[i]: [board.NB_IDS[j] for j in sorted(adj[i])] for i in range(board.N_NB)
        },
        "boroughs": {
            b.id: {
                "name": b.name,
                "bonus": b.bonus,
                "neighborhoods": [board.NB_IDS[i] for i in board.BOROUGH_MEMBERS[b.id]],
            }
            for b in data.BOROUGHS
        },
    }


def _players(state: NycState) -> list[Json]:
    out: list[Json] = []
    elim = {e.seat: e for e in state.eliminated}
    for s in range(state.n_seats):
        mine = [i for i, o in enumerate(state.owner) if o == s]
        row: dict[str, Json] = {
            "seat": s,
            "neighborhoods": len(mine),
            "cubes": sum(state.cubes[i] for i in mine),
            "cards": len(state.hands[s]),
            "to_place": state.to_place[s],
            "alive": s not in elim,
            "eliminated_by": elim[s].by if s in elim else None,
            "eliminated_turn": elim[s].turn if s in elim else None,
        }
        if state.turn > 0 and s not in elim:
            a, b, _ = reinforcements(state, s)
            row["next_reinforcements"] = a + b
        out.append(row)
    return out


def view(state: NycState, seat: int | None) -> dict[str, Json]:
    who = awaited(state)
    v: dict[str, Json] = {
        "game": "empire-nyc",
        "phase": state.phase,
        "seat": seat,
        "options": state.options.model_dump(mode="json"),
        "turn": state.turn,
        "round": state.round,  # NY-S1: the game ends after options.max_rounds rounds
        "current": state.current if state.current >= 0 else None,
        "awaiting": [who] if who is not None else [],
        "first_player": state.first_player if state.first_player >= 0 else None,
        "order": list(state.order),
        "neighborhoods": {
            board.NB_IDS[i]: {"owner": state.owner[i], "cubes": state.cubes[i]}
            for i in range(board.N_NB)
        },
        "players": _players(state),
        "sets_traded": state.sets_traded,
        "next_set_value": board.set_value(state.sets_traded),
        "deck_size": len(state.deck),
        "discard_size": len(state.discard),
        "pool": state.pool,
        "conquered_this_turn": state.conquered,
        "battle": None,
        "move_in": None,
        "winner": state.winner,
        "win_reason": state.win_reason,
        **_static(state.options.extra_links),
    }
    if state.options.missions:
        v["mission_cards"] = {m.id: list(m.boroughs) for m in data.MISSIONS}
    b = state.battle
    if b is not None:
        v["battle"] = {
            "from": board.NB_IDS[b.frm],
            "to": board.NB_IDS[b.to],
            "instigator": state.current,
            "defender": b.defender,
            "dice": b.dice,
            "defender_dice": b.def_dice,
            "instigator_roll": list(b.inst_roll) if b.inst_roll is not None else None,
        }
    m = state.move_in
    if m is not None:
        v["move_in"] = {
            "from": board.NB_IDS[m.frm],
            "to": board.NB_IDS[m.to],
            "min": m.moved,
            "max": m.moved + state.cubes[m.frm] - 1,
        }
    if seat is not None and 0 <= seat < state.n_seats:
        v["hand"] = [{"card": c, "pest": board.CARD_PEST[c]} for c in state.hands[seat]]
        v["must_trade"] = state.phase == "reinforce" and seat == who and must_trade(state, seat)
        if state.missions:
            mine = state.missions[seat]
            v["mission"] = {"id": mine, "boroughs": list(board.MISSION_BOROUGHS[mine])}
    if state.win_reason == "mission" and state.winner is not None:
        won = state.missions[state.winner]
        v["winner_mission"] = {"id": won, "boroughs": list(board.MISSION_BOROUGHS[won])}
    return v
