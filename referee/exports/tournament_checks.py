"""A tournament night's tournament read back on import (issue 43.6); :mod:`.night_json` writes it.

Why: a tournament is one night whose matches are its tables, so the night's
export held every table's log but not which match was which table of which
series, the format, the seed, the fee and prizes, or who came late or left;
an import gave a plain night with no tournament, no standings and no
prizes. The part written here is the tournament's own row, its tables (each
by its match's number in the night, as the hash chain numbers them) and its
entries, with the currency's minor units as everywhere in the export.

The part is not an event of the night, so it is not in the night's chain
(the fingerprint of a night stays what its sheets printed); it carries its
own ``link``, the hash of its canonical JSON chained to the night's
fingerprint (:func:`referee.ledger.fingerprint.part_link`): a changed table,
seat or prize split is refused (``400`` on ``tournament``), as a changed
event is. Beyond the link, everything is checked as the tournament's
creation checks it, and against the night the file describes (the tables'
matches, their game and players), so a file rewritten with a new link still
only makes a tournament the app could have made.

What is left out: the table tokens (an import makes new ones) and, for a
reader with the view token only, the seed (the view shows it to the
organiser only: it foretells the draws to come); a file without a seed is
imported with a new one.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from referee.engine import BadInput
from referee.engine import tournament as draw
from referee.engine.money import Money
from referee.engine.records import dump, parse_options
from referee.engine.spec import SPECS, spec
from referee.exports.import_checks import (
    check_bool,
    check_list,
    check_moment,
    check_money,
    check_object,
    check_text,
)
from referee.exports.night_json import TOURNAMENT_KEYS
from referee.ledger import MAX_TEXT, clean_name, clean_players
from referee.ledger import fingerprint as fp
from referee.ledger import tournaments as tourneys
from referee.ledger.imports import EntryIn, TournamentIn
from referee.ledger.matches import MatchIn

#: The longest series time limit read (a day); the tournament's creation sets its own.
MAX_SERIES_MINUTES = 24 * 60


def _whole(obj: Mapping[str, Any], key: str, low: int, high: int, *, default: int | None = None) -> int:
    """``tournament.<key>`` (``default`` when left out, if it has one), from ``low`` to ``high``."""
    return _at(obj if key in obj or default is None else {key: default}, key, "tournament", high, low=low)


def check_part(raw: object, fingerprint: object, names: Sequence[str], matches_in: Sequence[MatchIn],
               money: Money) -> TournamentIn:
    """The file's tournament part, checked as a creation is and against the night's matches (``400`` naming the
    field); ``fingerprint``: the file's, which the part's ``link`` is chained to."""
    obj = check_object(raw, "tournament", TOURNAMENT_KEYS, ("name", "game", "format", "table_size", "tables"))
    if obj.get("link") != fp.part_link(str(fingerprint or ""), {k: v for k, v in obj.items() if k != "link"}):
        raise BadInput("tournament", "The tournament's link does not hold: its tables, seats, entries or "
                                     "prizes were changed.")
    name = clean_name(obj["name"], "tournament.name", MAX_TEXT)
    game = obj["game"]
    if not isinstance(game, str) or game not in SPECS:
        raise BadInput("tournament.game", "%(where)s must be one of: %(choices)s.", where="tournament.game",
                       choices=", ".join(SPECS))
    fmt = obj["format"]
    if fmt not in tuple(draw.Format):
        raise BadInput("tournament.format", "format must be series or knockout.")
    seating = obj.get("seating", draw.Seating.DRAW)
    if seating not in tuple(draw.Seating):
        raise BadInput("tournament.seating", "seating must be draw, standings or rating.")
    series_count = _whole(obj, "series_count", 1, tourneys.MAX_SERIES, default=1)
    current = _whole(obj, "current_series", 1, tourneys.MAX_SERIES, default=1)
    table_size = _whole(obj, "table_size", 1, tourneys.MAX_TABLE_SIZE)
    advance = _whole(obj, "advance", 1, tourneys.MAX_TABLE_SIZE, default=1)
    try:
        prizes = draw.check_prizes(obj.get("prizes", []), len(names))
        options = dump(parse_options(spec(game).Options, obj.get("options")))
    except BadInput as exc:
        raise BadInput(f"tournament.{exc.field}", exc.template, **exc.params) from None
    seed = obj.get("seed")
    seed = secrets.token_hex(8) if seed is None else check_text(seed, "tournament.seed", tourneys.MAX_SEED)
    if not seed:
        raise BadInput("tournament.seed", "seed must be text of 1 to %(n)s characters.", n=tourneys.MAX_SEED)
    minutes = obj.get("series_minutes")
    if minutes is not None:
        minutes = _whole(obj, "series_minutes", 1, MAX_SERIES_MINUTES)
    started = obj.get("series_started_at")
    finished = check_bool(obj.get("finished", False), "tournament.finished")
    stake = check_money(obj, "stake", "tournament", money, default=0)
    fee = check_money(obj, "entry_fee", "tournament", money, default=0)
    if stake < 0 or fee < 0:
        raise BadInput("tournament.entry_fee_minor", "entry_fee cannot be negative.")
    return TournamentIn(
        name=name, game=game, format=str(fmt), series_count=series_count, current_series=current,
        table_size=table_size, advance=advance, stake=stake, options=options,
        entry_fee=fee, prizes=list(prizes), seed=seed, seating=str(seating),
        finished=finished,
        created_at=check_moment(obj["created_at"], "tournament.created_at") if "created_at" in obj else None,
        series_minutes=minutes,
        series_started_at=check_moment(started, "tournament.series_started_at") if started is not None else None,
        tables=_tables(obj["tables"], game, table_size, current, matches_in),
        entries=_entries(obj.get("entries", []), names))


def _tables(raw: object, game: str, table_size: int, current: int,
            matches_in: Sequence[MatchIn]) -> list[tuple[int, int, int]]:
    """(series, table, match number) of each table: one match each, of the game; the current series has tables."""
    out: list[tuple[int, int, int]] = []
    seen: set[tuple[int, int]] = set()
    used: set[int] = set()
    for k, entry in enumerate(check_list(raw, "tournament.tables", len(matches_in))):  # a match is one table
        at = f"tournament.tables[{k}]"
        row = check_object(entry, at, ("series", "table", "match"), ("series", "table", "match"))
        series = _at(row, "series", at, current)
        number = _at(row, "table", at, len(matches_in))
        match = _at(row, "match", at, len(matches_in))
        if (series, number) in seen or match in used:
            raise BadInput(at, "%(where)s names a table or a match a second time.", where=at)
        if matches_in[match - 1].game != game or len(matches_in[match - 1].seats) > table_size:
            raise BadInput(f"{at}.match", "%(where)s is not a match of the tournament's game and table size.",
                           where=f"{at}.match")
        seen.add((series, number))
        used.add(match)
        out.append((series, number, match))
    if not any(series == current for series, _n, _m in out):
        raise BadInput("tournament.tables", "The tournament's current series has no tables.")
    return out


def _at(row: Mapping[str, Any], key: str, at: str, high: int, *, low: int = 1) -> int:
    """``row[key]``, a whole number from ``low`` to ``high`` (``400`` naming ``<at>.<key>`` otherwise)."""
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadInput(f"{at}.{key}", "%(field)s must be a whole number from %(low)s to %(high)s.",
                       field=f"{at}.{key}", low=low, high=high)
    return value


def _entries(raw: object, names: Sequence[str]) -> list[EntryIn]:
    """Who came late or left early: players of the night, once each, series within the tournament's."""
    objs = [check_object(e, f"tournament.entries[{k}]", ("player", "joined_series", "left_series", "created_at"),
                         ("player",)) for k, e in enumerate(check_list(raw, "tournament.entries", len(names)))]
    players = clean_players([o["player"] for o in objs], "tournament.entries", len(names))
    known = set(names)
    out = []
    for k, (player, obj) in enumerate(zip(players, objs, strict=True)):
        at = f"tournament.entries[{k}]"
        if player not in known:
            raise BadInput(f"{at}.player", "%(name)s in %(where)s is not a player of the night.", name=repr(player),
                           where=f"{at}.player")
        joined = _at(obj | {"joined_series": obj.get("joined_series", 1)}, "joined_series", at, tourneys.MAX_SERIES)
        left = obj.get("left_series")
        if left is not None:
            left = _at(obj, "left_series", at, tourneys.MAX_SERIES)
        out.append(EntryIn(player, joined, left,
                           check_moment(obj["created_at"], f"{at}.created_at") if "created_at" in obj else None))
    return out
