"""Component data for Empire: The Game of New York (RULINGS.md §5).

RECONSTRUCTED: the neighborhood list, the adjacency, the pest on each card and the six
occupation missions are not public; they are the reconstruction of RULINGS.md §5.2–§5.4
(42 neighborhoods, 78 links, 14 cards per pest, six whole-borough missions). They are kept
here as plain tables, one row per neighborhood / link / mission, so that the real card text
can replace them without touching any rule logic. RULEBOOK values (borough bonuses, starting
cubes, set values) are marked as such.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

Pest = Literal["squirrel", "rat", "pigeon"]
PESTS: Final[tuple[Pest, ...]] = ("squirrel", "rat", "pigeon")


class Borough(NamedTuple):
    id: str
    name: str
    bonus: int  # RULEBOOK: reinforcement part B for occupying the whole borough


# RULEBOOK bonuses (step B); the order is the map order used by every table below.
BOROUGHS: Final[tuple[Borough, ...]] = (
    Borough("manhattan", "Manhattan", 10),
    Borough("bronx", "The Bronx", 3),
    Borough("queens", "Queens", 5),
    Borough("brooklyn", "Brooklyn", 5),
    Borough("staten_island", "Staten Island", 2),
    Borough("jersey", "Jersey", 2),
)


class Neighborhood(NamedTuple):
    id: str
    name: str
    borough: str
    pest: Pest
    adjacent: tuple[str, ...]


# RECONSTRUCTED (RULINGS.md §5.2): one row per neighborhood card.
NEIGHBORHOODS: Final[tuple[Neighborhood, ...]] = (
    Neighborhood("MN01", "Inwood", "manhattan", "squirrel", ("BX01", "MN02")),
    Neighborhood(
        "MN02", "Washington Heights", "manhattan", "squirrel", ("BX03", "MN01", "MN03", "NJ01")
    ),
    Neighborhood("MN03", "Harlem", "manhattan", "rat", ("BX03", "BX04", "MN02", "MN04", "MN05")),
    Neighborhood("MN04", "East Harlem", "manhattan", "rat", ("BX04", "MN03", "MN06", "QN01")),
    Neighborhood("MN05", "Upper West Side", "manhattan", "squirrel", ("MN03", "MN06", "MN08")),
    Neighborhood(
        "MN06", "Upper East Side", "manhattan", "pigeon", ("MN04", "MN05", "MN07", "MN08")
    ),
    Neighborhood("MN07", "Roosevelt Island", "manhattan", "squirrel", ("MN06", "QN01", "QN02")),
    Neighborhood(
        "MN08", "Midtown", "manhattan", "pigeon", ("MN05", "MN06", "MN09", "MN10", "MN11", "QN02")
    ),
    Neighborhood("MN09", "Chelsea", "manhattan", "rat", ("MN08", "MN10", "NJ02")),
    Neighborhood(
        "MN10", "Greenwich Village", "manhattan", "squirrel", ("MN08", "MN09", "MN11", "MN12")
    ),
    Neighborhood(
        "MN11", "Lower East Side", "manhattan", "rat", ("BK01", "BK03", "MN08", "MN10", "MN12")
    ),
    Neighborhood(
        "MN12", "Financial District", "manhattan", "pigeon", ("BK03", "MN10", "MN11", "NJ03")
    ),
    Neighborhood("BX01", "Riverdale", "bronx", "squirrel", ("BX02", "MN01")),
    Neighborhood("BX02", "Fordham", "bronx", "squirrel", ("BX01", "BX03", "BX05", "BX06")),
    Neighborhood("BX03", "Highbridge", "bronx", "pigeon", ("BX02", "BX04", "MN02", "MN03")),
    Neighborhood("BX04", "Mott Haven", "bronx", "rat", ("BX03", "BX05", "MN03", "MN04", "QN01")),
    Neighborhood("BX05", "Hunts Point", "bronx", "rat", ("BX02", "BX04", "BX06")),
    Neighborhood("BX06", "Throgs Neck", "bronx", "pigeon", ("BX02", "BX05", "QN03")),
    Neighborhood("QN01", "Astoria", "queens", "pigeon", ("BX04", "MN04", "MN07", "QN02", "QN03")),
    Neighborhood(
        "QN02",
        "Long Island City",
        "queens",
        "rat",
        ("BK01", "MN07", "MN08", "QN01", "QN04", "QN05"),
    ),
    Neighborhood("QN03", "Flushing", "queens", "pigeon", ("BX06", "QN01", "QN04", "QN06")),
    Neighborhood("QN04", "Forest Hills", "queens", "squirrel", ("QN02", "QN03", "QN05", "QN06")),
    Neighborhood("QN05", "Ridgewood", "queens", "rat", ("BK02", "QN02", "QN04")),
    Neighborhood("QN06", "Jamaica", "queens", "pigeon", ("BK09", "QN03", "QN04", "QN07")),
    Neighborhood("QN07", "The Rockaways", "queens", "squirrel", ("BK06", "QN06")),
    Neighborhood(
        "BK01", "Williamsburg", "brooklyn", "rat", ("BK02", "BK03", "BK04", "MN11", "QN02")
    ),
    Neighborhood("BK02", "Bushwick", "brooklyn", "rat", ("BK01", "BK04", "BK09", "QN05")),
    Neighborhood(
        "BK03", "Downtown Brooklyn", "brooklyn", "pigeon", ("BK01", "BK04", "BK05", "MN11", "MN12")
    ),
    Neighborhood(
        "BK04", "Bedford-Stuyvesant", "brooklyn", "pigeon", ("BK01", "BK02", "BK03", "BK06", "BK09")
    ),
    Neighborhood("BK05", "Park Slope", "brooklyn", "squirrel", ("BK03", "BK06", "BK07")),
    Neighborhood(
        "BK06", "Flatbush", "brooklyn", "squirrel", ("BK04", "BK05", "BK07", "BK08", "BK09", "QN07")
    ),
    Neighborhood("BK07", "Bay Ridge", "brooklyn", "pigeon", ("BK05", "BK06", "BK08", "SI03")),
    Neighborhood("BK08", "Coney Island", "brooklyn", "pigeon", ("BK06", "BK07")),
    Neighborhood("BK09", "East New York", "brooklyn", "rat", ("BK02", "BK04", "BK06", "QN06")),
    Neighborhood("SI01", "St. George", "staten_island", "pigeon", ("SI02", "SI03")),
    Neighborhood("SI02", "Port Richmond", "staten_island", "rat", ("NJ04", "SI01", "SI03", "SI04")),
    Neighborhood(
        "SI03", "South Beach", "staten_island", "squirrel", ("BK07", "SI01", "SI02", "SI04")
    ),
    Neighborhood("SI04", "Tottenville", "staten_island", "squirrel", ("SI02", "SI03")),
    Neighborhood("NJ01", "Fort Lee", "jersey", "squirrel", ("MN02", "NJ02")),
    Neighborhood("NJ02", "Hoboken", "jersey", "rat", ("MN09", "NJ01", "NJ03")),
    Neighborhood("NJ03", "Jersey City", "jersey", "pigeon", ("MN12", "NJ02", "NJ04")),
    Neighborhood("NJ04", "Bayonne", "jersey", "rat", ("NJ03", "SI02")),
)


class Link(NamedTuple):
    a: str
    b: str
    kind: Literal["bridge", "tram", "subway", "land", "tunnel", "ferry"]
    crossing: str


# RECONSTRUCTED (RULINGS.md §5.2): the links that are not plain land borders inside one
# borough. Informational: every one of them is already in the rows' ``adjacent`` lists.
CROSSINGS: Final[tuple[Link, ...]] = (
    Link("MN06", "MN07", "tram", "Roosevelt Island Tramway"),
    Link("MN01", "BX01", "bridge", "Henry Hudson Bridge; Broadway Bridge"),
    Link("MN02", "BX03", "bridge", "High Bridge; Washington Bridge; Alexander Hamilton Bridge"),
    Link("MN03", "BX03", "bridge", "Macombs Dam Bridge"),
    Link("MN03", "BX04", "bridge", "Madison Avenue Bridge; 145th Street Bridge"),
    Link("MN04", "BX04", "bridge", "Third Avenue Bridge; Willis Avenue Bridge"),
    Link("MN04", "QN01", "bridge", "Robert F. Kennedy (Triborough) Bridge"),
    Link("MN08", "QN02", "bridge", "Ed Koch Queensboro Bridge"),
    Link("MN07", "QN01", "bridge", "Roosevelt Island Bridge"),
    Link("MN07", "QN02", "subway", "F train, 63rd Street tunnel"),
    Link("MN12", "BK03", "bridge", "Brooklyn Bridge"),
    Link("MN11", "BK03", "bridge", "Manhattan Bridge"),
    Link("MN11", "BK01", "bridge", "Williamsburg Bridge"),
    Link("MN02", "NJ01", "bridge", "George Washington Bridge"),
    Link("MN09", "NJ02", "subway", "PATH Hoboken-33rd St line"),
    Link("MN12", "NJ03", "subway", "PATH Newark-World Trade Center line"),
    Link("BX04", "QN01", "bridge", "RFK (Triborough) Bridge, Bronx leg"),
    Link("BX06", "QN03", "bridge", "Throgs Neck Bridge; Bronx-Whitestone Bridge"),
    Link("QN06", "QN07", "bridge", "Cross Bay Veterans Memorial Bridge"),
    Link("QN02", "BK01", "bridge", "Pulaski Bridge"),
    Link("QN05", "BK02", "land", "Ridgewood-Bushwick land border"),
    Link("QN06", "BK09", "land", "Cypress Hills / City Line border"),
    Link("QN07", "BK06", "bridge", "Marine Parkway-Gil Hodges Memorial Bridge"),
    Link("BK07", "SI03", "bridge", "Verrazzano-Narrows Bridge"),
    Link("SI02", "NJ04", "bridge", "Bayonne Bridge"),
)

# RECONSTRUCTED (RULINGS.md §5.2, NY-14): optional tunnel / ferry links, off by default.
OPTIONAL_LINKS: Final[tuple[Link, ...]] = (
    Link("MN08", "NJ02", "tunnel", "Lincoln Tunnel"),
    Link("MN10", "NJ03", "tunnel", "Holland Tunnel"),
    Link("MN12", "SI01", "ferry", "Staten Island Ferry"),
)


class Mission(NamedTuple):
    id: str
    boroughs: tuple[str, ...]  # occupy every neighborhood of each of these boroughs


# RECONSTRUCTED (RULINGS.md §5.3): the six occupation cards.
MISSIONS: Final[tuple[Mission, ...]] = (
    Mission("O1", ("manhattan", "staten_island")),
    Mission("O2", ("manhattan", "jersey")),
    Mission("O3", ("brooklyn", "queens")),
    Mission("O4", ("brooklyn", "bronx")),
    Mission("O5", ("queens", "bronx", "staten_island")),
    Mission("O6", ("queens", "jersey", "staten_island")),
)

# RECONSTRUCTED (RULINGS.md §5.4, NY-2): the two River Wild cards, wild for any pest.
WILD_CARDS: Final[tuple[str, ...]] = ("RW1", "RW2")

# RULEBOOK (setup step 1): starting cubes by player count.
STARTING_CUBES: Final[dict[int, int]] = {3: 35, 4: 30, 5: 25, 6: 20}

# RULEBOOK (step C) and NY-5: the value of the 1st, 2nd, ... set turned in (global count);
# after the last listed value each further set is worth 5 more.
SET_VALUES: Final[tuple[int, ...]] = (4, 6, 8, 10, 12, 15, 20)
SET_VALUE_STEP: Final[int] = 5

# RULEBOOK (step A) and NY-3: neighborhoods // 3, minimum 3 (of part A only).
BASE_DIVISOR: Final[int] = 3
BASE_MINIMUM: Final[int] = 3
