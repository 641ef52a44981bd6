"""The contract's values keep their dataclass constructors: keyword-only, every default and
default factory, required fields required, frozen once made."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from shared.rules import api

pytestmark = pytest.mark.unit

VALUES = (api.Turn, api.SealedSlot, api.Simultaneous, api.Chance, api.Terminal, api.Act,
          api.JointAction, api.ChanceOutcome, api.Event, api.Rejection)


@pytest.mark.parametrize("cls", VALUES)
def test_fields_are_keyword_only_with_their_defaults(cls: type) -> None:
    fields = dataclasses.fields(cls)
    required = {f.name for f in fields
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    given = {name: index for index, name in enumerate(sorted(required))}
    made = cls(**given)
    for f in fields:
        if f.name in given:
            assert getattr(made, f.name) == given[f.name]
        elif f.default is not dataclasses.MISSING:
            assert getattr(made, f.name) == f.default
        else:
            assert getattr(made, f.name) == f.default_factory()  # type: ignore[misc]
    for name in required:
        with pytest.raises(TypeError):
            cls(**{k: v for k, v in given.items() if k != name})
    if given:
        with pytest.raises(TypeError):
            cls(*given.values())
    with pytest.raises(TypeError):
        cls(**given, unknown=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, fields[0].name, "x")
    assert made == cls(**given)


def test_a_default_factory_makes_a_fresh_value() -> None:
    one, two = api.Event(type="a"), api.Event(type="a")
    assert one.data == {} and one.data is not two.data
    assert api.Event(type="a", data={"x": 1}).data == {"x": 1}


def test_a_move_round_trips_through_its_json() -> None:
    act = api.Act(seat=2, action={"type": "pass"})
    assert api.to_json(act) == {"kind": "act", "seat": 2, "action": {"type": "pass"}}
    assert api.from_json(api.Act, api.to_json(act)) == act
    assert api.MOVE.validate_python(api.to_json(act)) == act


def test_a_transition_makes_its_recorded_events_when_read() -> None:
    from shared.rules._kit.base import transition
    from shared.rules._kit.model import Events

    events = Events()
    events.add("drawn", {"n": 2})
    events.add("dealt", {"cards": [1]}, visible_to=(1,))
    done = transition("state", events)
    made = (api.Event(type="drawn", data={"n": 2}),
            api.Event(type="dealt", data={"cards": [1]}, visible_to=(1,)))
    assert done.events == made and done.events is done.events
    assert done == api.Transition("state", made) == api.Transition("state", list(made))
    assert api.Transition("state").events == ()
    assert pickle.loads(pickle.dumps(done)) == done == copy.copy(done) == copy.deepcopy(done)
    with pytest.raises(dataclasses.FrozenInstanceError):
        done.state = "other"  # type: ignore[misc]
    match done:
        case api.Transition(state, got):
            assert (state, got) == ("state", made)


def test_an_event_log_keeps_each_moves_events_in_order() -> None:
    """Made events and recorded ones, in the order of their moves; a move without events
    adds none; a read is remembered until the next move adds some."""
    from shared.rules._kit.base import transition
    from shared.rules._kit.model import Events

    recorded = Events()
    recorded.add("drawn", {"n": 2})
    recorded.add("dealt", {"cards": [1]}, visible_to=(1,))
    made = api.Event(type="bid", data={"seat": 0})
    log = api.EventLog()
    assert log.events() == []
    log.add(api.Transition("s0", (made,)))
    log.add(transition("s1", recorded))
    log.add(transition("s2", Events()))
    first = log.events()
    assert first == [made, api.Event(type="drawn", data={"n": 2}),
                     api.Event(type="dealt", data={"cards": [1]}, visible_to=(1,))]
    assert log.events() is first
    log.add(api.Transition("s3", (made,)))
    assert log.events() == [*first, made]
