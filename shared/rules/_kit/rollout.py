"""Rollouts: random seats to the end of a game on one clone of its state, no events.

What ``registry.get_rollout(name)`` answers: ``Rollout(game)``, the kit's one rollout driver
over the game's one engine (the ``RolloutDriver`` shape):

* ``from_state(state)``: a playout's own copy of a contract state (a clone);
* ``to_state(state)``: the contract state back (a clone: equal to, and encoding like, the
  state the contract path reaches);
* ``playout(state, rng, key, max_steps, on_step)``: random seats in place;
* ``play_random(...)``: a full game with uniformly random seats, exactly as
  ``_kit.playout.play`` with its default seats: the same ``random.Random`` calls in the same
  order, the same dealer draws (``shared.fairness.draws.draw`` from the same key), so the same
  seed gives the same moves and the same final state.

The driver asks the game's own ``next`` and ``legal_actions`` (unmemoised: the state changes
in place) and plays each move with the game's in-place moves (``GameBase.play_chance``,
``play_joint``, ``play_act``: what ``apply`` runs on its clone) with events off; an act is
built from its listed JSON as the kit's act guard builds it. It is not a second rules
implementation.

The property tests (``tests/property/test_rollouts.py``) check that a rollout plays
``play``'s games move by move over many seeds: the move of every step, the state after it
(compared as encoded JSON) and the final outcome. A playout is pure: no I/O, no clock,
randomness only from the ``random.Random`` it is given and the draw key.
"""
from __future__ import annotations

import hmac
import random
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from shared.fairness import draws
from shared.rules._kit.model import Events
from shared.rules.api import Chance, JointAction, Json, Simultaneous, Terminal, Turn

# (kind, payload) of one applied move, for the equivalence tests:
#   ("chance", label, values) | ("joint", round_id, choices) | ("act", seat, action)
RolloutMove = tuple[str, Any, Any]
OnStep = Callable[[Any, RolloutMove], None]  # called after each move: (state, move)


@dataclass
class RolloutResult:
    state: Any  # the state at the end (``to_state`` gives the contract's copy)
    steps: int = 0
    finished: bool = False


class RolloutDriver(Protocol):
    """What ``registry.get_rollout`` answers."""

    def from_state(self, state: Any) -> Any: ...

    def to_state(self, state: Any) -> Any: ...

    def playout(self, state: Any, rng: random.Random, key: bytes, max_steps: int = 100_000,
                on_step: OnStep | None = None) -> RolloutResult: ...

    def play_random(
        self,
        n_seats: int,
        options: dict[str, Json] | None = None,
        *,
        seed: int = 0,
        max_steps: int = 100_000,
        key: bytes | None = None,
        on_step: OnStep | None = None,
    ) -> RolloutResult: ...


def draw_key(seed: int, key: bytes | None) -> bytes:
    """The draw key ``_kit.playout.play`` uses for ``seed`` unless one is given."""
    return key if key is not None else seed.to_bytes(8, "big") * 4


_QUIET = Events(keep=False)


class Rollout:
    """The rollout driver of one game (a ``GameBase`` on a plain state with ``clone()``)."""

    def __init__(self, game: Any) -> None:
        cls = type(game)
        self.game = game
        # the game's own functions, not the template's memo of them (it remembers a state by
        # identity, and a playout changes its one state in place)
        self._next = getattr(cls.next, "__wrapped__", cls.next).__get__(game)
        self._legal = getattr(cls.legal_actions, "__wrapped__", cls.legal_actions).__get__(game)

    def from_state(self, state: Any) -> Any:
        return state.clone()

    def to_state(self, state: Any) -> Any:
        return state.clone()

    def playout(self, state: Any, rng: random.Random, key: bytes, max_steps: int = 100_000,
                on_step: OnStep | None = None) -> RolloutResult:
        """Play ``state`` on (in place) with random seats to the end or ``max_steps`` moves."""
        game = self.game
        next_node, legal = self._next, self._legal
        play_chance, play_joint, play_act = game.play_chance, game.play_joint, game.play_act
        built = game._legal_action
        # rng.choice(seq) is seq[rng._randbelow(len(seq))] (CPython 3.11-3.13): the draws of
        # _kit.playout's random seats without choice's frame (tests/property pins it)
        below = rng._randbelow  # type: ignore[attr-defined]
        dice: Callable[[str, int, int], list[int]] | None = None
        shuffle: Callable[[str, int], list[int]] | None = None
        out = RolloutResult(state=state)
        steps = 0
        move: RolloutMove
        for _ in range(max_steps):
            node = next_node(state)
            kind = type(node)
            if kind is Turn:
                seats = node.seats or node.open_to
                seat = seats[below(len(seats))]
                actions = legal(state, seat)
                action = actions[below(len(actions))]
                refused = play_act(state, node, seat, built(action), _QUIET)
                assert refused is None, refused  # a listed action is always accepted
                move = ("act", seat, action)
            elif kind is Chance:
                how = node.draw
                if how == "dice":  # the keyed HMAC made once per playout
                    dice = dice or dice_drawer(key)
                    values = dice(node.label, node.n, node.count)
                elif how == "shuffle":
                    shuffle = shuffle or shuffle_drawer(key)
                    values = shuffle(node.label, node.n)
                else:
                    values = draws.draw(key, node.label, how, node.n, node.count)
                play_chance(state, node, tuple(values), _QUIET)
                move = ("chance", node.label, tuple(values))
            elif kind is Simultaneous:
                choices: dict[str, Json] = {}
                for slot in node.slots:
                    allowed = slot.allowed
                    choices[slot.key] = allowed[below(len(allowed))] if allowed else slot.default
                play_joint(state, node, JointAction(round_id=node.round_id, choices=choices),
                           _QUIET)
                move = ("joint", node.round_id, choices)
            elif kind is Terminal:
                out.finished = True
                break
            else:  # pragma: no cover - the Node union is closed
                raise AssertionError(f"unknown node {node!r}")
            steps += 1
            if on_step is not None:
                out.steps = steps
                on_step(state, move)
        out.steps = steps
        return out

    def play_random(
        self,
        n_seats: int,
        options: dict[str, Json] | None = None,
        *,
        seed: int = 0,
        max_steps: int = 100_000,
        key: bytes | None = None,
        on_step: OnStep | None = None,
    ) -> RolloutResult:
        """``_kit.playout.play(game, n_seats, options, seed=seed)`` with random seats: the
        seats' ``random.Random(seed)`` and the draw key ``draw_key(seed, key)``."""
        return self.playout(self.game.setup(options or {}, n_seats), random.Random(seed),
                            draw_key(seed, key), max_steps, on_step)


_TWO64 = 1 << 64
_WORDS = struct.Struct(">4Q")  # a SHA-256 block as four big-endian 8-byte words
_BLOCK0 = (0).to_bytes(4, "big")
_UNPACK: dict[int, Callable[[bytes], tuple[int, ...]]] = {}  # per number of blocks
_U32 = tuple(b.to_bytes(4, "big") for b in range(64))  # u32(block) of the first blocks
# a word below this is never refused for a range of up to 2**32 (the refused words of range m
# are the top 2**64 % m < m)
_SAFE = _TWO64 - (1 << 32)


def dice_drawer(key: bytes) -> Callable[[str, int, int], list[int]]:
    """``shared.fairness.draws.dice`` for one draw key, with one HMAC block for up to four
    dice (from a copy of the keyed HMAC: the key's pads are hashed once per playout).

    The first block of the label's stream holds four 8-byte words; a word the rejection
    sampling refuses (p < 2**-61 for a d6) or a fifth die falls back to ``draws.dice``."""
    keyed: Any = hmac.new(key, digestmod="sha256")
    keyed = getattr(keyed, "_hmac", None) or keyed  # OpenSSL's own object: no wrapper calls

    def dice(label: str, sides: int, count: int = 1) -> list[int]:
        if count > 4:
            return draws.dice(key, label, sides, count)
        raw = label.encode()
        h = keyed.copy()
        h.update(len(raw).to_bytes(4, "big") + raw + _BLOCK0)  # LP(label) || u32(0)
        block = h.digest()
        limit = _TWO64 - (_TWO64 % sides)
        out = []
        for i in range(0, 8 * count, 8):
            x = int.from_bytes(block[i:i + 8], "big")
            if x >= limit:
                return draws.dice(key, label, sides, count)
            out.append(x % sides + 1)
        return out

    return dice


def shuffle_drawer(key: bytes) -> Callable[[str, int], list[int]]:
    """``shared.fairness.draws.shuffle`` for one draw key: the same label stream (HMAC blocks
    of LP(label) || u32(block), 8-byte words, rejection sampling) and the same Durstenfeld
    Fisher-Yates, from a copy of the keyed HMAC per block.

    A shuffle of n items takes the stream's first n - 1 words unless one is refused (p <
    2**-32 per word): those words' blocks are hashed first and unpacked at once, and only a
    word within 2**32 of the top sends the shuffle to the word-by-word path."""
    keyed: Any = hmac.new(key, digestmod="sha256")
    keyed = getattr(keyed, "_hmac", None) or keyed

    def exact(label: str, n: int) -> list[int]:  # the word-by-word path
        raw = label.encode()
        prefix = len(raw).to_bytes(4, "big") + raw  # LP(label)
        words: list[int] = []  # the stream's 8-byte words not used yet, last first
        block = 0
        items = list(range(n))
        for i in range(n - 1, 0, -1):
            if not words:
                h = keyed.copy()
                h.update(prefix + block.to_bytes(4, "big"))
                words = list(_WORDS.unpack(h.digest()))
                words.reverse()
                block += 1
            x = words.pop()
            if x >= _SAFE:  # maybe refused (p < 2**-32): the exact rejection sampling
                limit = _TWO64 - (_TWO64 % (i + 1))
                while x >= limit:
                    # (the refill again, inline: as a local function both sites cost 15%
                    # more per 52-card shuffle, 16.4 -> 18.8 us)
                    if not words:
                        h = keyed.copy()
                        h.update(prefix + block.to_bytes(4, "big"))
                        words = list(_WORDS.unpack(h.digest()))
                        words.reverse()
                        block += 1
                    x = words.pop()
            j = x % (i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    def shuffle(label: str, n: int) -> list[int]:
        if n > 1 << 32:  # beyond _SAFE's range
            return draws.shuffle(key, label, n)
        if n < 2:
            return list(range(n))
        raw = label.encode()
        prefix = len(raw).to_bytes(4, "big") + raw  # LP(label)
        blocks = (n + 2) // 4  # the blocks of the first n - 1 words
        digests = []
        copy = keyed.copy
        for block in _U32[:blocks] if blocks <= len(_U32) else (
                b.to_bytes(4, "big") for b in range(blocks)):
            h = copy()
            h.update(prefix + block)
            digests.append(h.digest())
        unpack = _UNPACK.get(blocks)
        if unpack is None:
            unpack = _UNPACK[blocks] = struct.Struct(f">{4 * blocks}Q").unpack
        words = unpack(b"".join(digests))
        if max(words[:n - 1]) >= _SAFE:  # maybe refused
            return exact(label, n)
        items = list(range(n))
        # (the last block's spare words unused)
        for i, x in zip(range(n - 1, 0, -1), words, strict=False):
            j = x % (i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    return shuffle
