"""The JSON export of a night: its facts (players, matches' options and logs, payment rows), never its states.

:mod:`.replay` reads it back; :data:`FORMAT` and :data:`VERSION` name the shape both sides agree on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from referee import pots
from referee.engine.money import Money
from referee.ledger import fingerprint as fp
from referee.ledger import night_money
from referee.ledger import tournaments as tourneys
from referee.models import Night, Payment, Tournament, TournamentTable, db, now

#: An event's facts and correction marks (issue 42): exported where set, and replayed on import.
KEPT = ("facts", "corrects", "corrected_by")
#: The keys of a tournament part, in the order written (:func:`export_part`; read by :mod:`.tournament_checks`).
TOURNAMENT_KEYS = ("name", "game", "format", "series_count", "current_series", "table_size", "advance",
                   "stake_minor", "stake", "options", "entry_fee_minor", "entry_fee", "prizes", "seed", "seating",
                   "finished", "created_at", "series_minutes", "series_started_at", "tables", "entries", "link")

#: Identifies the file; ``version`` changes whenever the shape does (an old
#: reader then refuses a new file instead of misreading it).
FORMAT = "referee-night"
VERSION = 3
#: Files of these versions are read; version 1 was written before the night's hash chain (no
#: ``fingerprint``, no ``link``s: imported without a check of the chain), version 2 before a tournament
#: night's tournament was exported (imported as a plain night).
READS = (1, 2, 3)
#: The first version with a tournament part (``"tournament"``, :mod:`.tournament_json`).
TOURNAMENT_SINCE = 3


def iso(moment: datetime) -> str:
    """A stored (naive UTC) time as the API writes it: ISO 8601 with ``Z``."""
    return moment.isoformat() + "Z"


def payment_rows(night: Night) -> list[Payment]:
    return list(db.session.scalars(select(Payment).where(Payment.night_id == night.id).order_by(Payment.id)))


def export_night(night: Night, *, organiser: bool = True) -> dict[str, Any]:
    """Everything needed to rebuild the night elsewhere, as plain JSON data.

    The facts only (logs, options, payment rows), never derived states: the
    import replays the logs, so what it shows is what the rules give.
    Tokens are left out on purpose: whoever holds the file should not get
    edit rights to the original night. The night's hash chain comes along
    (:mod:`referee.ledger.fingerprint`): its ``fingerprint`` and each
    event's ``link`` (a void's as ``void_link``), which the import checks. A tournament's night comes
    with its tournament (:func:`export_part`; the seed only for the ``organiser``, as in the view).
    """
    money = night_money(night)
    chain = fp.night_chain(night)
    links = chain.links
    matches = []
    for number, match in enumerate(night.matches, start=1):
        matches.append({
            "game": match.game,
            "seats": list(match.seats),
            "first_dealer": match.first_dealer,
            "stake_minor": match.stake,
            "stake": money.format(match.stake),
            "options": dict(match.options),
            "carried_in_minor": match.carried_in,
            "carried_in": money.format(match.carried_in),
            "status": match.status,
            "created_at": iso(match.created_at),
            "link": links[("match", number, 0)],
            "rounds": [{
                "seq": rnd.seq,
                "kind": rnd.kind,
                "payload": rnd.payload,
                "void": rnd.void,
                "void_reason": rnd.void_reason,
                "created_at": iso(rnd.created_at),
                "link": links[("log", number, rnd.seq)],
            } | _void_link(links, ("log_void", number, rnd.seq), rnd.voided_at)
              | ({"deal": rnd.deal} if rnd.deal is not None else {})
              | {name: getattr(rnd, name) for name in KEPT if getattr(rnd, name) is not None}
            for rnd in match.rounds],
        })
    tourn = tourneys.of_night(night.id)
    part = {} if tourn is None else {
        "tournament": export_part(tourn, money, chain.fingerprint, seed=organiser)}
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": iso(now()),
        "fingerprint": chain.fingerprint,
        "currency": night.currency,
        "minor_digits": money.digits,
        "night": {
            "name": night.name,
            "date": night.date.isoformat() if night.date else None,
            "place": night.place,
            "leader": night.leader,
            "currency": night.currency,
            "group": night.group.name,
            "created_at": iso(night.created_at),
        },
        "players": [{
            "name": seat.player.name,
            "swish": seat.player.swish,
            "iban": seat.player.iban,
            "account_holder": seat.player.account_holder,
        } for seat in night.seats],
        "matches": matches,
        "payments": [{
            "kind": row.kind,
            **pots.parties_json(row.payer, row.payee, ("payer", "payee")),  # the pot by a flag, not a name
            "amount_minor": row.amount,
            "amount": money.format(row.amount),
            "carry_id": row.carry_id,
            "void": row.void,
            "void_reason": row.void_reason,
            "created_at": iso(row.created_at),
            "link": links[("payment", number, 0)],
        } | _void_link(links, ("payment_void", number, 0), row.voided_at)
            for number, row in enumerate(payment_rows(night), start=1)],
    } | part


def export_part(tourn: Tournament, money: Money, fingerprint: str, *, seed: bool) -> dict[str, Any]:
    """The tournament part of its night's export, with its ``link``; ``seed`` for the organiser only."""
    number = {match.id: k for k, match in enumerate(tourn.night.matches, start=1)}
    tables = db.session.scalars(select(TournamentTable).where(TournamentTable.tournament_id == tourn.id)
                                .order_by(TournamentTable.series, TournamentTable.number))
    part: dict[str, Any] = {
        "name": tourn.name, "game": tourn.game, "format": tourn.format, "series_count": tourn.series_count,
        "current_series": tourn.current_series, "table_size": tourn.table_size, "advance": tourn.advance,
        "stake_minor": tourn.stake, "stake": money.format(tourn.stake), "options": dict(tourn.options),
        "entry_fee_minor": tourn.entry_fee, "entry_fee": money.format(tourn.entry_fee),
        "prizes": list(tourn.prizes), "seating": tourn.seating, "finished": tourn.finished,
        "created_at": iso(tourn.created_at), "series_minutes": tourn.series_minutes,
        "series_started_at": iso(tourn.series_started_at) if tourn.series_started_at else None,
        "tables": [{"series": t.series, "table": t.number, "match": number[t.match_id]} for t in tables],
        "entries": [{"player": e.player, "joined_series": e.joined_series, "left_series": e.left_series,
                     "created_at": iso(e.created_at)} for e in tourn.entries],
    } | ({"seed": tourn.seed} if seed else {})
    return part | {"link": fp.part_link(fingerprint, part)}


def _void_link(links: dict[tuple[str, int, int], str], ref: tuple[str, int, int],
               voided_at: datetime | None) -> dict[str, str]:
    """A void's time (when kept) and its link, beside the voided event; nothing for an event not void."""
    if ref not in links:
        return {}
    return {"void_link": links[ref]} | ({"voided_at": iso(voided_at)} if voided_at is not None else {})

