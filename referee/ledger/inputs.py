"""Input checks shared by the API, the pages and the import: names, players, currencies.

They run before a write starts, so a bad name is refused with a
:class:`referee.engine.BadInput` before anything is locked or stored.
:data:`POT_PARTY` is here because a player may not take the pot's name.
"""

from __future__ import annotations

import unicodedata

from babel.numbers import get_currency_precision, list_currencies

from referee.engine import BadInput
from referee.engine.money import Money
from referee.models import Night

MAX_NAME = 40
MAX_PLAYERS_PER_NIGHT = 40
MAX_TEXT = 100


# --- input checks shared by the API and the pages ---------------------------

def clean_name(value: object, field: str = "name", max_len: int = MAX_NAME) -> str:
    """A display name: text, trimmed, not empty, not too long, printable."""
    if not isinstance(value, str):
        raise BadInput(field, "A name must be text.")
    name = " ".join(unicodedata.normalize("NFC", value).split())
    if not name:
        raise BadInput(field, "A name cannot be empty.")
    if len(name) > max_len:
        raise BadInput(field, "A name can be at most %(n)s characters long.", n=max_len)
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise BadInput(field, "A name cannot contain control characters.")
    return name


def clean_player(value: object, field: str = "name") -> str:
    """A player's name: any display name but the settlement's name for the pot (it would merge with it)."""
    name = clean_name(value, field)
    if name.casefold() == POT_PARTY.casefold():
        raise BadInput(field, "%(name)s is the pot's name in the settlement; choose another name.", name=repr(name))
    return name


def clean_players(value: object, field: str = "players", most: int = MAX_PLAYERS_PER_NIGHT) -> list[str]:
    """A list of at most ``most`` distinct player names (case-insensitively distinct).

    ``most``: a night named by hand has at most 40; a tournament's or an
    imported night up to :data:`referee.bounds.NIGHT_PLAYERS`.
    """
    if not isinstance(value, list):
        raise BadInput(field, "players must be a list of names.")
    if len(value) > most:
        raise BadInput(field, "At most %(n)s players.", n=most)
    names = [clean_player(v, field) for v in value]
    folded = [n.casefold() for n in names]
    if len(set(folded)) != len(folded):
        dup = next(n for n in names if folded.count(n.casefold()) > 1)
        raise BadInput(field, "%(name)s is named twice.", name=repr(dup))
    return names


def currency_money(code: str) -> Money:
    """The :class:`Money` of an ISO 4217 currency (its minor-unit digits)."""
    return Money(int(get_currency_precision(code)))


def clean_currency(value: object) -> str:
    if not isinstance(value, str) or value.strip().upper() not in list_currencies():
        raise BadInput("currency", "currency must be an ISO 4217 code such as SEK or EUR.")
    return value.strip().upper()


#: The languages of the app, as a night keeps the one it was created in (``Night.language``).
LANGUAGES = ("en", "sv", "de")


def clean_language(value: object) -> str | None:
    """A night's language: one of :data:`LANGUAGES`, or None (none given)."""
    if value is None:
        return None
    if not isinstance(value, str) or value.strip().lower() not in LANGUAGES:
        raise BadInput("language", "language must be one of en, sv, de.")
    return value.strip().lower()


def night_money(night: Night) -> Money:
    return currency_money(night.currency)



#: The pot as a party of the settlement: money still in a pot (an open match,
#: or a pot carried to the next night) is held by the game leader.
POT_PARTY = "\N{MONEY BAG} pot"
