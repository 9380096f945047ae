"""The pot in the API: never a player, always in fields of its own.

The settlement keeps money still in a pot (an open match, a carried pot) as
a party of its own, held by the game leader, so that balances plus the pot
sum to zero and the plan of transfers settles everything. Inside the service
layer that party is named by ``services.POT_PARTY``, a label; a client would
take it for a player. So the API never shows it as a key or a name: players'
maps hold players only, the pot's amounts are in ``pot_account``, and a
transfer or payment into or out of the pot says so in ``to_pot``/``from_pot``
(with ``to``/``from`` null). A payment into the pot is entered the same way.
"""

from __future__ import annotations

from typing import Any

from referee.engine import BadInput
from referee.services import POT_PARTY


def players_only(values: dict[str, int]) -> dict[str, int]:
    """A per-party map without the pot."""
    return {k: v for k, v in values.items() if k != POT_PARTY}


def pot_amount(values: dict[str, int]) -> int:
    return values.get(POT_PARTY, 0)


def parties_json(payer: str, payee: str | None) -> dict[str, Any]:
    """``from``/``to`` of a transfer or payment: a player's name, or null and ``*_pot: true`` for the pot."""
    return {"from": None if payer == POT_PARTY else payer, "to": None if payee in (POT_PARTY, "") else payee,
            "from_pot": payer == POT_PARTY, "to_pot": payee == POT_PARTY}


def _flag(data: dict[str, Any], field: str) -> bool:
    value = data.get(field, False)
    if not isinstance(value, bool):
        raise BadInput(field, "%(field)s must be true or false.", field=field)
    return value


def parties_in(data: dict[str, Any], players: list[str]) -> tuple[object, object]:
    """A payment's payer and payee from the request: a player's name each, or the pot by its flag."""
    out: list[object] = []
    for side in ("from", "to"):
        if _flag(data, f"{side}_pot"):
            if data.get(side) is not None:
                raise BadInput(side, "Give %(side)s or %(side)s_pot, not both.", side=side)
            out.append(POT_PARTY)
            continue
        name = data.get(side)
        if name is None:
            raise BadInput(side, "%(side)s must be a player of this night (or %(side)s_pot: true).", side=side)
        if name == POT_PARTY and name not in players:  # the label is no name: the pot is named by its flag
            raise BadInput(side, "%(side)s must be a player of this night (or %(side)s_pot: true).", side=side)
        out.append(name)
    return out[0], out[1]
