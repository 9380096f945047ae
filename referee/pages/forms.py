"""WTForms of the phone pages: shape only (types, required fields).

Rules are the engine's business; a form only turns what was tapped into the
same payload the JSON API takes, so both go through one service function.
"""

from __future__ import annotations

import datetime
import functools
from typing import Any

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from werkzeug.datastructures import MultiDict
from wtforms import DateField, HiddenField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length, Optional

from referee.engine import BadInput
from referee.round_forms import option_texts, options_in_words  # noqa: F401  (the pages' name for them)

#: Currencies offered first in the list (the likely ones at a Nordic or Alpine table), then the rest in use.
COMMON_CURRENCIES = ("SEK", "EUR", "NOK", "DKK", "CHF", "GBP", "USD")


@functools.cache
def currencies_in_use() -> tuple[str, ...]:
    """Every currency that is legal tender somewhere today, by CLDR's territory data (Babel).

    The list offered for a new night: "AFA – Afghan Afghani (1927–2002)" and the funds and metals of ISO 4217
    are codes, not money anyone brings to a card table. The API still takes any ISO 4217 code.
    """
    from babel.core import get_global
    from babel.numbers import get_territory_currencies

    today = datetime.date.today()
    used = {code for territory in get_global("territory_currencies")
            for code in get_territory_currencies(territory, today, tender=True)}
    return tuple(sorted(used))


def currency_choices() -> list[SelectChoice]:
    """The common currencies first, then every other currency in use (code and name in the reader's language)."""
    from babel.numbers import get_currency_name
    from flask_babel import get_locale

    locale = str(get_locale() or "en")
    rest = [c for c in currencies_in_use() if c not in COMMON_CURRENCIES]
    return [SelectChoice(c, f"{c} – {get_currency_name(c, locale=locale)}") for c in (*COMMON_CURRENCIES, *rest)]


class NightForm(FlaskForm):  # type: ignore[misc]
    name = StringField(_l("Name of the night"), validators=[DataRequired(), Length(max=100)])
    currency = SelectField(_l("Currency"), choices=[], default="SEK")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.currency.choices = currency_choices()
    players = TextAreaField(_l("Players, one per line"), validators=[DataRequired(), Length(max=2000)])
    date = DateField(_l("Date"), validators=[Optional()])
    place = StringField(_l("Place"), validators=[Optional(), Length(max=100)])
    leader = StringField(_l("Game leader"), validators=[Optional(), Length(max=40)])
    group_token = StringField(_l("Group code (to continue an earlier group)"),
                              validators=[Optional(), Length(max=64)])

    def player_names(self) -> list[str]:
        return [line.strip() for line in (self.players.data or "").splitlines() if line.strip()]


class PaymentDetailsForm(FlaskForm):  # type: ignore[misc]
    swish = StringField(_l("Swish number"), validators=[Optional(), Length(max=30)])
    iban = StringField(_l("IBAN"), validators=[Optional(), Length(max=50)])
    holder = StringField(_l("Account holder"), validators=[Optional(), Length(max=70)])


class PlayerForm(FlaskForm):  # type: ignore[misc]
    name = StringField(_l("New player"), validators=[DataRequired(), Length(max=40)])


class MatchForm(FlaskForm):  # type: ignore[misc]
    """The fixed part of the new-match form; seats and options are read by name."""

    game = SelectField(_l("Game"), choices=[])
    dealer = SelectField(_l("First dealer"), choices=[])
    stake = StringField(_l("Stake"), validators=[Optional(), Length(max=20)])


class RoundForm(FlaskForm):  # type: ignore[misc]
    """What every round form carries: the one-time token and the expected round."""

    form_token = HiddenField()
    expected_seq = HiddenField()


class VoidForm(FlaskForm):  # type: ignore[misc]
    reason = StringField(_l("Reason"), validators=[Optional(), Length(max=500)])


class CloseForm(FlaskForm):  # type: ignore[misc]
    pot = SelectField(_l("The pot"), choices=[SelectChoice("split", _l("split among all players")),
                                             SelectChoice("award", _l("to one player")),
                                             SelectChoice("carry", _l("carried to the next night"))])
    to = SelectField(_l("Player"), choices=[], validate_choice=False)


#: The seat numbers the new-match form offers (``<input type="number" min="0" max="99">``).
SEAT_NUMBERS = range(100)


def seats_from(form: MultiDict[str, str], night_players: list[str]) -> list[str]:
    """Seat order from the new-match form: checked players sorted by their seat number.

    A seat number the form cannot send (text, negative, huge) is :class:`BadInput`.
    """
    chosen: list[tuple[int, int, str]] = []
    for pos, name in enumerate(night_players):
        if form.get(f"in_{pos}") is None:
            continue
        raw = (form.get(f"seat_{pos}") or str(pos)).strip()
        if not (raw.isascii() and raw.isdigit() and len(raw) < 4 and int(raw) in SEAT_NUMBERS):
            raise BadInput("players", gettext("A seat number is a whole number from 0 to 99."))
        chosen.append((int(raw), pos, name))
    return [name for _seat, _pos, name in sorted(chosen)]


def options_from(form: MultiDict[str, str], described: list[dict[str, Any]]) -> dict[str, Any]:
    """The game's options from the form, typed as the engine describes them."""
    out: dict[str, Any] = {}
    for opt in described:
        key = f"opt_{opt['name']}"
        if opt["type"] == "boolean":
            out[opt["name"]] = form.get(key) == "on"
            continue
        raw = form.get(key, "")
        if raw == "":
            if opt["nullable"]:
                out[opt["name"]] = None
            continue
        if opt["type"] == "integer":
            try:
                out[opt["name"]] = int(raw)
            except ValueError:
                out[opt["name"]] = raw  # the engine's parser names the field
        else:
            out[opt["name"]] = raw
    return out
