"""The pot in what the app gives out: never a player, always in fields of its own.

The settlement keeps money still in a pot (an open match, a carried pot) as
a party of its own, held by the game leader, so that balances plus the pot
sum to zero and the plan of transfers settles everything. Inside the service
layer that party is named by ``ledger.POT_PARTY``, a label (and so it is
stored in payment rows); a client would take it for a player. So no answer
of the API and no export shows it as a key or a name: players' maps hold
players only, the pot's amounts are in fields of their own, and a transfer
or payment into or out of the pot says so in a flag (``to_pot``/``from_pot``
in the API, ``payer_pot``/``payee_pot`` in the JSON export, the ``pot`` column
of the CSV) with the name left empty. A payment into the pot is entered, and
an export read back, the same way.
"""

from __future__ import annotations

from typing import Any

from referee.engine import BadInput
from referee.ledger import POT_PARTY


def players_only(values: dict[str, int]) -> dict[str, int]:
    """A per-party map without the pot."""
    return {k: v for k, v in values.items() if k != POT_PARTY}


def pot_amount(values: dict[str, int]) -> int:
    return values.get(POT_PARTY, 0)


def parties_json(payer: str, payee: str | None, keys: tuple[str, str] = ("from", "to")) -> dict[str, Any]:
    """A transfer's or payment's two parties: each a player's name, or null and ``<key>_pot: true`` for the pot.

    (An opening or carry-out row has no payee: null, not the pot.)
    """
    out: dict[str, Any] = {}
    for key, name in zip(keys, (payer, payee), strict=True):
        out[key] = None if name in (POT_PARTY, "", None) else name
        out[f"{key}_pot"] = name == POT_PARTY
    return out


def _flag(data: dict[str, Any], key: str, field: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise BadInput(field, "%(field)s must be true or false.", field=key)
    return value


def parties_in(data: dict[str, Any], players: list[str]) -> tuple[object, object]:
    """A payment's payer and payee from the request: a player's name each, or the pot by its flag."""
    out: list[object] = []
    for side in ("from", "to"):
        out.append(party_in(data, side, players))
    return out[0], out[1]


def party_in(data: dict[str, Any], side: str, players: list[str], *, field: str = "",
             required: bool = True) -> object:
    """One party of ``data``: ``data[side]`` a player's name, or the pot with ``data[side + "_pot"]`` true.

    ``None`` when it is left out and not ``required``. The pot's label is no
    name: only a player of that name may be called so.
    """
    at = field or side
    if _flag(data, f"{side}_pot", f"{at}_pot"):
        if data.get(side) is not None:
            raise BadInput(at, "Give %(side)s or %(side)s_pot, not both.", side=side)
        return POT_PARTY
    name = data.get(side)
    if name is None and not required:
        return None
    if name is None or (name == POT_PARTY and name not in players):
        raise BadInput(at, "%(side)s must be a player of this night (or %(side)s_pot: true).", side=side)
    return name
