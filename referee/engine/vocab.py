"""The app's small vocabularies, each written once as a ``StrEnum``.

These words are stored in the database (``Round.kind``, ``Payment.kind``,
``Match.status``), in event payloads (a close's ``pot``) and in the JSON API.
A ``StrEnum`` member *is* its string (``CloseHow.SPLIT == "split"``, and it
is written to JSON and to the database as ``"split"``), so using the enum
changes no stored value and no reply; it only gives each vocabulary one
place, where a typo is a ``NameError`` instead of a branch never taken.
"""

from __future__ import annotations

from enum import StrEnum


class CloseHow(StrEnum):
    """What becomes of a pot still on the table when the leader closes a match (SK-14)."""

    SPLIT = "split"
    AWARD = "award"
    CARRY = "carry"


#: The close ``pot`` values in their documented order (for membership tests and the API schema).
CLOSE_HOWS: tuple[str, ...] = tuple(how.value for how in CloseHow)


class EventKind(StrEnum):
    """A match's logged event (``Round.kind``): a round, or the leader's close."""

    ROUND = "round"
    CLOSE = "close"


class PaymentKind(StrEnum):
    """A night's money row (``Payment.kind``): a payment, or one half of a debt carried to a later night."""

    PAYMENT = "payment"
    OPENING = "opening"
    CARRY_OUT = "carry_out"
    #: A tournament's prize (``carry_id`` ``tournament:<id>``), part of the night's result, not a payment:
    #: written at the finish, ``payer`` the player who won ``amount`` out of the pool (``payee`` the pot).
    #: A tournament finished before fees were owed from the start wrote its fee and prize net, one row per
    #: player with no payee (those rows add up to zero); both are read (:mod:`referee.ledger.tournament_money`).
    PRIZE = "prize"
    #: A tournament's entry fee (``carry_id`` ``tournament:<id>``), owed from its creation: ``payer`` the
    #: player, ``payee`` the pot (the pool), ``amount`` the fee. Part of the night's result, not a payment.
    FEE = "fee"


class MatchStatus(StrEnum):
    """``Match.status``: open while rounds may be entered, closed once its log finishes it."""

    OPEN = "open"
    CLOSED = "closed"
