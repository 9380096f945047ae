"""The new-tournament form: shape only, turned into the same body ``POST /api/tournaments`` takes.

Why one body: the draw, the prize split and every refusal are the ledger's
(``referee.ledger.tournaments``); the page only reads what was typed, so a
page and an API client meet the same checks and the same field names.
"""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import IntegerField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from referee.engine import BadInput
from referee.engine.spec import SPECS, spec
from referee.ledger.tournaments import MAX_SERIES_MINUTES
from referee.pages.forms import currency_choices


class TournamentForm(FlaskForm):  # type: ignore[misc]
    name = StringField(_l("Name of the tournament"), validators=[DataRequired(), Length(max=100)])
    currency = SelectField(_l("Currency"), choices=[], default="SEK")
    game = SelectField(_l("Game"), choices=[])
    players = TextAreaField(_l("Players, one per line"), validators=[DataRequired(), Length(max=20000)])
    table_size = IntegerField(_l("Most players at one table"), default=4,
                              validators=[DataRequired(), NumberRange(min=2, max=99)])
    format = SelectField(_l("Format"), default="series",
                         choices=[SelectChoice("series", _l("Series: everybody plays every series")),
                                  SelectChoice("knockout", _l("Knockout: the best of each table go on"))])
    series = IntegerField(_l("Number of series"), default=1,
                          validators=[Optional(), NumberRange(min=1, max=99)])
    advance = IntegerField(_l("Go on from each table"), default=1,
                           validators=[Optional(), NumberRange(min=1, max=98)])
    stake = StringField(_l("Stake"), validators=[Optional(), Length(max=20)])
    entry_fee = StringField(_l("Entry fee"), validators=[Optional(), Length(max=20)])
    prizes = StringField(_l("Prizes in percent, best place first (e.g. 50, 30, 20)"),
                         validators=[Optional(), Length(max=200)])
    series_minutes = IntegerField(_l("Time limit per series, minutes (optional)"),
                                  validators=[Optional(), NumberRange(min=1, max=MAX_SERIES_MINUTES)])
    leader = StringField(_l("Who holds the prize pool (optional, a player or not)"),
                         validators=[Optional(), Length(max=40)])
    seed = StringField(_l("Seed of the draw (optional)"), validators=[Optional(), Length(max=64)])

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.currency.choices = currency_choices()
        self.game.choices = [SelectChoice(name, spec(name).title) for name in SPECS]

    def player_names(self) -> list[str]:
        return [line.strip() for line in (self.players.data or "").splitlines() if line.strip()]

    def body(self, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """The API's body from what was typed (a prize list that is not numbers is :class:`BadInput`);
        ``options``: the game's options as the form's option fields give them (:func:`options_from`)."""
        body: dict[str, Any] = {"name": self.name.data, "currency": self.currency.data, "game": self.game.data,
                                "players": self.player_names(), "table_size": self.table_size.data,
                                "format": self.format.data, "options": options or {}}
        if self.format.data == "knockout":
            body["advance"] = self.advance.data or 1
        else:
            body["series"] = self.series.data or 1
        if self.series_minutes.data:
            body["series_minutes"] = self.series_minutes.data
        for key in ("stake", "entry_fee", "seed", "leader"):
            value = (getattr(self, key).data or "").strip()
            if value:
                body[key] = value.replace(",", ".") if key in ("stake", "entry_fee") else value
        prizes = (self.prizes.data or "").replace(";", ",").strip()
        if prizes:
            try:
                body["prizes"] = [int(p.strip().rstrip("%")) for p in prizes.split(",") if p.strip()]
            except ValueError:
                raise BadInput("prizes", "Prizes are whole percentages separated by commas.") from None
        return body
