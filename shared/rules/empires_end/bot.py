"""HeuristicBot: plays Empire's End from its own view and legal list only.

Besides the view it reads the static component tables (``data.py``: tile VPs, card texts),
which every client has printed on its cards. Heuristics, all in "VP-equivalents":
* Disasters: take when what the take brings (bids + innovation + a little for the marker)
  is worth the location it destroys; else pass with a free bid, else bid the most plentiful
  accepted token; replace a disaster aimed at a valuable location of its own.
* Economy: every 1->2 conversion, Wheat->Coin, and 1->1 conversions while Wheat is plentiful;
  Repeat the most productive ability.
* Industry: refresh, repair the most valuable affordable location, build the best-valued
  affordable cards (free ones first), sell the rest.
* Conflict: the bid that maximises tier + expected victory value minus the tokens spent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shared.rules.api import Json, SealedSlot
from shared.rules.empires_end.data import CARD, CONFLICT, TILE, Ability, ability

TOKEN_VALUE = {"wheat": 0.8, "hammer": 1.0, "axe": 0.8, "coin": 1.2}
KIND_VALUE = {
    "gain": 3.0,
    "gain_per_adjacent": 2.5,
    "vp_per_adjacent_destroyed": 1.5,
    "convert": 2.0,
    "refresh_adjacent": 1.0,
    "repeat": 2.5,
    "build_discount": 1.5,
    "swap": 0.5,
    "move_innovation": 0.5,
    "repair_discount_adjacent": 1.0,
    "refresh_one_adjacent": 0.8,
    "free_bid": 2.0,
    "replace_disaster": 2.0,
    "strength": 2.0,
    "vp_per_destroyed": 6.0,
    "copy_end": 4.0,
    "end_per_adjacent_destroyed": 3.0,
    "vp_per_token": 3.0,
    "end_per_adjacent": 3.0,
    "most_destroyed": 4.0,
}


def _typed(legal: Sequence[Json], kind: str) -> list[dict[str, Any]]:
    return [a for a in legal if isinstance(a, dict) and a.get("type") == kind]


class HeuristicBot:
    """A sensible, deterministic Empire's End player (api.Bot)."""

    # --- helpers over the view -------------------------------------------------------

    @staticmethod
    def _me(view: dict[str, Json], seat: int) -> dict[str, Any]:
        players = view["players"]
        assert isinstance(players, list)
        me = players[seat]
        assert isinstance(me, dict)
        return me

    @staticmethod
    def _res(view: dict[str, Json]) -> dict[str, int]:
        you = view.get("you")
        assert isinstance(you, dict)
        res = you["resources"]
        assert isinstance(res, dict)
        return {k: int(v) for k, v in res.items()}  # type: ignore[arg-type]

    @staticmethod
    def _phases_left(view: dict[str, Json]) -> int:
        track = view["track"]
        assert isinstance(track, list)
        return len(track) - int(view["phase_number"])  # type: ignore[arg-type]

    def _innovation_value(self, ab: Ability, view: dict[str, Json]) -> float:
        base = KIND_VALUE.get(ab.kind, 1.0)
        left = self._phases_left(view)
        if ab.phase == "end":
            return base
        return base * min(1.0, 0.25 + left / 12)

    def _place_value(self, empire: list[dict[str, Any]], pos: int, card: str) -> float:
        """Where to put an innovation: next to what it counts, under a valuable tile."""
        ab = ability(card)
        value = float(empire[pos]["vp"]) / 20
        if ab.per is not None:
            for q in (pos - 1, pos + 1):
                if 0 <= q < len(empire) and empire[q]["healthy"] and empire[q]["type"] == ab.per:
                    value += 2
        if ab.kind in ("refresh_adjacent", "refresh_one_adjacent"):
            for q in (pos - 1, pos + 1):
                if 0 <= q < len(empire):
                    value += sum(
                        1
                        for x in empire[q]["innovations"]
                        if ability(x["card"]).phase == "disaster"
                    )
        return value

    def _loss(self, empire: list[dict[str, Any]], target: int) -> float:
        """What a take costs: the location the disaster destroys (EEND-4 nearest healthy)."""
        t = target - 1
        if empire[t]["healthy"]:
            cands = [t]
        else:
            cands = []
            for d in range(1, len(empire)):
                cands = [p for p in (t - d, t + d) if 0 <= p < len(empire) and empire[p]["healthy"]]
                if cands:
                    break
        if not cands:
            return 0.0
        return float(min(empire[p]["vp"] + 1.5 * len(empire[p]["innovations"]) for p in cands))

    # --- turns -------------------------------------------------------------------------

    def act(self, view: dict[str, Json], legal: Sequence[Json], seat: int) -> Json:
        types = {a.get("type") for a in legal if isinstance(a, dict)}
        me = self._me(view, seat)
        empire: list[dict[str, Any]] = me["empire"]
        if "destroy" in types:
            return min(
                _typed(legal, "destroy"),
                key=lambda a: self._loss(empire, 1 + self._pos(empire, a["tile"])),
            )
        if "place" in types:
            disaster = view["disaster"]
            assert isinstance(disaster, dict)
            res_ = disaster["resolution"]
            assert isinstance(res_, dict)
            card = str(res_["card"])
            return max(
                _typed(legal, "place"),
                key=lambda a: self._place_value(empire, self._pos(empire, a["tile"]), card),
            )
        if "shore_up" in types:
            total = sum(self._res(view).values())
            want = max(0, 3 - total) if self._phases_left(view) > 3 else 0
            options = _typed(legal, "shore_up")
            return max((a for a in options if a["coins"] <= want), key=lambda a: a["coins"])
        if types & {"bid", "take", "free_bid", "replace", "end_turn"}:
            return self._disaster(view, legal, empire)
        if "choose_order" in types:
            return {"type": "choose_order", "first": "economy"}
        if types & {"convert", "repeat", "end_economy"}:
            return self._economy(view, legal, empire)
        return self._industry(view, legal, empire)

    @staticmethod
    def _pos(empire: list[dict[str, Any]], tile: str) -> int:
        return next(i for i, loc in enumerate(empire) if loc["tile"] == tile)

    def _disaster(
        self, view: dict[str, Json], legal: Sequence[Json], empire: list[dict[str, Any]]
    ) -> Json:
        disaster = view["disaster"]
        assert isinstance(disaster, dict)
        slots = disaster["slots"]
        assert isinstance(slots, list)
        res = self._res(view)
        pending = sorted({a["disaster"] for a in _typed(legal, "take")})
        for a in _typed(legal, "replace"):
            slot = slots[a["disaster"]]
            assert isinstance(slot, dict)
            if a["disaster"] in pending and self._loss(empire, int(slot["target"])) >= 11:
                return a
        if not pending:
            return (
                _typed(legal, "end_turn")[0]
                if "end_turn" in {a.get("type") for a in legal if isinstance(a, dict)}
                else legal[0]
            )
        # Address the disaster we most want to take first (its bids can pay for the other).
        best: tuple[float, int] | None = None
        for i in pending:
            slot = slots[i]
            assert isinstance(slot, dict)
            bids = slot["bids"]
            assert isinstance(bids, dict)
            gain = sum(TOKEN_VALUE[k] * int(v) for k, v in bids.items())  # type: ignore[arg-type]
            gain += self._innovation_value(CARD[str(slot["card"])].ability, view) + 0.5
            margin = gain - self._loss(empire, int(slot["target"]))
            if best is None or margin > best[0]:
                best = (margin, i)
        assert best is not None
        margin, i = best
        tokens = sum(res.values())
        if margin >= 0 or (tokens <= 2 and margin > -4):
            return {"type": "take", "disaster": i}
        free = [a for a in _typed(legal, "free_bid") if a["disaster"] == i]
        if free:
            return free[0]
        bids_ = [a for a in _typed(legal, "bid") if a["disaster"] == i]
        if bids_:
            return max(
                bids_,
                key=lambda a: (a["resource"] != "coin", res.get(a["resource"], 0)),
            )
        return {"type": "take", "disaster": i}

    def _economy(
        self, view: dict[str, Json], legal: Sequence[Json], empire: list[dict[str, Any]]
    ) -> Json:
        res = self._res(view)
        repeats = _typed(legal, "repeat")
        if repeats:
            return max(repeats, key=lambda a: self._repeat_value(ability(a["target"]), res))
        for a in _typed(legal, "convert"):
            ab = ability(a["source"])
            out = ab.outs[a["option"]]
            size = sum(n for _, n in out)
            if size >= 2 or out[0][0] == "coin":
                return a
        if res.get("wheat", 0) >= 3:
            options = _typed(legal, "convert")
            if options:
                return min(
                    options,
                    key=lambda a: res.get(ability(a["source"]).outs[a["option"]][0][0], 0),
                )
        return {"type": "end_economy"}

    @staticmethod
    def _repeat_value(ab: Ability, res: dict[str, int]) -> float:
        if ab.kind == "gain":
            return sum(n for _, n in ab.res) + ab.vp
        if ab.kind == "convert":
            return 1.0 if ab.src and res.get(ab.src, 0) > ab.times else 0.5
        if ab.kind in ("gain_per_adjacent", "vp_per_adjacent_destroyed"):
            return 1.5
        return 0.0

    def _industry(
        self, view: dict[str, Json], legal: Sequence[Json], empire: list[dict[str, Any]]
    ) -> Json:
        refresh = _typed(legal, "refresh")
        if refresh:
            return refresh[0]
        repairs = _typed(legal, "repair")
        if repairs:
            best = max(repairs, key=lambda a: (TILE[a["tile"]].vp, -a["coins"]))
            if TILE[best["tile"]].vp >= 5:
                return best
        builds = _typed(legal, "build")
        if builds:

            def build_key(a: dict[str, Any]) -> tuple[float, float]:
                card = CARD[a["card"]]
                paid = a["coins"] * 1.2 + (card.cost - a["coins"])
                value = self._innovation_value(card.ability, view) - 0.5 * paid - a["coins"]
                place = self._place_value(empire, self._pos(empire, a["tile"]), a["card"])
                return value, place

            best = max(builds, key=build_key)
            if build_key(best)[0] > 0.2:
                return best
        sells = _typed(legal, "sell")
        if sells:
            return min(sells, key=lambda a: self._innovation_value(ability(a["card"]), view))
        return {"type": "end_industry"}

    # --- sealed conflict bid -------------------------------------------------------------

    def choose(
        self, view: dict[str, Json], slot: SealedSlot, seat: int, public_parts: dict[str, Json]
    ) -> Json:
        allowed = [c for c in (slot.allowed or ()) if isinstance(c, dict)]
        card_id = view.get("conflict_card")
        if not allowed or not isinstance(card_id, str):
            return slot.default
        card = CONFLICT[card_id]
        me = self._me(view, seat)
        base = int(me["base_strength"])
        players = view["players"]
        assert isinstance(players, list)
        rivals = [
            int(p["base_strength"])  # type: ignore[arg-type, index, call-overload]
            for i, p in enumerate(players)
            if i != seat
        ]
        expected_rival = max(rivals, default=0) + 2
        late = self._phases_left(view) <= 3
        axe_cost = 0.3 if late else 0.7
        coin_cost = 0.6 if late else 1.2

        def reward_value(total: int) -> float:
            value: float
            if total >= card.tier3_min:
                value = card.tier3.vp + len(card.tier3.res) + (1 if card.tier3.refresh else 0)
            elif total >= card.tier2_min:
                value = card.tier2.vp + len(card.tier2.res) + (1 if card.tier2.refresh else 0)
            elif total <= card.penalty_max:
                value = -card.penalty_vp
            else:
                value = 0.0
            if total >= expected_rival:
                value += card.victory.vp + len(card.victory.res) + 1.5  # no upheaval
            elif total >= expected_rival - 2:
                value += 0.4 * (card.victory.vp + 2)
            return float(value)

        def utility(c: dict[str, Any]) -> float:
            axes, coins = int(c["axes"]), int(c["coins"])
            return reward_value(base + axes + coins) - axe_cost * axes - coin_cost * coins

        return max(allowed, key=lambda c: (utility(c), -int(c["coins"]), -int(c["axes"])))  # type: ignore[arg-type]
