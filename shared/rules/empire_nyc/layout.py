"""Where each neighborhood is drawn on the web page's map (an SVG in a 1000 x 1060 box).

Presentation data only: no rule reads it. The positions follow the real geography loosely
(Jersey west of Manhattan, the Bronx north, Queens east, Brooklyn south-east, Staten Island
south-west); the links drawn are exactly ``data.NEIGHBORHOODS``' adjacency.
"""

from __future__ import annotations

from typing import Final

VIEWBOX: Final[tuple[int, int, int, int]] = (0, 0, 1000, 1060)
NODE_RADIUS: Final = 40

POSITIONS: Final[dict[str, tuple[int, int]]] = {
    "MN01": (430, 80), "MN02": (390, 175), "MN03": (400, 270), "MN04": (500, 300),
    "MN05": (330, 360), "MN06": (450, 385), "MN07": (560, 420), "MN08": (400, 470),
    "MN09": (300, 545), "MN10": (380, 575), "MN11": (480, 580), "MN12": (400, 670),
    "BX01": (540, 60), "BX02": (660, 90), "BX03": (510, 170), "BX04": (610, 220),
    "BX05": (740, 200), "BX06": (850, 150),
    "QN01": (660, 330), "QN02": (620, 470), "QN03": (840, 310), "QN04": (770, 450),
    "QN05": (720, 580), "QN06": (890, 560), "QN07": (900, 860),
    "BK01": (570, 580), "BK02": (670, 680), "BK03": (500, 700), "BK04": (600, 760),
    "BK05": (470, 810), "BK06": (650, 860), "BK07": (430, 930), "BK08": (590, 980),
    "BK09": (790, 740),
    "SI01": (290, 830), "SI02": (170, 870), "SI03": (320, 950), "SI04": (180, 1000),
    "NJ01": (230, 160), "NJ02": (190, 400), "NJ03": (200, 600), "NJ04": (130, 740),
}

# Fill colour per borough (text on them is dark: contrast checked against #111).
BOROUGH_COLOURS: Final[dict[str, str]] = {
    "manhattan": "#f2d675",
    "bronx": "#f0a986",
    "queens": "#a9d39a",
    "brooklyn": "#9cc0ea",
    "staten_island": "#d2b3e0",
    "jersey": "#c9d0d8",
}
