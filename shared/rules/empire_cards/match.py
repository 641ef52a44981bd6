"""Hands and the match: deal, turn order, winning a hand, achievements (CG-3, CG-12, CG-19)."""

from __future__ import annotations

from shared.rules.api import Json, Rejection, reject
from shared.rules.empire_cards.actions import Destroy, Plunder
from shared.rules.empire_cards.data import (
    EMPIRE_SETS_TO_WIN,
    HAND_SIZE,
    PACKS_BY_SEATS,
    REGIMES,
    deck_cards,
)
from shared.rules.empire_cards.ops import (
    Events,
    add_to_hand,
    opponents_from_left,
    private,
    public,
    set_player,
)
from shared.rules.empire_cards.state import Options, Player, RewardTask, State


def all_cards(n_seats: int) -> tuple[str, ...]:
    return deck_cards(PACKS_BY_SEATS[n_seats])


def new_match(options: Options, n_seats: int) -> State:
    """Every card starts in the (unshuffled) deck; the first node picks the dealer."""
    return State(
        n_seats=n_seats,
        options=options,
        phase="dealer",
        deck=all_cards(n_seats),
        players=tuple(Player() for _ in range(n_seats)),
    )


SHAPES = ("rock", "paper", "scissors")
BEATS = {"rock": "scissors", "scissors": "paper", "paper": "rock"}
RPS_ROUNDS = 9  # CG-S3: after this many drawn rounds a random seat of those still in it


def rps_seats(state: State) -> tuple[int, ...]:
    """The seats still playing rock-paper-scissors for this hand's dealer (CG-S3)."""
    return state.rps_seats or tuple(range(state.n_seats))


def rps_default(seat: int, rps_round: int) -> str:
    """A seat that lets its time pass shows this shape (fixed at open, varying by round)."""
    return SHAPES[(seat + rps_round) % 3]


def play_rps(state: State, shapes: dict[int, str], events: Events) -> State:
    """CG-S3: one rock-paper-scissors round among ``rps_seats``. Exactly two shapes shown:
    the seats showing the winning one stay in (one left: the dealer); one or three shapes: a
    draw, all stay in. After RPS_ROUNDS rounds without a single winner, a random seat of
    those still in it deals (the Chance of CG-3 over them)."""
    shown = set(shapes.values())
    k = state.rps_round + 1
    stay = tuple(sorted(shapes))
    if len(shown) == 2:
        a, b = sorted(shown)
        win = a if BEATS[a] == b else b
        stay = tuple(s for s in sorted(shapes) if shapes[s] == win)
    events.append(public("rps", hand=state.hand_no, round=k,
                         shapes={str(s): shapes[s] for s in sorted(shapes)}, stay=list(stay)))
    if len(stay) == 1:
        return choose_dealer(state.model_copy(update={"rps_round": k}), stay[0], events)
    return state.model_copy(update={"rps_round": k, "rps_seats": stay})


def choose_dealer(state: State, dealer: int, events: Events) -> State:
    """CG-3: the rock-paper-scissors winner deals and starts: a random seat by default, or the
    winner of the sealed rounds (CG-S3)."""
    events.append(public("dealer", hand=state.hand_no, seat=dealer))
    return state.model_copy(update={"dealer": dealer, "active": dealer, "phase": "shuffle",
                                    "rps_round": 0, "rps_seats": ()})


def grab(state: State, value: int, events: Events) -> State:
    """CG-2 with CG-S4: the dealer's grab was exact on a 3 of a 0..6 public draw (1 in 7);
    a perfect deal takes 2 more cards from the top of the deck at once."""
    perfect = value == 3
    extra = min(2, len(state.deck)) if perfect else 0
    if extra:
        taken = state.deck[:extra]
        state = add_to_hand(state.model_copy(update={"deck": state.deck[extra:]}),
                            state.dealer, taken)
        events.append(private("drew", (state.dealer,), seat=state.dealer, cards=list(taken)))
    events.append(public("perfect_deal", hand=state.hand_no, seat=state.dealer,
                         perfect=perfect, extra=extra))
    events.append(public("turn", seat=state.dealer, turn=0))
    return state.model_copy(update={"phase": "play"})


def deal(state: State, perm: tuple[int, ...], events: Events) -> State:
    """Shuffle (secret) and deal 10 to each player, starting with the dealer (CG-2: no
    perfect-deal bonus)."""
    cards = all_cards(state.n_seats)
    deck = tuple(cards[i] for i in perm)
    state = state.model_copy(update={"deck": deck[HAND_SIZE * state.n_seats :]})
    order = (state.dealer, *opponents_from_left(state, state.dealer))
    for k, seat in enumerate(order):
        hand = deck[k * HAND_SIZE : (k + 1) * HAND_SIZE]
        state = add_to_hand(state, seat, hand)
        events.append(private("dealt", (seat,), seat=seat, cards=list(hand)))
    events.append(public("deal", hand=state.hand_no, dealer=state.dealer, cards_each=HAND_SIZE))
    if state.options.perfect_deal:  # CG-2, CG-S4: the grab decides the bonus first
        return state.model_copy(update={"phase": "grab"})
    events.append(public("turn", seat=state.dealer, turn=0))
    return state.model_copy(update={"phase": "play"})


def end_turn(state: State, events: Events) -> State:
    """Finish the active turn; pass to the left, skipping seats with a pending skip (CG-14)."""
    turn_no = state.turn_no + 1
    state = state.model_copy(
        update={
            "turn_no": turn_no,
            "drawn": False,
            "interactions": (),
            "trade": None,
            "battle": None,
            "spell": None,
            "tribute_from": (),
        }
    )
    cap = state.options.hand_turn_limit(state.n_seats)  # CG-S1
    if cap is not None and turn_no >= cap:
        events.append(public("hand_undecided", hand=state.hand_no, turns=turn_no))
        return finish_hand(state, events)
    seat = state.active
    for _ in range(state.n_seats):
        seat = (seat + 1) % state.n_seats
        if not state.players[seat].skip_pending:
            break
        state = set_player(state, seat, skip_pending=False)
        events.append(public("skipped", seat=seat))
    events.append(public("turn", seat=seat, turn=turn_no))
    return state.model_copy(update={"active": seat, "phase": "play"})


def has_won_condition(player: Player) -> bool:
    """CG-12: four empire sets, or a Barbarian set, or a Serf Rebellion on the table."""
    return len(player.empire_sets) >= EMPIRE_SETS_TO_WIN or bool(player.specials)


def _holders(state: State, seats: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(s for s in seats if any(state.players[s].achievements(r) for r in REGIMES))


def hand_won(state: State, winner: int, events: Events) -> State:
    """The winner collects rewards (CG-19). Every reward the winner qualifies for applies:
    the regime achievement for four empire sets, then Barbarian (or Horde) plunder, then the
    Serf Rebellion destruction."""
    p = state.players[winner]
    events.append(public("hand_won", hand=state.hand_no, seat=winner))
    state = set_player(state, winner, hands_won=p.hands_won + 1)
    if len(p.empire_sets) >= EMPIRE_SETS_TO_WIN and p.regime is not None:
        state = set_player(state, winner, **{p.regime: p.achievements(p.regime) + 1})
        events.append(public("achievement", seat=winner, regime=p.regime, how="empire"))
    opponents = opponents_from_left(state, winner)
    holders = _holders(state, opponents)
    kinds = {s.kind for s in p.specials}
    tasks: list[RewardTask] = []
    if "horde" in kinds:
        tasks += [RewardTask(kind="plunder_from", target=t) for t in holders]
    elif "barbarian" in kinds:
        tasks.append(RewardTask(kind="plunder_one"))
    if kinds & {"horde", "barbarian"} and not holders:
        tasks = [RewardTask(kind="claim_any")]  # "If no one else has an achievement card"
    if "serf" in kinds:
        tasks += [RewardTask(kind="destroy_from", target=t) for t in holders]
    state = state.model_copy(
        update={"hand_winner": winner, "phase": "reward", "rewards": tuple(tasks)}
    )
    return advance_rewards(state, events)


def _applicable(state: State, task: RewardTask) -> bool:
    assert state.hand_winner is not None
    if task.kind == "claim_any":
        return True
    if task.kind == "plunder_one":
        return bool(_holders(state, opponents_from_left(state, state.hand_winner)))
    assert task.target is not None
    return bool(_holders(state, (task.target,)))


def advance_rewards(state: State, events: Events) -> State:
    tasks = state.rewards
    while tasks and not _applicable(state, tasks[0]):
        tasks = tasks[1:]
    state = state.model_copy(update={"rewards": tasks})
    return state if tasks else finish_hand(state, events)


def reward_actions(state: State) -> list[Json]:
    if not state.rewards or state.hand_winner is None:
        return []
    task = state.rewards[0]
    if task.kind == "claim_any":
        return [{"type": "plunder", "target": None, "regime": r} for r in REGIMES]
    if task.kind == "plunder_one":
        targets = opponents_from_left(state, state.hand_winner)
    else:
        assert task.target is not None
        targets = (task.target,)
    kind = "destroy" if task.kind == "destroy_from" else "plunder"
    return [
        {"type": kind, "target": t, "regime": r}
        for t in targets
        for r in REGIMES
        if state.players[t].achievements(r)
    ]


def apply_reward(state: State, action: Plunder | Destroy, events: Events) -> State | Rejection:
    if action.model_dump() not in reward_actions(state):
        return reject("action/illegal", "not one of the pending achievement choices")
    winner = state.hand_winner
    assert winner is not None
    r = action.regime
    if action.target is not None:
        victim = state.players[action.target]
        state = set_player(state, action.target, **{r: victim.achievements(r) - 1})
    if isinstance(action, Plunder):
        state = set_player(state, winner, **{r: state.players[winner].achievements(r) + 1})
        events.append(public("plunder", seat=winner, target=action.target, regime=r))
    else:
        events.append(public("destroy", seat=winner, target=action.target, regime=r))
    state = state.model_copy(update={"rewards": state.rewards[1:]})
    return advance_rewards(state, events)


def finish_hand(state: State, events: Events) -> State:
    """Check for the Emperor Overlord (CG-19), the match cap, or deal the next hand."""
    state = state.model_copy(
        update={
            "hands_played": state.hands_played + 1,
            "rewards": (),
            "last_winner": state.hand_winner,
        }
    )
    for seat, p in enumerate(state.players):
        if all(p.achievements(r) for r in REGIMES):
            events.append(public("emperor_overlord", seat=seat))
            return state.model_copy(update={"overlord": seat, "phase": "over"})
    cap = state.options.max_hands
    if cap is not None and state.hands_played >= cap:
        events.append(public("match_over", hands=state.hands_played))
        return state.model_copy(update={"phase": "over"})
    players = tuple(
        Player(thief=p.thief, merchant=p.merchant, warlord=p.warlord, hands_won=p.hands_won)
        for p in state.players
    )
    events.append(public("hand_start", hand=state.hand_no + 1))
    return state.model_copy(
        update={
            "phase": "dealer",
            "hand_no": state.hand_no + 1,
            "players": players,
            "deck": all_cards(state.n_seats),
            "turn_no": 0,
            "drawn": False,
            "interactions": (),
            "trade": None,
            "battle": None,
            "spell": None,
            "tribute_from": (),
            "hand_winner": None,
            "owed": (),
            "rebuilds": 0,
        }
    )
