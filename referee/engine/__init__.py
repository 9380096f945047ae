"""The pure rules engine: one module per game, plus shared pieces.

Nothing in this package imports Flask, SQLAlchemy or does I/O (a test checks
it), so every rule can be tested in milliseconds and replayed from the event
log at will.

Every game module (``svangknack``, ``kul``, ``schloapfer``, ``schwimmen``,
``knaker``) offers the same small interface, bound and typed per game by its
:class:`~referee.engine.spec.GameSpec` (the one face of a game above the engine), so
that the service layer can drive any game without knowing its rules:

- ``NAME``: the game's name in the API (``"svangknack"``).
- ``Options``: a frozen dataclass of the options named in ``rules/``, each with
  its default; parsed from JSON by :func:`referee.engine.records.parse_options`.
- ``State``: a frozen dataclass derived from :class:`MatchState`, so every
  state has ``players`` (seat order, clockwise), ``balances`` (minor units,
  aligned with ``players``), ``pot`` (minor units, 0 when the game has none),
  ``finished``, ``stake`` and ``dealer``. Invariant after every step:
  ``sum(balances) + pot == 0``.
- ``start(players, dealer, stake, options) -> State``: a new match; raises
  :class:`RuleViolation` (player count, stake rules).
- ``parse_round(state, data, money) -> Round``: the API's round payload into
  a frozen record; raises :class:`BadInput` for a malformed payload (unknown
  fields, wrong types, names not in the match).
- ``apply(state, rnd) -> State``: the next state, or :class:`RuleViolation`.
- ``round_json(rnd, money) -> dict``: the canonical payload of a round (what
  the log stores; ``parse_round`` of it gives the same round back).
- ``close(state, how, to) -> State``: the leader ends the match; a pot still
  on the table is disposed of ``split``/``award``/``carry`` where the game has
  one.
- ``state_json(state, money) -> dict``: the state as the API contract shows it
  (player names, money as strings).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


def fill(template: str, params: Mapping[str, object]) -> str:
    """A message template with its ``%(name)s`` parameters filled in (none: the text as it is)."""
    return template % params if params else template


def with_rule(text: str, rule: str) -> str:
    """``text`` naming ``rule`` at its end, unless it names it already ("(SK-15)" or "(forced overtaking, SK-15)")."""
    return text if f"({rule})" in text or f" {rule})" in text else f"{text.rstrip('.')} ({rule})."


class Explained(Exception):
    """An error whose sentence is kept as a template with parameters until it is shown.

    The one place of what :func:`explain` reads (``template``, ``params``,
    ``rule``), so the engine's errors and the services' conflict are
    explained alike in the reader's language.
    """

    rule: str | None = None

    def __init__(self, template: str, params: dict[str, object]) -> None:
        self.template = template
        self.params = params
        text = fill(template, params)
        self.message = with_rule(text, self.rule) if self.rule else text
        super().__init__(self.message)


class RuleViolation(Explained):
    """A rule of ``rules/`` forbids what was entered; nothing changes.

    ``rule`` is the rule's ID (``"SK-8"``), ``message`` one sentence a person
    at the table understands and which names the rule, in English.

    The sentence is written as a template with ``%(name)s`` parameters, so
    that the web layer can show it in the player's language: the template is
    the message ID of the translation catalogs (``pybabel extract`` takes
    the second argument of ``RuleViolation`` and ``BadInput``), ``params``
    fill it in. The engine itself stays free of Flask and of languages.
    """

    rule: str

    def __init__(self, rule: str, message: str, /, **params: object) -> None:
        self.rule = rule
        super().__init__(message, params)


class BadInput(Explained, ValueError):
    """The input is malformed (a shape error, not a rule): the API's 400.

    ``message`` is a template with ``params``, as for :class:`RuleViolation`.
    """

    def __init__(self, field: str, message: str, /, **params: object) -> None:
        self.field = field
        super().__init__(message, params)


@dataclass(frozen=True)
class Msg:
    """A piece of text for people, kept as a template with parameters until it is shown.

    For sentences built from parts (the Knaker referee's "an ace may not go
    on the K♠ beneath the 7"): each part is a ``Msg`` of its own, so every
    piece is translated in the catalogs and the sentence reads naturally in
    each language. ``rule`` ends the text with the rule ID unless it names
    it (:func:`with_rule`); ``cap`` makes its first letter upper case (a part
    that opens a sentence); ``strip`` removes a trailing "(rule)." and full
    stop (a sentence that goes on). ``str(msg)`` is the English. A plain
    record (tuples, text), so engine records holding one can be stored.
    """

    template: str
    args: tuple[Arg, ...] = ()
    rule: str | None = None
    cap: bool = False
    strip: str | None = None

    @property
    def params(self) -> dict[str, object]:
        return {a.name: a.msg if a.msg is not None else a.text for a in self.args}

    def text(self, translate: Callable[[str], str] = str) -> str:
        params = {a.name: a.msg.text(translate) if a.msg is not None else a.text for a in self.args}
        out = fill(translate(self.template), params)
        if self.rule:
            out = with_rule(out, self.rule)
        if self.strip:
            out = out.removesuffix(f" ({self.strip}).").rstrip(".")
        return out[:1].upper() + out[1:] if self.cap else out

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True)
class Arg:
    """One parameter of a :class:`Msg`: plain text, or a message of its own."""

    name: str
    text: str | None = None
    msg: Msg | None = None


def _args(params: Mapping[str, object]) -> tuple[Arg, ...]:
    return tuple(Arg(k, msg=v) if isinstance(v, Msg) else Arg(k, msg=as_msg(v)) if isinstance(v, BaseException)
                 else Arg(k, text=str(v)) for k, v in params.items())


def msg(template: str, /, *, rule: str | None = None, cap: bool = False, **params: object) -> Msg:
    """A :class:`Msg` (mark the template with ``N_`` for the catalogs)."""
    return Msg(template, _args(params), rule, cap)


def as_msg(exc: BaseException) -> Msg:
    """An engine exception's message as a :class:`Msg` (the same text in every language)."""
    template = getattr(exc, "template", None)
    if template is None:
        return Msg(str(getattr(exc, "message", exc)))
    return Msg(template, _args(getattr(exc, "params", {}) or {}), getattr(exc, "rule", None))


def show(item: Msg | BaseException | str, translate: Callable[[str], str] = str) -> str:
    """A :class:`Msg`, an engine exception or plain text, as text in the language of ``translate``."""
    if isinstance(item, Msg):
        return item.text(translate)
    if isinstance(item, BaseException):
        return explain(item, translate)
    return item


def explain(exc: BaseException, translate: Callable[[str], str] = str) -> str:
    """The message of an engine exception, its template passed through ``translate`` first.

    The one way an engine message becomes text: the web layer passes the
    request's gettext, the in-browser engine (``referee/browser.py``) the
    gettext of the page's language, and the default leaves it English. A
    parameter that is itself an engine exception (a void refused because of a
    later round's rule) is explained the same way.
    """
    template = getattr(exc, "template", None)
    if template is None:
        return str(getattr(exc, "message", exc))
    params = {k: show(v, translate) if isinstance(v, (Msg, BaseException)) else v
              for k, v in (getattr(exc, "params", {}) or {}).items()}
    text = fill(translate(template), params)
    rule = getattr(exc, "rule", None)
    return with_rule(text, rule) if rule else text


def N_(template: str) -> str:
    """Marks a message template made outside a ``RuleViolation``/``BadInput`` call for extraction."""
    return template


@dataclass(frozen=True, kw_only=True)
class MatchState:
    """What every game's state holds, so the ledger and pages read them alike.

    Keyword-only, so that each game's ``State`` can add fields without
    defaults after these (every engine builds its states by keyword).
    """

    players: tuple[str, ...]
    balances: tuple[int, ...]
    pot: int
    finished: bool
    stake: int
    dealer: int


def violation(apply: Callable[[Any, Any], Any], state: Any, rnd: Any) -> RuleViolation | None:
    """The yes/no twin of a game's ``apply``: the violation, or None when ``rnd`` is valid.

    Every game's ``check`` is this (the PokerKit ``can_``/``verify_`` pattern):
    pages and tests ask without catching exceptions themselves.
    """
    try:
        apply(state, rnd)
    except RuleViolation as exc:
        return exc
    return None


def seat_of(players: tuple[str, ...], name: str, field: str) -> int:
    """The seat of ``name`` among ``players``; a name not at the table is the input's fault (:class:`BadInput`
    on ``field``), shown shortened so a pasted novel does not fill the error."""
    try:
        return players.index(name)
    except ValueError:
        raise BadInput(field, "%(name)s is not a player of this match.", name=repr(name[:40])) from None


def check_conserved(balances: tuple[int, ...], pot: int) -> None:
    """Assert the money invariant: balances plus pot are exactly zero.

    A failure here is a bug in the engine, never a user error, so it is an
    ``AssertionError`` and not a :class:`RuleViolation`.
    """
    total = sum(balances) + pot
    if total != 0:
        raise AssertionError(f"money not conserved: balances {balances} + pot {pot} = {total}")


__all__ = ["Arg", "BadInput", "Msg", "RuleViolation", "as_msg", "check_conserved", "msg", "show",
           "violation"]
