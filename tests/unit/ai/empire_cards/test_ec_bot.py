"""HeuristicBot: sensible decisions from its view, whole games through the playout kit, and
(slow) its record against random seats."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from shared.ai.empire_cards.bot import HeuristicBot
from shared.ai.playout import bot_actor, bot_chooser
from shared.rules._kit.playout import play
from shared.rules.api import Act, Transition
from shared.rules.empire_cards import GAME

BOT = HeuristicBot()


def decide(state, seat):
    return BOT.act(GAME.view(state, seat), list(GAME.legal_actions(state, seat)), seat)


def bot_vs_random(n_games: int, seats: int, turn_cap: int, offset: int = 0) -> Counter[str]:
    tally: Counter[str] = Counter()
    for seed in range(offset, offset + n_games):
        me = seed % seats
        out = play(
            GAME,
            seats,
            {"max_hands": 1, "max_turns_per_hand": turn_cap},
            seed=seed,
            actors={me: bot_actor(BOT)},
            choosers={me: bot_chooser(BOT)},
        )
        assert out.finished
        winner = out.state.last_winner
        tally["bot" if winner == me else "undecided" if winner is None else "random"] += 1
    return tally


@pytest.mark.unit
def test_bot_draws_lays_sets_and_wins(make) -> None:
    hand = ["3S0", "4S0", "5S0", "6S0", "3H0", "4D0", "5C0", "W0", "KD0"]
    state = make(hands={0: hand})
    assert decide(state, 0) == {"type": "draw"}
    state = replace(state, drawn=True)
    action = decide(state, 0)
    assert action["type"] == "empire" and action["cards"] == ["3S0", "4S0", "5S0", "6S0"]
    sets = [[f"{r}{s}1" for r in ("3", "4", "5", "6")] for s in "SHDC"]
    last = make(hands={0: ["KD0"]}, empire={0: sets}, regimes={0: "thief"}, drawn=True)
    assert decide(last, 0) == {"type": "discard", "card": "KD0"}


@pytest.mark.unit
def test_bot_discards_a_2_and_skips_the_leader(make, play_act) -> None:
    state = make(
        hands={0: ["2S0", "KD0", "KH0", "3S0"], 1: ["9S0"], 2: ["8S0"]},
        empire={2: [["7S1", "8S1", "9S1", "10S1"]]},
        regimes={2: "merchant", 0: "thief"},
        drawn=True,
    )
    action = decide(state, 0)
    assert action in (
        {"type": "discard", "card": "2S0"},
        {"type": "army", "cards": ["KH0", "KD0"], "set": None},
    )
    st, _ = play_act(state, 0, {"type": "discard", "card": "2S0"})
    assert decide(st, 0) == {"type": "sabotage_skip", "target": 2}


@pytest.mark.unit
def test_bot_defends_with_a_winning_set(make, play_act) -> None:
    state = make(
        hands={0: ["3S0"], 1: ["KS0"]},
        armies={0: [["5S0", "5H0", "5D0"]], 1: [["10S0", "10H0", "10D0"], ["JS0", "JH0", "JD0"]]},
    )
    st, _ = play_act(state, 0, {"type": "battle", "target": 1, "rank": "K"})
    assert decide(st, 1) == {"type": "battle_set", "set": 1}  # Warlord beats Thief


@pytest.mark.unit
def test_bot_mass_trade_gives_its_least_useful_cards(make, play_act) -> None:
    state = make(
        hands={0: ["W0", "8S0", "KD0", "3C0", "3H0", "4H0"], 1: ["9S0", "9H0", "4D0"]},
        regimes={0: "thief"},
        empire={0: [["3S1", "4S1", "5S1", "6S1"]]},
        drawn=True,
        options={"expert_spells": True},
    )
    st, _ = play_act(state, 0, {"type": "spell", "card": "8S0"})
    assert decide(st, 0) == {"type": "spell_trade", "target": 1, "n": 1}  # one junk card
    st, _ = play_act(st, 0, {"type": "spell_trade", "target": 1, "n": 1})
    assert decide(st, 0) == {"type": "spell_give", "card": "KD0"}


@pytest.mark.unit
def test_bot_beats_random_seats_quickly() -> None:
    tally = bot_vs_random(8, 4, turn_cap=200)
    assert tally["bot"] >= 6, tally


@pytest.mark.unit
@pytest.mark.parametrize(("seats", "expert"), [(3, False), (5, True)])
def test_bot_match_plays_to_an_emperor_overlord(seats: int, expert: bool) -> None:
    """Every seat a HeuristicBot, through bot_actor/bot_chooser (what the services do):
    the match runs hand after hand until someone holds all three achievements (CG-19)."""
    bots = {s: bot_actor(BOT) for s in range(seats)}
    choosers = {s: bot_chooser(BOT) for s in range(seats)}
    out = play(
        GAME,
        seats,
        {"expert_spells": expert, "max_turns_per_hand": 500,  # CG-S1/CG-S2 off: to the
         "max_rounds_per_hand": None, "max_hands": None},  # Overlord, as in the rulebook
        seed=seats,
        actors=bots,
        choosers=choosers,
    )
    assert out.finished and out.state.overlord is not None
    assert GAME.score(out.state).winners == (out.state.overlord,)
    assert sum(e.type == "hand_won" for e in out.events) >= 3


@pytest.mark.slow
@pytest.mark.unit
def test_bot_against_random_seats_240_games() -> None:
    """Reported figure: the bot's hand-win rate against 3 random seats (4 players)."""
    tally = bot_vs_random(240, 4, turn_cap=300, offset=1000)
    print(f"\nHeuristicBot vs 3 random seats, 240 single-hand games: {dict(tally)}")
    assert tally["bot"] >= 0.9 * 240, tally
    tally3 = bot_vs_random(240, 3, turn_cap=300, offset=5000)
    print(f"HeuristicBot vs 2 random seats, 240 single-hand games: {dict(tally3)}")
    assert tally3["bot"] >= 0.9 * 240, tally3


@pytest.mark.unit
def test_bot_actions_are_always_legal_in_its_own_games() -> None:
    seen = 0

    def check(state, move) -> None:
        nonlocal seen
        if isinstance(move, Act):
            seen += 1
            assert isinstance(GAME.apply(state, move), Transition)

    out = play(
        GAME,
        4,
        {"max_hands": 1, "max_turns_per_hand": 200},
        seed=3,
        actors={s: bot_actor(BOT) for s in range(4)},
        on_step=check,
    )
    assert out.finished and seen > 50


EXPERT_OPTIONS = {"expert_spells": True}


@pytest.mark.unit
def test_cg17_bot_casts_mass_sabotage_at_armies_it_can_take(make) -> None:
    """With expert spells the bot casts where it helps. A 2 on a spare Wizard takes a
    set from each opponent's unprotected army (CG-17), worth more than the discard."""
    armies = {1: [["AS0", "AH0"], ["7S0", "7H0", "7D0"]], 2: [["QS0", "QH0", "QD0"]]}
    hand = ["W4", "W5", "2D0", "KD0", "9H0"]
    state = make(hands={0: hand}, armies=armies, drawn=True, options=EXPERT_OPTIONS)
    assert decide(state, 0) == {"type": "spell", "card": "2D0"}
    assert decide(replace(state, options=state.options.model_copy(
        update={"expert_spells": False})), 0)["type"] != "spell"


@pytest.mark.unit
def test_cg17_bot_keeps_its_wizard_when_no_spell_pays(make) -> None:
    """Nobody has an army or cards worth a spell: the Wizard stays a wild card."""
    state = make(hands={0: ["W4", "2D0", "KD0", "9H0"], 1: [], 2: []}, drawn=True,
                 options=EXPERT_OPTIONS)
    assert decide(state, 0)["type"] != "spell"


@pytest.mark.unit
def test_cg17_bot_picks_the_biggest_battle_set_for_berserker(make, play_act) -> None:
    armies = {1: [["AS0", "AH0"], ["7S0", "7H0", "7D0"]]}
    state = make(hands={0: ["W4", "KS0", "QD0"]}, armies=armies, drawn=True,
                 options=EXPERT_OPTIONS)
    st, _ = play_act(state, 0, {"type": "spell", "card": "KS0"})  # Berserker (warlord card)
    assert decide(st, 0) == {"type": "spell_pick", "target": 1, "set": 1}



@pytest.mark.unit
def test_cg17_bot_raises_the_dead_from_deep_discard_piles(make) -> None:
    """Two Wizards and a dozen cards in the discard piles: rise of the dead (every
    pile's cards but 2s and Wizards to our hand) is worth both Wizards."""
    piles = {1: ["3S0", "4H0", "6D0", "9C0", "2S0"], 2: ["5S0", "8H0", "10D0", "JC0", "2H0"],
             0: ["4S0", "7H0", "QD0", "KC0"]}  # nothing on top worth a steal
    state = make(hands={0: ["W4", "W5", "KD0", "9H0"]}, discards=piles, drawn=True,
                 options=EXPERT_OPTIONS)
    assert decide(state, 0) in ({"type": "spell", "card": "W4"}, {"type": "spell", "card": "W5"})
    shallow = make(hands={0: ["W4", "W5", "KD0", "9H0"]}, discards={1: ["3S0"]}, drawn=True,
                   options=EXPERT_OPTIONS)
    assert decide(shallow, 0)["type"] != "spell"  # one card to raise: keep the Wizards


@pytest.mark.unit
def test_cg17_bots_cast_every_expert_spell_over_seeded_games() -> None:
    """Over 12 seeded 4-seat bot games with expert spells (the golden 5p variant's
    caps), the bots cast each of the five spells, and the mass trades and risings they cast
    move cards (a cast that does nothing would not help)."""
    cast: Counter[str] = Counter()
    traded = risen = 0
    for seed in range(12):
        out = play(GAME, 4, {"expert_spells": True, "max_hands": 2, "max_turns_per_hand": 40},
                   seed=seed, actors=dict.fromkeys(range(4), bot_actor(BOT)),
                   choosers=dict.fromkeys(range(4), bot_chooser(BOT)), max_steps=20_000)
        assert out.finished
        for e in out.events:
            if e.type == "spell":
                cast[str(e.data["spell"])] += 1
            elif e.type == "mass_trade":
                traded += int(e.data["n"])  # type: ignore[arg-type]
            elif e.type == "rise_of_the_dead":
                risen += int(e.data["count"])  # type: ignore[arg-type]
    assert set(cast) == {"mass_sabotage", "mass_steal", "berserker", "mass_trade",
                         "rise_of_the_dead"}, cast
    assert traded >= cast["mass_trade"] and risen >= cast["rise_of_the_dead"]
