"""Log sentences for Empire (see ``shared.rules.narrate``). Nations by name, row cards by
position (1-6, from the left) and kind, selection cards by their printed number."""

# ruff: noqa: E501  (a table of sentences: one entry per line reads best)

from __future__ import annotations

from typing import Any

from shared.rules._kit.text import Data, Names, Narrator, counts, join, plural
from shared.rules.empire.data import NATIONS, SINGULAR


def nation(n: Any) -> str:
    return NATIONS[int(n)].name if isinstance(n, int) and 0 <= n < len(NATIONS) else f"nation {n}"


def bundle(b: Any) -> str:
    return counts(b, SINGULAR)


def row_card(card: Any, resource: Any) -> str:
    pos = f"card {card + 1}" if isinstance(card, int) else f"card {card}"
    return f"the {SINGULAR.get(str(resource), str(resource))} auction ({pos} of the row)"


def _claim(d: Data, s: Names) -> str:
    picks = "; ".join(f"{s(seat)} chose {nation(n)}" for seat, n in enumerate(d["selections"]))
    text = f"Claim round {d['round']}: {picks}"
    if d.get("defaulted"):
        text += f" (defaulted: {join([str(x) for x in d['defaulted']])})"
    if not d.get("collision"):
        return text + "; every nation is unique and claimed"
    text += f"; {join([nation(n) for n in d['contested']])} contested: a revolt goes under each"
    if d.get("unselected"):
        text += f", a supporter under {join([nation(n) for n in d['unselected']])}"
    if d.get("random_assignment"):
        text += "; the colliding seats get the free nations by a shuffle (E-14)"
    return text


def _auction_closed(d: Data, s: Names) -> str:
    what = row_card(d["card"], d["resource"])
    if d.get("winner") is None:
        return f"Nobody bid in {what}"
    bonus = f" and {d['bond_gold']} gold for the bond" if d.get("bond_gold") else ""
    return f"{s(d['winner'])} wins {what} for {d['price']} gold{bonus}"


def _developed(d: Data, s: Names) -> str:
    inst = f", built the {d['institution']}" if d.get("institution") else ""
    text = (f"Round {d['round']} development: {s(d['seat'])} gained {bundle(d.get('gained'))}, "
            f"paid {bundle(d.get('paid'))}{inst}")
    if d.get("bonds_unpaid"):
        text += f"; {plural(d['bonds_unpaid'], 'bond')} unpaid"
    return text


def _commerce(d: Data, s: Names) -> str:
    sold = join([f"{s(i)} {n}" for i, n in enumerate(d["sold"])])
    return (f"Commerce, round {d['round']}: sold {sold} ({d['total']} in all) at "
            f"{d['price']} gold each")


def _standings(d: Data, s: Names) -> str:
    rows = sorted(d["standings"], key=lambda r: r["place"])
    return "Game over: " + "; ".join(
        f"{r['place']}. {s(r['seat'])} ({r['support']} support, {r['gold']} gold)" for r in rows)


def _offer(d: Data, s: Names, verb: str) -> str:
    to = s(d["to"]) if d.get("to") is not None else "anyone"
    return (f"Offer {d['offer']}: {s(d['from'])} offers {bundle(d.get('give'))} to {to} for "
            f"{bundle(d.get('get'))} — {verb}")


NARRATORS: dict[str, Narrator] = {
    "start_player": lambda d, s: f"{s(d['seat'])} is the start player",
    "auction_row_dealt": lambda d, s: ("The auction row is dealt: "
                                       + join([f"{i + 1}. {SINGULAR.get(r, r)}" for i, r in enumerate(d['row'])])),
    "nations_dealt": lambda d, s: "Nations on offer: " + join([n["name"] for n in d["nations"]]),
    "claim_revealed": _claim,
    "claim_assigned": lambda d, s: "Nations assigned by shuffle: " + join(
        [f"{s(k)} gets {nation(v)}" for k, v in d["assigned"].items()]),
    "nation_claimed": lambda d, s: (f"{s(d['seat'])} claims {d.get('name') or nation(d['nation'])}: "
                                    f"starting cards {bundle(d.get('starting_cards'))}"),
    "starting_cards": lambda d, s: f"{s(d['seat'])} takes the starting cards {bundle(d['starting_cards'])}",
    "round_started": lambda d, s: f"Round {d['round']} begins",
    "shortage_moved": lambda d, s: (f"Round {d['round']}: the shortage marker moves to card "
                                    f"{d['shortage'] + 1}, covering a {SINGULAR.get(d['covered'], d['covered'])}"),
    "auction_opened": lambda d, s: f"{s(d['first'])} opens {row_card(d['card'], d['resource'])}",
    "auction_skipped": lambda d, s: (f"{row_card(d['card'], d['resource'])} is skipped: the bank "
                                     "has none left (E-5)"),
    "bid_raised": lambda d, s: f"{s(d['seat'])} bids {d['bid']} gold",
    "bid_passed": lambda d, s: f"{s(d['seat'])} passes (standing at {d['bid']} gold)",
    "bid_withdrawn": lambda d, s: f"{s(d['seat'])} withdraws from a tie at {d['bid']} gold",
    "auction_closed": _auction_closed,
    "trade_window_opened": lambda d, s: f"Round {d['round']}: trading is open",
    "trade_offered": lambda d, s: _offer(d, s, "open"),
    "trade_accepted": lambda d, s: _offer(d, s, "accepted"),
    "trade_declined": lambda d, s: _offer(d, s, "declined"),
    "trade_cancelled": lambda d, s: _offer(d, s, "withdrawn"),
    "trades_expired": lambda d, s: f"Open offers expire: {join([str(o) for o in d['offers']])}",
    "trade_done": lambda d, s: f"{s(d['seat'])} is done trading",
    "commerce": _commerce,
    "development_phase": lambda d, s: f"Round {d['round']}: development",
    "developed": _developed,
    "game_ended": _standings,
}
