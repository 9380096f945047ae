"""Shared plumbing for the engine's frozen records.

Three things every game needs, written once:

- :func:`parse_options` reads a match's options from JSON into the game's
  frozen ``Options`` dataclass. An option's allowed values live in its field
  metadata (``choices`` for text, ``min``/``max`` for numbers), so the rules
  and the checks of an option stand in one place.
- The ``expect_*`` helpers check the *shape* of a round payload and raise
  :class:`BadInput` (the API's 400) naming the field.
- :func:`dump` / :func:`load` turn a frozen state into plain JSON and back,
  for the cached snapshot of a match. They understand ``int``, ``str``,
  ``bool``, ``None``, unions with ``None``, ``tuple[X, ...]``, fixed tuples
  and nested frozen dataclasses: the only types a ``State`` may use, which
  also keeps states truly immutable (no lists or dicts inside).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeVar

from referee.engine import BadInput, seat_of

T = TypeVar("T")

#: Largest whole number accepted in any payload field (eyes, tricks, lives...).
MAX_INT = 1_000_000


def option(default: Any, *, choices: Sequence[Any] | None = None, minimum: int | None = None,
           maximum: int | None = None, doc: str = "") -> Any:
    """A dataclass field for an option, with its allowed values and meaning."""
    meta: dict[str, Any] = {"doc": doc}
    if choices is not None:
        meta["choices"] = tuple(choices)
    if minimum is not None:
        meta["min"] = minimum
    if maximum is not None:
        meta["max"] = maximum
    return dataclasses.field(default=default, metadata=meta)


def parse_options(cls: type[T], data: object) -> T:
    """Build ``cls`` (a frozen Options dataclass) from a JSON object.

    Unknown options and values outside an option's allowed set are a
    :class:`BadInput` naming ``options.<name>``; a missing option takes its
    default.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise BadInput("options", "options must be an object.")
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for name, value in data.items():
        if name not in fields:
            if not fields:
                raise BadInput(f"options.{name}", "Unknown option %(name)s (known: none).",
                               name=repr(str(name)[:40]))
            raise BadInput(f"options.{name}", "Unknown option %(name)s (known: %(known)s).",
                           name=repr(str(name)[:40]), known=", ".join(sorted(fields)))
        values[name] = _check_option(name, value, hints[name], fields[name].metadata)
    return cls(**values)


def _check_option(name: str, value: Any, hint: Any, meta: Mapping[str, Any]) -> Any:
    field = f"options.{name}"
    allows_none = _allows_none(hint)
    base = _strip_none(hint)
    if value is None:
        if allows_none:
            return None
        raise BadInput(field, "Option %(name)s needs a value.", name=name)
    if base is bool:
        if not isinstance(value, bool):
            raise BadInput(field, "Option %(name)s must be true or false.", name=name)
    elif base is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadInput(field, "Option %(name)s must be a whole number.", name=name)
        lo, hi = meta.get("min", -MAX_INT), meta.get("max", MAX_INT)
        if not lo <= value <= hi:
            raise BadInput(field, "Option %(name)s must be from %(lo)s to %(hi)s.", name=name, lo=lo, hi=hi)
    elif base is str:
        if not isinstance(value, str):
            raise BadInput(field, "Option %(name)s must be text.", name=name)
    choices = meta.get("choices")
    if choices is not None and value not in choices:
        raise BadInput(field, "Option %(name)s must be one of: %(allowed)s.", name=name,
                       allowed=", ".join(str(c) for c in choices))
    return value


def options_json(options: Any) -> dict[str, Any]:
    """An Options instance as a JSON object (all options, defaults included)."""
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}


def describe_options(cls: type[Any]) -> list[dict[str, Any]]:
    """Each option's name, default, allowed values and meaning, for forms and docs."""
    out = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        base = _strip_none(hints[f.name])
        out.append({
            "name": f.name,
            "default": f.default,
            "type": {bool: "boolean", int: "integer", str: "string"}.get(base, "string"),
            "nullable": _allows_none(hints[f.name]),
            "choices": list(f.metadata.get("choices", ())) or None,
            "min": f.metadata.get("min"),
            "max": f.metadata.get("max"),
            "doc": f.metadata.get("doc", ""),
        })
    return out


# --- payload shape -----------------------------------------------------------

def expect_object(data: object, field: str, allowed: Collection[str],
                  required: Collection[str] = ()) -> Mapping[str, Any]:
    """A JSON object with only ``allowed`` keys and all ``required`` ones."""
    if not isinstance(data, Mapping):
        raise BadInput(field, "%(name)s must be a JSON object.", name=field)
    for key in data:
        if key not in allowed:
            raise BadInput(f"{field}.{key}" if field != "round" else str(key)[:60],
                           "Unknown field %(key)s.", key=repr(str(key)[:40]))
    for key in sorted(required):
        if key not in data:
            raise BadInput(key, "%(key)s is required.", key=key)
    return data


def expect_int(value: object, field: str) -> int:
    """A JSON whole number (not a bool, not a float) of sane size."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(field, "%(name)s must be a whole number.", name=field)
    if not -MAX_INT <= value <= MAX_INT:
        raise BadInput(field, "%(name)s is out of range.", name=field)
    return value


def expect_bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise BadInput(field, "%(name)s must be true or false.", name=field)
    return value


def expect_str(value: object, field: str, max_len: int = 200) -> str:
    if not isinstance(value, str):
        raise BadInput(field, "%(name)s must be text.", name=field)
    if len(value) > max_len:
        raise BadInput(field, "%(name)s is longer than %(max_len)s characters.", name=field, max_len=max_len)
    return value


def expect_player(players: tuple[str, ...], value: object, field: str) -> int:
    """The seat index of a player named in a payload (a string first, then :func:`referee.engine.seat_of`)."""
    return seat_of(players, expect_str(value, field), field)


def expect_players(players: tuple[str, ...], value: object, field: str) -> tuple[int, ...]:
    """Seat indices of a JSON list of distinct players of the match, in the given order."""
    if not isinstance(value, list):
        raise BadInput(field, "%(name)s must be a list of player names.", name=field)
    seats = tuple(expect_player(players, v, field) for v in value)
    if len(set(seats)) != len(seats):
        raise BadInput(field, "%(name)s names a player twice.", name=field)
    return seats


def expect_player_map(players: tuple[str, ...], value: object, field: str) -> dict[int, object]:
    """A JSON object keyed by player names: seat index -> raw value."""
    if not isinstance(value, Mapping):
        raise BadInput(field, "%(name)s must be an object keyed by player names.", name=field)
    return {expect_player(players, k, field): v for k, v in value.items()}


# --- snapshots ---------------------------------------------------------------

def dump(obj: Any) -> Any:
    """A frozen record as plain JSON data (dicts, lists, scalars)."""
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, tuple):
        return [dump(x) for x in obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {name: dump(getattr(obj, name)) for name in _names(type(obj))}
    raise TypeError(f"cannot dump {type(obj).__name__} in an engine record")


@functools.cache
def _names(cls: type[Any]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def load(cls: type[T], data: Any) -> T:
    """The inverse of :func:`dump` for the dataclass ``cls``."""
    return typing.cast(T, _load(cls, data))


@functools.cache
def _fields(cls: type[Any]) -> tuple[tuple[str, Any], ...]:
    """A dataclass's fields with their resolved types (resolving is slow; once per class)."""
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))


def _load(hint: Any, data: Any) -> Any:
    return _loader(hint)(data)


def _same(data: Any) -> Any:
    return data


@functools.cache
def _loader(hint: Any) -> Callable[[Any], Any]:
    """How to load data of the type ``hint``, worked out once per type (a snapshot is loaded on every
    round entry; asking ``typing`` about each field every time was most of the cost). The loaders
    of the parts are looked up as data reaches them, as before (a type no data reaches is never
    judged).
    """
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        cls, fields = hint, _fields(hint)
        return lambda data: cls(**{name: _loader(sub)(data[name]) for name, sub in fields if name in data})
    if _allows_none(hint):
        inner = _strip_none(hint)
        return lambda data: None if data is None else _loader(inner)(data)
    origin = typing.get_origin(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            item = args[0]
            return lambda data: tuple(_loader(item)(x) for x in data)
        return lambda data: tuple(_loader(a)(x) for a, x in zip(args, data, strict=True))
    if origin is typing.Literal or hint in (int, str, bool):
        return _same

    def refuse(_data: Any) -> Any:
        raise TypeError(f"cannot load {hint!r} into an engine record")

    return refuse


def _allows_none(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in typing.get_args(hint)


def _strip_none(hint: Any) -> Any:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return hint


__all__ = [
    "MAX_INT", "describe_options", "dump", "expect_bool", "expect_int", "expect_object",
    "expect_player", "expect_player_map", "expect_players", "expect_str", "load", "option",
    "options_json", "parse_options",
]
