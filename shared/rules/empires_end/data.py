"""Component data for Empire's End: tiles, 66 disaster cards, 11 conflict cards, both tracks.

Everything here is RECONSTRUCTED (RULINGS.md §4.2-4.5) except where a row says RULEBOOK:
no printed card text is public. Each table has one row per tile/card so that the printed
text can replace a row without touching any rule logic. Rule code reads abilities only
through the ``Ability`` fields below (``kind`` selects the rule, the other fields are its
numbers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# EEND-24: the rulebook's "Food" is Wheat; "prosperous" = healthy; "kingdom" = empire.
Resource = Literal["wheat", "hammer", "axe", "coin"]
RESOURCES: tuple[Resource, ...] = ("wheat", "hammer", "axe", "coin")
Phase = Literal["economy", "industry", "disaster", "conflict", "end"]
Bundle = tuple[tuple[Resource, int], ...]  # e.g. (("wheat", 1), ("axe", 1))

AbilityKind = Literal[
    # economy
    "gain",  # gain ``res`` and ``vp``
    "gain_per_adjacent",  # gain ``res``/``vp`` per adjacent healthy location of type ``per``
    "vp_per_adjacent_destroyed",  # gain ``vp`` per adjacent destroyed location
    "convert",  # pay 1 ``src``, gain one of ``outs``; up to ``times`` per phase
    "refresh_adjacent",  # refresh all exhausted abilities under adjacent locations
    "repeat",  # repeat one other economy ability (EEND-10)
    # industry
    "build_discount",  # one innovation built this phase costs 1 Hammer less (EEND-12)
    "swap",  # swap any two locations (EEND-14)
    "move_innovation",  # move one innovation, normal placement rules (EEND-14)
    "repair_discount_adjacent",  # adjacent locations cost 1 Hammer less to repair (EEND-13)
    "refresh_one_adjacent",  # remove one exhaust marker from an adjacent location's ability
    # disaster (exhaust abilities)
    "free_bid",  # pass once on a disaster that accepts ``resource`` (EEND-8)
    "replace_disaster",  # replace a current disaster with the top card (EEND-7)
    # conflict
    "strength",  # + ``amount`` conflict strength
    # end of game
    "vp_per_destroyed",  # ``amount`` VP per destroyed location in your empire
    "copy_end",  # score one other end-of-game ability a second time
    "end_per_adjacent_destroyed",  # ``amount`` VP per adjacent destroyed location
    "vp_per_token",  # ``amount`` VP per token of ``resource`` (EEND-18)
    "end_per_adjacent",  # ``amount`` VP per adjacent healthy location of type ``per`` (EEND-17)
    "most_destroyed",  # ``amount`` VP for the most (or tied most) destroyed locations
]
LocationType = Literal["City", "Town", "Army", "Road", "Farm"]


@dataclass(frozen=True)
class Ability:
    kind: AbilityKind
    phase: Phase
    text: str
    res: Bundle = ()
    vp: int = 0
    src: Resource | None = None
    outs: tuple[Bundle, ...] = ()
    times: int = 0
    per: LocationType | None = None
    resource: Resource | None = None
    amount: int = 0


# --- ability constructors (keep the rows below one line each) -----------------------------


def gain(text: str, vp: int = 0, **res: int) -> Ability:
    bundle: Bundle = tuple((r, res[r]) for r in RESOURCES if r in res)
    return Ability("gain", "economy", text, res=bundle, vp=vp)


def per_adjacent(text: str, per: LocationType, vp: int = 0, **res: int) -> Ability:
    bundle: Bundle = tuple((r, res[r]) for r in RESOURCES if r in res)
    return Ability("gain_per_adjacent", "economy", text, res=bundle, vp=vp, per=per)


def convert(text: str, src: Resource, outs: tuple[Bundle, ...], times: int) -> Ability:
    return Ability("convert", "economy", text, src=src, outs=outs, times=times)


def simple(kind: AbilityKind, phase: Phase, text: str, amount: int = 0) -> Ability:
    return Ability(kind, phase, text, amount=amount)


def free_bid(resource: Resource) -> Ability:
    text = f"Exhaust: free bid on a disaster that accepts {resource.capitalize()}"
    return Ability("free_bid", "disaster", text, resource=resource)


def end_adjacent(per: LocationType, amount: int) -> Ability:
    return Ability(
        "end_per_adjacent", "end", f"{amount} VP per adjacent healthy {per}", per=per, amount=amount
    )


def tokens(resource: Resource) -> Ability:
    text = f"1 VP per {resource.capitalize()} in your stash"
    return Ability("vp_per_token", "end", text, resource=resource, amount=1)


REFRESH = "Refresh all exhausted abilities attached to adjacent locations"
REMOVE_ONE = "Remove an exhaust marker from an adjacent location's ability"
DISCOUNT = "One innovation you build this phase costs 1 Hammer less"
SWAP = "Swap any two locations (innovations travel with them)"
MOVE = "Move one innovation (normal placement rules)"
REPAIR = "Adjacent locations cost 1 Hammer less to repair"
REPLACE = "Exhaust: replace a current disaster with the top card of the deck (bids stay)"

_H: Bundle = (("hammer", 1),)
_A: Bundle = (("axe", 1),)

# --- location tiles: RULINGS §4.2 (identical set for every player) -------------------------


@dataclass(frozen=True)
class Tile:
    id: str
    type: LocationType
    vp: int
    repair: int  # Hammers (coins substitute)
    ability: Ability


# RECONSTRUCTED VP/repair costs; abilities RULEBOOK (farm VPs 3/8/11 and the 14-pt Road too).
TILES: tuple[Tile, ...] = (
    Tile("city", "City", 16, 4, simple("swap", "industry", SWAP)),
    Tile("town-6", "Town", 6, 2, simple("build_discount", "industry", DISCOUNT)),
    Tile("town-12", "Town", 12, 4, simple("build_discount", "industry", DISCOUNT)),
    Tile("army-5", "Army", 5, 2, simple("strength", "conflict", "+2 Conflict strength", 2)),
    Tile("army-9", "Army", 9, 3, simple("strength", "conflict", "+2 Conflict strength", 2)),
    Tile(
        "road-14",
        "Road",
        14,
        4,
        convert(
            "Convert 1 Wheat into 1 Hammer OR 1 Axe, up to 2 times",
            "wheat",
            (_H, _A),
            2,
        ),
    ),
    Tile("road-2", "Road", 2, 1, simple("refresh_adjacent", "economy", REFRESH)),
    Tile("road-7", "Road", 7, 2, simple("refresh_adjacent", "economy", REFRESH)),
    Tile("farm-3", "Farm", 3, 1, gain("Gain 1 Wheat", wheat=1)),
    Tile("farm-8", "Farm", 8, 3, gain("Gain 1 Axe", axe=1)),
    Tile("farm-11", "Farm", 11, 3, gain("Gain 1 Hammer", hammer=1)),
)

# --- disaster cards: RULINGS §4.3, 6 types x 11 (one card per target location) ------------

DisasterType = Literal["Fire", "Flood", "Barbarians", "Famine", "Drought", "Riots"]
# Bid resources per type (RECONSTRUCTED except Fire, RULEBOOK example: wheat and axe).
BIDS: dict[DisasterType, tuple[Resource, ...]] = {
    "Fire": ("wheat", "axe"),
    "Flood": ("hammer",),
    "Barbarians": ("axe",),
    "Famine": ("wheat",),
    "Drought": ("wheat", "hammer"),
    "Riots": ("axe", "hammer"),
}


@dataclass(frozen=True)
class DisasterCard:
    id: str
    type: DisasterType
    target: int  # location number 1-11, counted from the left (healthy and destroyed)
    cost: int  # build cost in Hammers (2 = "+Hammer" card); EEND-12, EEND-25
    ability: Ability
    bids: tuple[Resource, ...] = ()  # accepted bid resources (coins are always wild)


def card(kind: DisasterType, target: int, cost: int, ability: Ability) -> DisasterCard:
    return DisasterCard(f"{kind.lower()}-{target}", kind, target, cost, ability, BIDS[kind])


# fmt: off
DISASTERS: tuple[DisasterCard, ...] = (  # every row RECONSTRUCTED (RULINGS §4.3)
    card("Fire", 1, 1, gain("Gain 1 Wheat", wheat=1)),
    card("Fire", 2, 1, gain("Gain 1 Axe", axe=1)),
    card("Fire", 3, 2, gain("Gain 1 Hammer", hammer=1)),
    card("Fire", 4, 1, convert("Convert 1 Wheat into 1 Coin, up to 3 times", "wheat", ((("coin", 1),),), 3)),  # noqa: E501
    card("Fire", 5, 2, convert("Convert 1 Wheat into 1 Hammer + 1 Axe, once", "wheat", ((("hammer", 1), ("axe", 1)),), 1)),  # noqa: E501
    card("Fire", 6, 1, convert("Convert 1 Coin into 1 Wheat + 1 Hammer, once", "coin", ((("wheat", 1), ("hammer", 1)),), 1)),  # noqa: E501
    card("Fire", 7, 1, convert("Convert 1 Wheat into 1 Hammer OR 1 Axe, up to 2 times", "wheat", (_H, _A), 2)),  # noqa: E501
    card("Fire", 8, 2, simple("repeat", "economy", "Repeat one other Economy ability you have")),
    card("Fire", 9, 2, gain("Gain 1 Wheat + 1 Axe", wheat=1, axe=1)),  # RULEBOOK example card
    card("Fire", 10, 1, convert("Convert 1 Coin into 2 Wheat, once", "coin", ((("wheat", 2),),), 1)),  # noqa: E501
    card("Fire", 11, 1, gain("Gain 1 VP", vp=1)),
    card("Flood", 1, 1, simple("repair_discount_adjacent", "industry", REPAIR)),
    card("Flood", 2, 1, simple("build_discount", "industry", DISCOUNT)),
    card("Flood", 3, 1, simple("move_innovation", "industry", MOVE)),
    card("Flood", 4, 1, simple("refresh_one_adjacent", "industry", REMOVE_ONE)),
    card("Flood", 5, 2, simple("swap", "industry", SWAP)),
    card("Flood", 6, 1, simple("repair_discount_adjacent", "industry", REPAIR)),
    card("Flood", 7, 1, simple("build_discount", "industry", DISCOUNT)),
    card("Flood", 8, 1, simple("move_innovation", "industry", MOVE)),
    card("Flood", 9, 1, simple("refresh_one_adjacent", "industry", REMOVE_ONE)),
    card("Flood", 10, 2, simple("swap", "industry", SWAP)),
    card("Flood", 11, 2, simple("build_discount", "industry", DISCOUNT)),
    card("Barbarians", 1, 1, simple("strength", "conflict", "+1 Conflict strength", 1)),
    card("Barbarians", 2, 1, simple("strength", "conflict", "+1 Conflict strength", 1)),
    card("Barbarians", 3, 1, simple("strength", "conflict", "+1 Conflict strength", 1)),
    card("Barbarians", 4, 1, simple("strength", "conflict", "+1 Conflict strength", 1)),
    card("Barbarians", 5, 2, simple("strength", "conflict", "+2 Conflict strength", 2)),
    card("Barbarians", 6, 2, simple("strength", "conflict", "+2 Conflict strength", 2)),
    card("Barbarians", 7, 1, per_adjacent("Gain 1 Axe per adjacent healthy Army", "Army", axe=1)),
    card("Barbarians", 8, 1, gain("Gain 1 Axe", axe=1)),
    card("Barbarians", 9, 1, free_bid("axe")),
    card("Barbarians", 10, 1, end_adjacent("Army", 2)),
    card("Barbarians", 11, 2, tokens("axe")),
    card("Famine", 1, 1, free_bid("wheat")),
    card("Famine", 2, 1, free_bid("wheat")),
    card("Famine", 3, 1, free_bid("axe")),
    card("Famine", 4, 1, free_bid("hammer")),
    card("Famine", 5, 1, free_bid("hammer")),
    card("Famine", 6, 2, simple("replace_disaster", "disaster", REPLACE)),
    card("Famine", 7, 2, simple("replace_disaster", "disaster", REPLACE)),
    card("Famine", 8, 1, simple("refresh_adjacent", "economy", REFRESH)),
    card("Famine", 9, 1, simple("refresh_one_adjacent", "industry", REMOVE_ONE)),
    card("Famine", 10, 1, per_adjacent("Gain 1 Wheat per adjacent healthy Farm", "Farm", wheat=1)),
    card("Famine", 11, 2, tokens("wheat")),
    card("Drought", 1, 1, per_adjacent("Gain 1 Wheat per adjacent healthy Farm", "Farm", wheat=1)),
    card("Drought", 2, 1, per_adjacent("Gain 1 Hammer per adjacent healthy Town", "Town", hammer=1)),  # noqa: E501
    card("Drought", 3, 1, per_adjacent("Gain 1 Axe per adjacent healthy Army", "Army", axe=1)),
    card("Drought", 4, 1, per_adjacent("Gain 1 VP per adjacent healthy Road", "Road", vp=1)),
    card("Drought", 5, 1, per_adjacent("Gain 1 Coin if the City is adjacent and healthy", "City", coin=1)),  # noqa: E501
    card("Drought", 6, 1, gain("Gain 2 VP", vp=2)),
    card("Drought", 7, 1, Ability("vp_per_adjacent_destroyed", "economy", "Gain 1 VP per adjacent destroyed location", vp=1)),  # noqa: E501
    card("Drought", 8, 2, per_adjacent("Gain 1 Hammer per adjacent healthy Farm", "Farm", hammer=1)),  # noqa: E501
    card("Drought", 9, 1, per_adjacent("Gain 1 Wheat per adjacent healthy Road", "Road", wheat=1)),
    card("Drought", 10, 1, per_adjacent("Gain 1 VP per adjacent healthy Town", "Town", vp=1)),
    card("Drought", 11, 2, gain("Gain 3 VP", vp=3)),
    card("Riots", 1, 1, simple("vp_per_destroyed", "end", "2 VP per destroyed location in your empire", 2)),  # noqa: E501
    card("Riots", 2, 2, simple("copy_end", "end", "Score one other End of Game ability a second time")),  # noqa: E501
    card("Riots", 3, 1, simple("end_per_adjacent_destroyed", "end", "2 VP per adjacent destroyed location", 2)),  # noqa: E501
    card("Riots", 4, 1, tokens("coin")),
    card("Riots", 5, 1, tokens("hammer")),
    card("Riots", 6, 1, end_adjacent("Farm", 2)),
    card("Riots", 7, 1, end_adjacent("Road", 2)),
    card("Riots", 8, 1, end_adjacent("Town", 2)),
    card("Riots", 9, 2, simple("most_destroyed", "end", "13 VP if you have the most (or tied most) destroyed locations", 13)),  # noqa: E501
    card("Riots", 10, 2, simple("end_per_adjacent_destroyed", "end", "3 VP per adjacent destroyed location", 3)),  # noqa: E501
    card("Riots", 11, 1, end_adjacent("Army", 2)),
)
# fmt: on

# --- conflict cards: RULINGS §4.4 ---------------------------------------------------------


@dataclass(frozen=True)
class Reward:
    vp: int = 0
    res: Bundle = ()
    refresh: bool = False  # EEND-16: refresh all of that player's exhausted abilities


@dataclass(frozen=True)
class ConflictCard:
    id: str
    penalty_max: int  # strength <= penalty_max: lose penalty_vp
    penalty_vp: int
    tier2_min: int
    tier2: Reward
    tier3_min: int
    tier3: Reward
    victory: Reward  # all players tied for the highest strength (EEND-15)
    upheaval_rank: int  # 1st/2nd/3rd highest-VP healthy location ...
    upheaval_pos: int  # ... swaps with the location at this position (1-11)


def r(vp: int, refresh: bool = False, **res: int) -> Reward:
    return Reward(vp, tuple((k, res[k]) for k in RESOURCES if k in res), refresh)


# fmt: off
CONFLICTS: tuple[ConflictCard, ...] = (
    ConflictCard("K1", 2, 3, 5, r(5, coin=1), 8, r(7, wheat=2), r(3, coin=1), 1, 11),  # RULEBOOK example  # noqa: E501
    ConflictCard("K2", 1, 2, 4, r(3, axe=1), 7, r(5, hammer=1), r(2, refresh=True), 2, 1),
    ConflictCard("K3", 3, 4, 6, r(5, hammer=1), 9, r(8, coin=1), r(4, wheat=1), 3, 6),
    ConflictCard("K4", 2, 2, 5, r(4, wheat=2), 7, r(6, refresh=True), r(3, axe=1), 1, 2),
    ConflictCard("K5", 2, 3, 4, r(2, coin=1), 8, r(6, axe=2), r(3, hammer=1), 2, 10),
    ConflictCard("K6", 3, 3, 5, r(3, hammer=1, wheat=1), 9, r(7, coin=1), r(2, coin=1), 3, 3),
    ConflictCard("K7", 2, 4, 6, r(6), 10, r(9, coin=1), r(4, refresh=True), 1, 9),
    ConflictCard("K8", 1, 3, 5, r(4, refresh=True), 8, r(6, hammer=1), r(3, wheat=1), 2, 4),
    ConflictCard("K9", 3, 2, 6, r(4, axe=1), 9, r(7, wheat=2), r(5), 3, 8),
    ConflictCard("K10", 2, 5, 5, r(5), 7, r(6, coin=1), r(3, coin=1), 1, 5),
    ConflictCard("K11", 2, 3, 4, r(3, wheat=1), 8, r(7, hammer=1), r(2, axe=1), 2, 7),
)
# fmt: on

# --- progress tracks: RULINGS §4.5 (RECONSTRUCTED) ----------------------------------------

PhaseKind = Literal[
    "disaster", "double_disaster", "economy", "industry", "conflict", "industry_economy"
]
_CODES: dict[str, PhaseKind] = {
    "D": "disaster",
    "DD": "double_disaster",
    "E": "economy",
    "I": "industry",
    "C": "conflict",
    "I/E": "industry_economy",
}
_2P = "D E D D C I D D E D C I D D E D C D I E"
_34P = "D E D DD C I D DD E D C I DD D E DD C D I/E"
TRACK_2P: tuple[PhaseKind, ...] = tuple(_CODES[c] for c in _2P.split(" "))
TRACK_34P: tuple[PhaseKind, ...] = tuple(_CODES[c] for c in _34P.split(" "))


def track_for(n_seats: int) -> tuple[PhaseKind, ...]:
    return TRACK_2P if n_seats == 2 else TRACK_34P


# --- look-ups -------------------------------------------------------------------------------

TILE: dict[str, Tile] = {t.id: t for t in TILES}
TILE_IDS: tuple[str, ...] = tuple(t.id for t in TILES)
CARD: dict[str, DisasterCard] = {c.id: c for c in DISASTERS}
CARD_IDS: tuple[str, ...] = tuple(c.id for c in DISASTERS)
CONFLICT: dict[str, ConflictCard] = {c.id: c for c in CONFLICTS}
CONFLICT_IDS: tuple[str, ...] = tuple(c.id for c in CONFLICTS)
HAND_SIZE = 4
START_RESOURCES = 2
LOW_RESOURCES = 5  # EEND-9
LOW_RESOURCES_VP_PER_COIN = 2


def ability(ref: str) -> Ability:
    """The ability printed on a tile (tile id) or an innovation (card id)."""
    tile = TILE.get(ref)
    return tile.ability if tile is not None else CARD[ref].ability
