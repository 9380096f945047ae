"""Exporting a night (JSON, CSV) and importing a JSON export into a new group: the package's face.

The jobs, one module each: :mod:`.night_json` writes the JSON export,
:mod:`.csv_sheet` the CSV for spreadsheets, :mod:`.import_checks` checks an
import's shape, names and money, :mod:`.replay` replays its logs through the
engine and hands the rows to the ledger (:mod:`referee.ledger`, the only
code that writes).

Why a JSON export at all: the events are the truth, so a night *is* its
players, its matches' options and their logs, and its payment rows. An export
holds exactly those facts, not the derived states, and an import rebuilds the
states by replaying every log through the engine. That makes an export a
backup that cannot smuggle in a balance the rules would not give: a log that
no longer replays (a tampered round, an engine that now rejects it) is
refused as a whole, and nothing is stored.

Money is an ``int`` of minor units (``stake_minor``, ``amount_minor``, ...)
next to the currency and its minor-unit digits; the decimal string of the API
(``stake``, ``amount``) is written beside it for a human reader and, when
present on import, must agree with the int.

A round entered from the trick referee carries its ``deal`` (the deal log);
the import judges it again against its round, as round entry does.

The CSV export is for spreadsheets only (it is not read back): one row per
logged event, per player result of a match, per payment row and per transfer
still to pay.

What an import does *not* recreate:

- Tokens: the imported night gets fresh edit and view tokens (an export is
  shared more widely than an edit link should be), and a new group; a
  tournament's night its tournament with new table tokens.
- Links to other nights. A match that started with a pot carried from an
  earlier night keeps its ``carried_in`` amount (the replay needs it), but
  not the reference to the earlier match. Opening balances and carried-out
  debts (``opening`` / ``carry_out`` payment rows) are imported as the rows
  they are, each with a *new* carry id: the other half lives in another
  night, and keeping the old id would tie the imported row to the original
  night's half (voiding one voids every row with that id) when a night is
  imported into the database it came from.
"""


from referee.exports.csv_sheet import CSV_COLUMNS, export_csv
from referee.exports.night_json import FORMAT, VERSION, export_night
from referee.exports.replay import import_night

__all__ = ["CSV_COLUMNS", "FORMAT", "VERSION", "export_csv", "export_night", "import_night"]
