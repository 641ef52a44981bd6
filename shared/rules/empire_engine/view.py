"""What one seat (or a spectator) may see.

Public: ready piles, engine orientations once flipped, the revealed plan and the attacks of
the current round, whose decision is pending. Private: the seat's own score pile (EE-12:
opponents' score piles stay hidden until the game ends, unless that option is off).
Sealed choices never reach the state at all: the escrow holds them until the reveal.
"""

from __future__ import annotations

from shared.rules.api import Json, to_json
from shared.rules.empire_engine.data import CYCLE, ENGINES, GEAR_ROWS, top_action
from shared.rules.empire_engine.execute import incoming, pending_loot, target_of
from shared.rules.empire_engine.planning import plan_order, plan_slots, round_id, turn_order
from shared.rules.empire_engine.scoring import score
from shared.rules.empire_engine.state import Player, State

GAME_NAME = "empire-engine"


def _engines(player: Player) -> Json:
    if player.engines is None:
        return None
    return {
        e: {"orientation": o, "top": top_action(e, o)}
        for e, o in zip(ENGINES, player.engines, strict=True)
    }


def score_visible(state: State, owner: int, seat: int | None) -> bool:
    return state.phase == "over" or not state.options.hidden_score_piles or owner == seat


def view(state: State, seat: int | None) -> dict[str, Json]:
    players: list[Json] = []
    for s, p in enumerate(state.players):
        players.append(
            {
                "seat": s,
                "ready": {"soldiers": p.ready.soldiers, "goods": p.ready.goods},
                "engines": _engines(p),
                "score": p.score.as_json() if score_visible(state, s, seat) else None,
                "left": target_of(state, s, "L"),
                "right": target_of(state, s, "R"),
            }
        )
    out: dict[str, Json] = {
        "game": GAME_NAME,
        "phase": state.phase,
        "seat": seat,
        "n_seats": state.n_seats,
        "round": state.round,
        "rounds": state.rounds,
        "start_player": state.start_player,
        "turn_order": list[Json](turn_order(state)) if state.phase != "start" else [],
        "options": state.options.model_dump(mode="json"),
        "layout": {e: list(CYCLE[e]) for e in ENGINES},
        "gears": [{"gear": g, "turns": g, "boosted_turns": alt} for g, alt in GEAR_ROWS],
        "players": players,
        "placements": [p.as_json() for p in state.placements],
        "attacks": [a.as_json() for a in state.attacks],
        "awaiting": list(state.awaiting),
        "pending": None,
        "slots": [],
    }
    if state.phase == "plan":
        out["pending"] = {
            "round_id": round_id(state),
            "order": [[s, k] for s, k in plan_order(state)],
        }
        out["slots"] = [
            to_json(slot) for slot in plan_slots(state) if slot.seat == seat
        ]
    elif state.phase == "block":  # EE-8: each awaited defender picks one of its attackers
        out["pending"] = {
            "block": [
                {
                    "defender": s,
                    "attackers": [state.attacks[i].attacker for i in incoming(state, s)],
                }
                for s in state.awaiting
            ]
        }
    elif state.phase == "salvage":
        out["pending"] = {"salvage": list[Json](state.awaiting)}
    elif state.phase == "loot":
        index = pending_loot(state)
        if index is not None:
            out["pending"] = {"loot": state.attacks[index].as_json()}
    elif state.phase == "over":
        out["outcome"] = score(state).model_dump(mode="json")
    return out
