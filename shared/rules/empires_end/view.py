"""What one seat may see (EEND-21): tiles, innovations, VP, disaster bids and revealed cards are
public; each stash and hand is private to its owner; deck orders are never shown."""

from __future__ import annotations

from shared.rules.api import Json, Node, Simultaneous, Terminal, Turn, to_json
from shared.rules.empires_end import board
from shared.rules.empires_end.data import CARD, TILE
from shared.rules.empires_end.scoring import breakdown
from shared.rules.empires_end.state import Player, State


def _player(p: Player, seat: int) -> dict[str, Json]:
    empire: list[Json] = [
        {
            "position": i + 1,
            "tile": loc.tile,
            "type": TILE[loc.tile].type,
            "vp": TILE[loc.tile].vp,
            "repair": TILE[loc.tile].repair,
            "healthy": loc.healthy,
            "innovations": [{"card": x.card, "exhausted": x.exhausted} for x in loc.innovations],
        }
        for i, loc in enumerate(p.empire)
    ]
    return {
        "seat": seat,
        "vp": p.vp,
        "hand_count": len(p.hand),
        "base_strength": board.base_strength(p),
        "destroyed": sum(1 for loc in p.empire if not loc.healthy),
        "empire": empire,
    }


def _disaster(state: State) -> dict[str, Json] | None:
    dp = state.disaster
    if dp is None:
        return None
    slots: list[Json] = []
    for s in dp.slots:
        card = CARD[s.card] if s.card else None
        slots.append(
            {
                "card": s.card,
                "target": card.target if card else None,
                "accepts": list(card.bids) if card else [],
                "bids": s.pool.as_dict(),
                "closed": s.closed,
            }
        )
    res = dp.resolution
    resolution: Json = None
    if res is not None:
        resolution = {
            "seat": res.seat,
            "card": res.card,
            "target": res.target + 1,
            "stage": res.stage,
            "choices": list(res.choices),
        }
    return {
        "slots": slots,
        "bidder": dp.bidder,
        "addressed": list(dp.addressed),
        "resolution": resolution,
    }


def view(state: State, seat: int | None, node: Node) -> dict[str, Json]:
    out: dict[str, Json] = {
        "game": "empires-end",
        "phase": state.phase,
        "phase_number": state.phase_index + 1,
        "track": list(state.track),
        "seat": seat,
        "n_seats": state.n,
        "options": state.options.model_dump(mode="json"),
        "first_player": state.first,
        "players": [_player(p, s) for s, p in enumerate(state.players)],
        "deck_count": len(state.deck),
        "discard_count": len(state.discard),
        "conflict_card": state.conflict_card,
        "conflict_deck_count": len(state.conflict_deck),
        "conflict_discard": list(state.conflict_discard),
        "disaster": _disaster(state),
        "work": [{"seat": s, "stage": w.stage} for s, w in enumerate(state.work)],
        "awaiting": list(node.seats) if isinstance(node, Turn) else [],
    }
    if seat is not None and 0 <= seat < state.n:
        p = state.players[seat]
        mine: dict[str, Json] = {"resources": p.res.as_dict(), "hand": list(p.hand)}
        if state.work:
            w = state.work[seat]
            mine["work"] = {
                "stage": w.stage,
                "todo": list(w.todo),
                "conversions": [{"source": c.source, "left": c.left} for c in w.conv],
                "repeats": list(w.repeats),
                "acts": w.acts,
                "repaired": w.repaired,
                "used": list(w.used),
                "discarded": w.discarded,
            }
        if isinstance(node, Simultaneous):
            mine["round_id"] = node.round_id
            mine["my_slots"] = [to_json(s) for s in node.slots if s.seat == seat]
        out["you"] = mine
    if isinstance(node, Terminal):
        out["final"] = [breakdown(state, s) for s in range(state.n)]  # type: ignore[misc]
    return out
