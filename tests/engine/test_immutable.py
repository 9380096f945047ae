"""Every engine state of every game is deeply immutable.

The ledger replays a match's log into states, keeps them in caches shared by
requests, and every rejection test relies on a refused round leaving the
state as it was. That holds only if nothing reachable from a state can be
changed in place: frozen dataclasses all the way down, tuples and frozensets,
never a list, dict or set. This one test checks it for every game, twice:

- by type: every annotation reachable from a game's ``State``, ``Round`` and
  ``Options`` names only immutable types (so it holds for every value the
  type checker lets through, not only for the ones a test reached);
- by value: states a game really builds (any players, stake, options, a
  close of each kind) hold no mutable object at run time.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.engine import BadInput, RuleViolation
from referee.engine.records import describe_options, parse_options
from referee.engine.spec import SPECS

#: Leaf types a state may hold as they are.
_ATOMS = (type(None), bool, int, str)


def mutable_types(hint: Any, seen: set[Any] | None = None) -> list[str]:
    """The annotations reachable from ``hint`` that could be changed in place (empty: deeply immutable)."""
    seen = set() if seen is None else seen
    if hint in seen:
        return []
    seen.add(hint)
    origin = typing.get_origin(hint)
    if hint in _ATOMS or origin is typing.Literal or (isinstance(hint, type) and issubclass(hint, enum.Enum)):
        return []
    if origin in (tuple, frozenset, typing.Union, types.UnionType):
        return [bad for arg in typing.get_args(hint) if arg is not Ellipsis for bad in mutable_types(arg, seen)]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not hint.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            return [f"{hint.__qualname__} (not frozen)"]
        return [f"{hint.__qualname__}.{name}: {bad}" for name, field in typing.get_type_hints(hint).items()
                for bad in mutable_types(field, seen)]
    return [repr(hint)]


def mutable_values(value: Any, where: str = "state") -> list[str]:
    """The places inside ``value`` holding an object that could be changed in place."""
    if isinstance(value, (*_ATOMS, enum.Enum)):
        return []
    if isinstance(value, (tuple, frozenset)):
        return [bad for i, item in enumerate(value) for bad in mutable_values(item, f"{where}[{i}]")]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if not type(value).__dataclass_params__.frozen:  # type: ignore[attr-defined]
            return [f"{where} ({type(value).__qualname__}, not frozen)"]
        return [bad for f in dataclasses.fields(value)
                for bad in mutable_values(getattr(value, f.name), f"{where}.{f.name}")]
    return [f"{where} ({type(value).__qualname__})"]


def test_every_game_declares_only_immutable_records() -> None:
    for name, spec in SPECS.items():
        module = spec
        for record in (module.State, module.Round, module.Options):
            assert mutable_types(record) == [], f"{name}: {record.__qualname__}"


@dataclasses.dataclass(unsafe_hash=True)
class _Loose:
    n: int


@dataclasses.dataclass(frozen=True)
class _Bad:
    """A state as it must not be: a list, a dict and a dataclass that is not frozen."""

    seats: tuple[list[int], ...]
    notes: dict[str, int] | None
    marks: frozenset[_Loose]


def test_the_walks_find_what_could_change() -> None:
    """The checks above can fail: a list, a dict or a plain dataclass inside a state is found."""
    assert len(mutable_types(_Bad)) == 3
    assert len(mutable_values(_Bad(([1],), {}, frozenset()))) == 2
    assert mutable_values(_Bad((), None, frozenset({_Loose(1)}))) == ["state.marks[0] (_Loose, not frozen)"]


def _options(cls: type[Any], data: st.DataObject) -> Any:
    values: dict[str, Any] = {}
    for opt in describe_options(cls):
        if opt["choices"]:
            values[opt["name"]] = data.draw(st.sampled_from(opt["choices"]))
        elif opt["type"] == "boolean":
            values[opt["name"]] = data.draw(st.booleans())
        elif opt["type"] == "integer" and opt["min"] is not None and opt["max"] is not None:
            values[opt["name"]] = data.draw(st.integers(opt["min"], opt["max"]))
    return parse_options(cls, values)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(SPECS)), st.integers(2, 8), st.integers(0, 2000), st.data())
def test_property_every_state_a_game_builds_is_deeply_immutable(name: str, n: int, stake: int,
                                                                 data: st.DataObject) -> None:
    module = SPECS[name]
    players = tuple(f"P{i}" for i in range(n))
    try:
        state = module.start(players, data.draw(st.sampled_from(players)), stake,
                                  _options(module.Options, data))
    except (RuleViolation, BadInput):
        assume(False)
    assert mutable_values(state) == []
    how = data.draw(st.sampled_from(["split", "award", "carry"]))
    try:
        closed = module.close(state, how, players[0])
    except (RuleViolation, BadInput):
        return
    assert mutable_values(closed) == []
