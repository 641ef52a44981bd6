"""Pure text rendering for the terminal client: a seat's view per game, action and choice
labels, log lines for events and record entries, the result. No I/O, no textual import.

The view shapes are those of ``shared/rules/<pkg>/view.py``; anything a renderer does not
know is shown by the generic renderer, so a new field never breaks the client.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from shared.fairness.commitments import commitment

Names = Sequence[str]


def _seat(seat: Any, names: Names) -> str:
    if not isinstance(seat, int) or isinstance(seat, bool):
        return str(seat)
    return f"{names[seat]} (s{seat})" if 0 <= seat < len(names) else f"s{seat}"


def compact(value: Any) -> str:
    """A short human form of a JSON value: ``k=v k=v`` for objects, commas for lists."""
    if isinstance(value, dict):
        return " ".join(f"{k}={compact(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ",".join(compact(v) for v in value) + "]"
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def action_label(action: Any) -> str:
    """``call stake=2`` for ``{"type": "call", "stake": 2}``."""
    if isinstance(action, dict) and "type" in action:
        rest = {k: v for k, v in action.items() if k != "type"}
        return f"{action['type']} {compact(rest)}".strip()
    return compact(action)


def choice_label(choice: Any) -> str:
    if isinstance(choice, str) and len(choice) > 20:
        return choice[:12] + "…"  # a client seed
    return compact(choice)


def _kv(d: dict[str, Any], keys: Sequence[str] | None = None) -> str:
    items = d.items() if keys is None else ((k, d.get(k)) for k in keys)
    return " ".join(f"{k}={compact(v)}" for k, v in items)


# -- per game ---------------------------------------------------------------------------


def _duel(v: dict[str, Any], names: Names) -> list[str]:
    lines = [
        f"round {v.get('round')}/{v.get('rounds')}   phase {v.get('phase')}   "
        f"stake {v.get('stake')}   first caller {_seat(v.get('first'), names)}"
    ]
    for i, p in enumerate(v.get("points", [])):
        lines.append(f"  {_seat(i, names):<28} {p} points")
    return lines


def _empire(v: dict[str, Any], names: Names) -> list[str]:
    lines = [
        f"{v.get('version')} · round {v.get('round')} · phase {v.get('phase')} · "
        f"developments left {v.get('developments_left')} · start "
        f"{_seat(v.get('start_player'), names)}"
    ]
    row = " ".join(f"{c['index']}:{c['resource']}({c['status']})" for c in v.get("row", []))
    lines.append(f"row: {row}")
    lines.append("players:")
    for p in v.get("players", []):
        head = f"  {_seat(p['seat'], names):<24} {p.get('nation_name') or '-':<14}"
        h = p.get("holdings")
        body = _kv(h) if isinstance(h, dict) else "(hidden)"
        sup = f" support={p['support']}" if "support" in p else ""
        lines.append(f"{head} {body}{sup}{' done' if p.get('done') else ''}")
    if v.get("claim"):
        c = v["claim"]
        lines.append(f"claim round {c.get('round')}:")
        for m in c.get("market", []):
            lines.append(
                f"  #{m['number']} {m['name']} ({m.get('institution')}) "
                + _kv({k: x for k, x in m.items() if k not in ("number", "name", "institution")})
            )
    if v.get("auction"):
        a = v["auction"]
        lines.append(
            f"auction: card {a['card']} {a['resource']} bids {compact(a['bids'])} "
            f"to act {_seat(a.get('to_act'), names)} withdrawn "
            f"{compact(a['withdrawn'])}"
        )
    for o in v.get("offers", []):
        lines.append(
            f"offer {o['offer']}: {_seat(o['from'], names)} -> "
            f"{_seat(o['to'], names) if o['to'] is not None else 'anyone'} gives "
            f"{compact(o['give'])} for {compact(o['get'])}"
        )
    if v.get("last_commerce"):
        lines.append(f"last commerce: {compact(v['last_commerce'])}")
    if v.get("you"):
        y = v["you"]
        lines.append(
            f"you: {_kv(y['holdings'])} · locked gold {y.get('locked_gold')} · "
            f"tradeable {_kv(y.get('tradeable') or {})}"
        )
    if v.get("standings"):
        lines.append(f"standings: {compact(v['standings'])}")
    return lines


def _engine(v: dict[str, Any], names: Names) -> list[str]:
    lines = [
        f"round {v.get('round')}/{v.get('rounds')} · phase {v.get('phase')} · turn order "
        + ", ".join(_seat(s, names) for s in v.get("turn_order", []))
    ]
    for p in v.get("players", []):
        engines = p.get("engines")
        eng = (
            " ".join(f"{e}:{x['top']}" for e, x in engines.items())
            if isinstance(engines, dict)
            else "-"
        )
        score = _kv(p["score"]) if isinstance(p.get("score"), dict) else "(hidden)"
        lines.append(
            f"  {_seat(p['seat'], names):<24} ready soldiers={p['ready']['soldiers']} "
            f"goods={p['ready']['goods']} engines {eng} · score {score}"
        )
    for pl in v.get("placements", []):
        lines.append(f"  placed: {compact(pl)}")
    for a in v.get("attacks", []):
        lines.append(f"  attack: {compact(a)}")
    if v.get("pending"):
        lines.append(f"pending: {compact(v['pending'])}")
    if v.get("outcome"):
        lines.append(f"outcome: {compact(v['outcome'])}")
    return lines


# -- The Empire Engine drawn from its component data (GET /api/games/empire-engine/components)


def _edges(comp: dict[str, Any], engine: str, orientation: int) -> dict[str, str]:
    """The action at each edge of an engine now: ``top_by_orientation[o]`` is on top after o
    clockwise quarter-turns, and each further turn brings the left edge up (the page's rule,
    clients/web/games/empire_engine.js)."""
    order = comp["engines"][engine]["top_by_orientation"]
    o = orientation % 4
    return {"top": order[o], "left": order[(o + 1) % 4], "bottom": order[(o + 2) % 4],
            "right": order[(o + 3) % 4]}


WHEEL_W = 30


def wheel_lines(comp: dict[str, Any], engine: str, orientation: int | None) -> list[str]:
    """One engine as a text wheel: the top action above the hub, left and right beside it,
    the bottom one below (five lines of WHEEL_W characters)."""
    if orientation is None:
        return [f"engine {engine}: not placed yet".ljust(WHEEL_W)] + [" " * WHEEL_W] * 4
    e = _edges(comp, engine, orientation)
    return [
        f"[{e['top'].upper()}]".center(WHEEL_W),
        "^".center(WHEEL_W),
        f"{e['left']} < ({engine}) > {e['right']}".center(WHEEL_W),
        "v".center(WHEEL_W),
        e["bottom"].center(WHEEL_W),
    ]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def engine_choice_text(choice: Any, view: dict[str, Any] | None, comp: dict[str, Any] | None,
                       seat: int | None) -> str:
    """A sealed placement as a sentence with the action it brings to the top (from the
    component data), e.g. ``engine L, gear 2 + good: 3 turns, export on top``."""
    if not isinstance(choice, dict) or "engine" not in choice:
        return choice_label(choice)
    e = choice["engine"]
    if "top" in choice:
        return f"engine {e} with {choice['top']} on top"
    boost = choice.get("boost", "none")
    base = f"engine {e}, gear {choice.get('gear')}" + (f" + {boost}" if boost != "none" else "")
    if not comp or not view:
        return base
    me = next((p for p in view.get("players", []) if p.get("seat") == seat), None)
    engines = me.get("engines") if me else None
    gear = next((g for g in comp["gears"] if g["gear"] == choice.get("gear")), None)
    if not isinstance(engines, dict) or e not in engines or gear is None:
        return base
    turns = int(gear["boosted_turns"] if boost != "none" else gear["turns"])
    top = _edges(comp, e, int(engines[e]["orientation"]) + turns)["top"]
    return f"{base}: {_plural(turns, 'turn')}, {top} on top"


def _engine_board(v: dict[str, Any], names: Names, comp: dict[str, Any]) -> list[str]:
    """The Engine as players see it: each player's two wheels side by side, then sentences for
    the round's placements, attacks and what is awaited."""
    seat = v.get("seat")
    lines = [
        f"Round {v.get('round')} of {v.get('rounds')}, "
        f"{str(v.get('phase')).replace('_', ' ')} phase."
        + (" Turn order: " + ", then ".join(names_of(v.get("turn_order", []), names)) + "."
           if v.get("turn_order") else "")
    ]
    for p in v.get("players", []):
        who = _seat(p["seat"], names) + (" — you" if p["seat"] == seat else "")
        ready = p["ready"]
        score = p.get("score")
        held = (f"score pile {_plural(score['soldiers'], 'soldier')}, "
                f"{_plural(score['goods'], 'good')}, "
                f"{_plural(score['inventions'], 'invention')}" if isinstance(score, dict)
                else "score pile hidden")
        lines += ["", f"{who}: ready {_plural(ready['soldiers'], 'soldier')} and "
                  f"{_plural(ready['goods'], 'good')}; {held}."]
        engines = p.get("engines") if isinstance(p.get("engines"), dict) else {}
        wheels = [wheel_lines(comp, e, engines[e]["orientation"] if e in engines else None)
                  for e in ("L", "R")]
        lines += ["  " + a + "  " + b for a, b in zip(*wheels, strict=True)]
    for pl in v.get("placements", []):
        boost = f" + {pl['boost']}" if pl.get("boost") not in (None, "none") else ""
        what = (f"gear {pl['gear']}{boost} ({_plural(int(pl['turns']), 'turn')})"
                if pl.get("gear") is not None else "a flip")
        over = " (overridden)" if pl.get("overridden") else ""
        lines.append(f"{_seat(pl['seat'], names)} placed engine {pl['engine']} "
                     f"{'first' if pl.get('order') == 1 else 'second'} with {what}: "
                     f"{pl.get('top') or '?'} on top{over}.")
    for a in v.get("attacks", []):
        loot = f", looting a {a['loot']}" if a.get("loot") else ""
        lines.append(f"{_seat(a['attacker'], names)} attacks {_seat(a['target'], names)} "
                     f"with engine {a['engine']}: "
                     f"{str(a.get('status')).replace('_', ' ')}{loot}.")
    pending = v.get("pending") or {}
    if pending.get("order"):
        nxt = ", ".join(f"{_seat(s, names)} ({'first' if k == 1 else 'second'} placement)"
                        for s, k in pending["order"])
        lines.append(f"Placements are sealed in this order: {nxt}.")
    for b in pending.get("block") or []:
        lines.append(f"{_seat(b['defender'], names)} blocks one attack of "
                     + " or ".join(names_of(b["attackers"], names)) + ".")
    if pending.get("loot"):
        lo = pending["loot"]
        lines.append(f"{_seat(lo['attacker'], names)} takes a soldier or a good from "
                     f"{_seat(lo['target'], names)}.")
    if pending.get("salvage"):
        lines.append(", ".join(names_of(pending["salvage"], names))
                     + " choose what to salvage from the stock.")
    if v.get("awaiting"):
        lines.append("Waiting for " + ", ".join(names_of(v["awaiting"], names)) + ".")
    return lines


def names_of(seats: Sequence[Any], names: Names) -> list[str]:
    return [_seat(s, names) for s in seats]


def _nyc(v: dict[str, Any], names: Names) -> list[str]:
    lines = [
        f"turn {v.get('turn')} · phase {v.get('phase')} · current "
        f"{_seat(v.get('current'), names)} · next set {v.get('next_set_value')} · "
        f"deck {v.get('deck_size')}"
    ]
    for p in v.get("players", []):
        alive = "" if p.get("alive", True) else " ELIMINATED"
        lines.append(
            f"  {_seat(p['seat'], names):<24} {p['neighborhoods']} nbhds "
            f"{p['cubes']} cubes {p['cards']} cards to place {p['to_place']}{alive}"
        )
    nbs: dict[str, Any] = v.get("neighborhoods", {})
    boroughs: dict[str, Any] = v.get("boroughs", {})
    for bid, b in boroughs.items():
        cells = " ".join(
            f"{n}:s{nbs[n]['owner']}x{nbs[n]['cubes']}"
            for n in b.get("neighborhoods", [])
            if n in nbs
        )
        lines.append(f"  {bid} {b.get('name', '')} (+{b.get('bonus')}): {cells}")
    if v.get("battle"):
        lines.append(f"battle: {compact(v['battle'])}")
    if v.get("move_in"):
        lines.append(f"move in: {compact(v['move_in'])}")
    if "hand" in v:
        lines.append("hand: " + (", ".join(f"{c['card']}({c['pest']})" for c in v["hand"]) or "-"))
    if v.get("mission"):
        lines.append(f"mission: {compact(v['mission'])}")
    if v.get("winner") is not None:
        lines.append(f"winner {_seat(v['winner'], names)} ({v.get('win_reason')})")
    return lines


def _cards(v: dict[str, Any], names: Names) -> list[str]:
    lines = [
        f"hand #{v.get('hand_no')} · phase {v.get('phase')} · active "
        f"{_seat(v.get('active'), names)} · turn {v.get('turn_no')} · deck "
        f"{v.get('deck_size')} · dealer {_seat(v.get('dealer'), names)}"
    ]
    for p in v.get("players", []):
        army = " ".join("+".join(s) for s in p.get("army", [])) or "-"
        sets = " ".join("+".join(s) for s in p.get("empire_sets", [])) or "-"
        lines.append(
            f"  {_seat(p['seat'], names):<24} hand {p['hand_size']} · army {army} · "
            f"empire {sets} · regime {p.get('regime') or '-'} · discard "
            f"{p.get('discard_top') or '-'} ({p.get('discard_size')}) · hands won "
            f"{p.get('hands_won')}"
        )
    if v.get("pending"):
        lines.append(f"pending: {compact(v['pending'])}")
    if "hand" in v:
        lines.append("your hand: " + (" ".join(v["hand"]) or "-"))
    if v.get("overlord") is not None:
        lines.append(f"overlord: {_seat(v['overlord'], names)}")
    return lines


def _end(v: dict[str, Any], names: Names) -> list[str]:
    track = v.get("track", [])
    n = v.get("phase_number", 0)
    lines = [
        f"phase {n}/{len(track)} {v.get('phase')} · first "
        f"{_seat(v.get('first_player'), names)} · deck {v.get('deck_count')} · conflict "
        f"{v.get('conflict_card') or '-'}"
    ]
    for p in v.get("players", []):
        tiles = " ".join(
            f"{t['position']}:{t['tile']}{'' if t['healthy'] else '✗'}"
            + (f"+{len(t['innovations'])}" if t.get("innovations") else "")
            for t in p.get("empire", [])
        )
        lines.append(
            f"  {_seat(p['seat'], names):<24} {p['vp']} VP · hand {p['hand_count']} · "
            f"strength {p['base_strength']} · {tiles}"
        )
    d = v.get("disaster")
    if d:
        for i, s in enumerate(d.get("slots", [])):
            lines.append(
                f"  disaster {i}: {s.get('card') or '-'} target {s.get('target')} "
                f"bids {_kv(s.get('bids') or {})}{' closed' if s.get('closed') else ''}"
            )
    if v.get("you"):
        y = v["you"]
        lines.append(f"you: {_kv(y.get('resources') or {})} · hand {' '.join(y.get('hand', []))}")
        if y.get("work"):
            lines.append(f"  work: {compact(y['work'])}")
    if v.get("final"):
        lines.append(f"final: {compact(v['final'])}")
    return lines


def _generic(v: dict[str, Any], names: Names) -> list[str]:
    return [f"{k}: {compact(x)}" for k, x in v.items() if k not in ("game", "seat")]


RENDERERS: dict[str, Callable[[dict[str, Any], Names], list[str]]] = {
    "duel": _duel,
    "empire": _empire,
    "empire-engine": _engine,
    "empire-nyc": _nyc,
    "empire-cards": _cards,
    "empires-end": _end,
}


# games drawn from their component data when the client has it
COMPONENT_RENDERERS: dict[str, Callable[[dict[str, Any], Names, dict[str, Any]], list[str]]] = {
    "empire-engine": _engine_board,
}


def render_view(game: str, view: dict[str, Any], names: Names,
                components: dict[str, Any] | None = None) -> str:
    """The seat's view as readable lines (unknown games: one line per field); drawn from the
    game's component data (``components``) where this client has a board for it."""
    try:
        drawn = COMPONENT_RENDERERS.get(game) if components else None
        lines = drawn(view, names, components) if drawn and components else \
            RENDERERS.get(game, _generic)(view, names)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        lines = _generic(view, names)  # a shape this client does not know yet
    return "\n".join(lines)


def node_line(node: dict[str, Any], seat: int | None, names: Names) -> str:
    kind = node.get("kind")
    if kind == "turn":
        who = ", ".join(_seat(s, names) for s in node.get("seats", []))
        mine = seat is not None and (
            seat in node.get("seats", []) or seat in node.get("open_to", [])
        )
        return "your turn" if mine else f"waiting for {who or 'anyone'}"
    if kind == "simultaneous":
        return f"sealed round {node.get('round_id')}" + (
            " (ordered)" if node.get("ordered") else ""
        )
    if kind == "chance":
        return f"the dealer draws {node.get('label')}"
    if kind == "terminal":
        return "game over"
    return f"setting up ({node.get('stage', kind)})"


# -- log lines ------------------------------------------------------------------------


def event_line(event: dict[str, Any], names: Names) -> str:
    """The gateway's sentence for the event (shared/rules/narrate.py), the same the web page
    shows; a compact key dump only from a server that sends none."""
    if isinstance(event.get("text"), str) and event["text"]:
        return str(event["text"])
    data = dict(event.get("data") or {})
    who = ""
    if "seat" in data and isinstance(data["seat"], int):
        who = _seat(data.pop("seat"), names) + " "
    return f"{who}{event.get('type')} {compact(data)}".rstrip()


def reveal_marks(game_id: str, entry: dict[str, Any], seen: dict[str, str]) -> list[str]:
    """Per opening of a ``round_revealed`` entry: ``s0=7 ✓`` when the opening hashes to the
    commitment seen before the close, ``✗`` otherwise; defaults are marked as such."""
    out = []
    for o in entry.get("openings", []):
        key = f"{entry['round_id']}/{o['slot']}"
        if o.get("defaulted"):
            out.append(f"{o['slot']}={choice_label(o['choice'])} (default)")
            continue
        try:
            c = commitment(
                game_id, entry["round_id"], o["slot"], o["seat"], o["choice"], o["nonce"]
            )
        except (ValueError, KeyError):
            c = ""
        ok = c == o.get("commitment") and c == seen.get(key)
        out.append(f"{o['slot']}={choice_label(o['choice'])} {'✓' if ok else '✗ MISMATCH'}")
    return out


def record_line(
    game_id: str, entry: dict[str, Any], names: Names, seen: dict[str, str]
) -> str | None:
    """A log line for a public record entry (None: not worth a line)."""
    t = entry.get("type")
    if t == "game_created":
        return f"game created: {entry.get('game')} {compact(entry.get('options') or {})}"
    if t == "seed_committed":
        return f"dealer committed to its seed {str(entry.get('commitment'))[:16]}…"
    if t == "round_opened":
        return f"sealed round {entry['round_id']} opened"
    if t == "committed":
        return (
            f"{_seat(entry.get('seat'), names)} sealed {entry['round_id']}/{entry['slot']} "
            f"(commitment {str(entry.get('commitment'))[:12]}…)"
        )
    if t == "slot_timed_out":
        return (f"{_seat(entry.get('seat'), names)} let its time pass in "
                f"{entry['round_id']}/{entry['slot']}: its default stands")
    if t == "round_closed":
        d = entry.get("defaulted") or []
        return f"round {entry['round_id']} closed" + (f", defaulted {compact(d)}" if d else "")
    if t == "round_revealed":
        return f"reveal {entry['round_id']}: " + ", ".join(reveal_marks(game_id, entry, seen))
    if t == "draw":
        vals = compact(entry["values"]) if "values" in entry else "(secret)"
        return f"draw {entry.get('label')}: {vals}"
    if t == "seed_revealed":
        return f"dealer revealed its seed ({len(entry.get('draws') or [])} draws)"
    if t == "seat_handed_over":
        return handed_line(entry, names)
    if t == "game_ended":
        return "game ended"
    return None


def handed_line(entry: dict[str, Any], names: Names) -> str:
    """A seat handed to a bot, in the web page's words (clients/web/resign.js)."""
    who = (entry.get("from") or {}).get("name") or _seat(entry.get("seat"), names)
    why = "ran out of time" if entry.get("reason") == "expired" else "resigned"
    return f"{who} {why}; a bot plays seat {entry.get('seat')} for the rest of the game"


def result_lines(outcome: dict[str, Any], names: Names) -> list[str]:
    rows = sorted(outcome.get("results", []), key=lambda r: (r.get("place", 0), r.get("seat")))
    out = [
        f"{r['place']}. {_seat(r['seat'], names):<28} {_kv(r.get('figures') or {})}" for r in rows
    ]
    if outcome.get("tiebreak"):
        out.append(f"   tie-break: {outcome['tiebreak']}")
    return out
