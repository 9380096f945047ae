"""Paying one transfer of the plan: the payee's details and what a payment says.

Part of the ledger (:mod:`referee.ledger`). :mod:`referee.ledger.payments`
says who pays whom and records what was paid; this module keeps what a payer
needs to pay it: the Swish number or IBAN a player gives (checked by
:mod:`referee.payment_codes`, written here) and the payment's message.
Nothing here changes a balance. The pictures and buttons made of them (the
Swish or GiroCode QR code a sheet prints and a page shows, the Pay and copy
buttons) are the web layer's: ``referee/web/pay.py`` (issue 48.1).
"""

from __future__ import annotations

from typing import Any

from referee import payment_codes
from referee.engine import BadInput
from referee.ledger import live
from referee.ledger.tx import writing
from referee.models import Night, Player, db


def set_payment_details(night: Night, name: object, swish: object = "", iban: object = "",
                        holder: object = "") -> Player:
    """A player's Swish number and/or IBAN with the account holder (validated)."""
    player = next((seat.player for seat in night.seats if seat.player.name == name), None)
    if player is None:
        raise BadInput("player", "player must be a player of this night.")
    values: dict[str, Any] = {}
    checks = (("swish", "swish", swish, payment_codes.normalize_swish),
              ("iban", "iban", iban, payment_codes.normalize_iban),
              ("account_holder", "holder", holder, payment_codes.clean_holder))
    for key, field_name, given, check in checks:
        try:
            values[key] = check(str(given)) if given else ""
        except payment_codes.DetailError as exc:  # translated in the page or API answer
            raise BadInput(field_name, exc.template, **exc.params) from None
    if values["iban"] and not values["account_holder"]:
        raise BadInput("holder", "An IBAN needs the account holder's name.")
    with writing():
        player = db.session.get(Player, player.id) or player
        for key, value in values.items():
            setattr(player, key, value)
        live.note(night.id, "players")
    return player


def player_details(night: Night) -> dict[str, Player]:
    return {seat.player.name: seat.player for seat in night.seats}


def payment_message(night: Night) -> str:
    """What a payment says: the night's name and date (the payer may edit it in Swish)."""
    return f"{night.name} {night.date or night.created_at.date()}"
