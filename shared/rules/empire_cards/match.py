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


def play_rps(state: State, shapes: dict[int, str], events: Events) -> None:
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
    public(events, "rps", hand=state.hand_no, round=k,
           shapes={str(s): shapes[s] for s in sorted(shapes)}, stay=list(stay))
    state.rps_round = k
    if len(stay) == 1:
        choose_dealer(state, stay[0], events)
    else:
        state.rps_seats = stay


def choose_dealer(state: State, dealer: int, events: Events) -> None:
    """CG-3: the rock-paper-scissors winner deals and starts: a random seat by default, or the
    winner of the sealed rounds (CG-S3)."""
    public(events, "dealer", hand=state.hand_no, seat=dealer)
    state.dealer = state.active = dealer
    state.phase, state.rps_round, state.rps_seats = "shuffle", 0, ()


def grab(state: State, value: int, events: Events) -> None:
    """CG-2 with CG-S4: the dealer's grab was exact on a 3 of a 0..6 public draw (1 in 7);
    a perfect deal takes 2 more cards from the top of the deck at once."""
    perfect = value == 3
    extra = min(2, len(state.deck)) if perfect else 0
    if extra:
        taken = state.deck[:extra]
        state.deck = state.deck[extra:]
        add_to_hand(state, state.dealer, taken)
        private(events, "drew", (state.dealer,), seat=state.dealer, cards=list(taken))
    public(events, "perfect_deal", hand=state.hand_no, seat=state.dealer, perfect=perfect,
           extra=extra)
    events.add("turn", {"seat": state.dealer, "turn": 0})
    state.phase = "play"


def deal(state: State, perm: tuple[int, ...], events: Events) -> None:
    """Shuffle (secret) and deal 10 to each player, starting with the dealer (CG-2: no
    perfect-deal bonus)."""
    cards = all_cards(state.n_seats)
    deck = tuple(cards[i] for i in perm)
    state.deck = deck[HAND_SIZE * state.n_seats :]
    order = (state.dealer, *opponents_from_left(state, state.dealer))
    for k, seat in enumerate(order):
        hand = deck[k * HAND_SIZE : (k + 1) * HAND_SIZE]
        add_to_hand(state, seat, hand)
        private(events, "dealt", (seat,), seat=seat, cards=list(hand))
    public(events, "deal", hand=state.hand_no, dealer=state.dealer, cards_each=HAND_SIZE)
    if state.options.perfect_deal:  # CG-2, CG-S4: the grab decides the bonus first
        state.phase = "grab"
        return
    events.add("turn", {"seat": state.dealer, "turn": 0})
    state.phase = "play"


def end_turn(state: State, events: Events) -> None:
    """Finish the active turn; pass to the left, skipping seats with a pending skip (CG-14)."""
    turn_no = state.turn_no + 1
    state.turn_no, state.drawn, state.interactions = turn_no, False, ()
    state.trade = state.battle = state.spell = None
    state.tribute_from = ()
    cap = state.options.hand_turn_limit(state.n_seats)  # CG-S1
    if cap is not None and turn_no >= cap:
        public(events, "hand_undecided", hand=state.hand_no, turns=turn_no)
        finish_hand(state, events)
        return
    seat = state.active
    for _ in range(state.n_seats):
        seat = (seat + 1) % state.n_seats
        p = state.players[seat]
        if not p.skip_pending:
            break
        state.writable(seat).skip_pending = False
        events.add("skipped", {"seat": seat})
    events.add("turn", {"seat": seat, "turn": turn_no})
    state.active, state.phase = seat, "play"


def has_won_condition(player: Player) -> bool:
    """CG-12: four empire sets, or a Barbarian set, or a Serf Rebellion on the table."""
    return len(player.empire_sets) >= EMPIRE_SETS_TO_WIN or bool(player.specials)


def _holders(state: State, seats: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(s for s in seats if any(state.players[s].achievements(r) for r in REGIMES))


def hand_won(state: State, winner: int, events: Events) -> None:
    """The winner collects rewards (CG-19). Every reward the winner qualifies for applies:
    the regime achievement for four empire sets, then Barbarian (or Horde) plunder, then the
    Serf Rebellion destruction."""
    p = state.writable(winner)
    public(events, "hand_won", hand=state.hand_no, seat=winner)
    p.hands_won += 1
    if len(p.empire_sets) >= EMPIRE_SETS_TO_WIN and p.regime is not None:
        p.add_achievement(p.regime, 1)
        public(events, "achievement", seat=winner, regime=p.regime, how="empire")
    opponents = opponents_from_left(state, winner)
    holders = _holders(state, opponents)
    kinds = {s.kind for s in p.specials}
    tasks: list[RewardTask] = []
    if "horde" in kinds:
        tasks += [RewardTask("plunder_from", t) for t in holders]
    elif "barbarian" in kinds:
        tasks.append(RewardTask("plunder_one"))
    if kinds & {"horde", "barbarian"} and not holders:
        tasks = [RewardTask("claim_any")]  # "If no one else has an achievement card"
    if "serf" in kinds:
        tasks += [RewardTask("destroy_from", t) for t in holders]
    state.hand_winner, state.phase, state.rewards = winner, "reward", tuple(tasks)
    advance_rewards(state, events)


def _applicable(state: State, task: RewardTask) -> bool:
    assert state.hand_winner is not None
    if task.kind == "claim_any":
        return True
    if task.kind == "plunder_one":
        return bool(_holders(state, opponents_from_left(state, state.hand_winner)))
    assert task.target is not None
    return bool(_holders(state, (task.target,)))


def advance_rewards(state: State, events: Events) -> None:
    tasks = state.rewards
    while tasks and not _applicable(state, tasks[0]):
        tasks = tasks[1:]
    state.rewards = tasks
    if not tasks:
        finish_hand(state, events)


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


def apply_reward(state: State, action: Plunder | Destroy, events: Events) -> Rejection | None:
    if action.model_dump() not in reward_actions(state):
        return reject("action/illegal", "not one of the pending achievement choices")
    winner = state.hand_winner
    assert winner is not None
    r = action.regime
    if action.target is not None:
        state.writable(action.target).add_achievement(r, -1)
    if isinstance(action, Plunder):
        state.writable(winner).add_achievement(r, 1)
        public(events, "plunder", seat=winner, target=action.target, regime=r)
    else:
        public(events, "destroy", seat=winner, target=action.target, regime=r)
    state.rewards = state.rewards[1:]
    advance_rewards(state, events)
    return None


def finish_hand(state: State, events: Events) -> None:
    """Check for the Emperor Overlord (CG-19), the match cap, or deal the next hand."""
    state.hands_played += 1
    state.rewards = ()
    state.last_winner = state.hand_winner
    for seat, p in enumerate(state.players):
        if all(p.achievements(r) for r in REGIMES):
            public(events, "emperor_overlord", seat=seat)
            state.overlord, state.phase = seat, "over"
            return
    cap = state.options.max_hands
    if cap is not None and state.hands_played >= cap:
        public(events, "match_over", hands=state.hands_played)
        state.phase = "over"
        return
    state.players = tuple(
        Player(thief=p.thief, merchant=p.merchant, warlord=p.warlord, hands_won=p.hands_won)
        for p in state.players
    )
    public(events, "hand_start", hand=state.hand_no + 1)
    state.phase = "dealer"
    state.hand_no += 1
    state.deck = all_cards(state.n_seats)
    state.turn_no, state.drawn, state.interactions = 0, False, ()
    state.trade = state.battle = state.spell = None
    state.tribute_from, state.hand_winner, state.owed, state.rebuilds = (), None, (), 0
