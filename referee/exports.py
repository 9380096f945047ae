"""Exporting a night (JSON, CSV) and importing a JSON export into a new group.

Its rows are written through the ledger (:mod:`referee.ledger`, the only code that writes).

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
  shared more widely than an edit link should be), and a new group.
- Links to other nights. A match that started with a pot carried from an
  earlier night keeps its ``carried_in`` amount (the replay needs it), but
  not the reference to the earlier match. Opening balances and carried-out
  debts (``opening`` / ``carry_out`` payment rows) are imported as the rows
  they are, each with a *new* carry id: the other half lives in another
  night, and keeping the old id would tie the imported row to the original
  night's half (voiding one voids every row with that id) when a night is
  imported into the database it came from.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from datetime import date as Date
from typing import Any

from flask import current_app
from sqlalchemy import select

from referee import bounds, ledger, payment_codes, pots
from referee.engine import BadInput, RuleViolation, tricks
from referee.engine.money import MAX_MINOR, Money
from referee.engine.records import dump, parse_options
from referee.engine.spec import SPECS, spec
from referee.engine.vocab import CLOSE_HOWS, EventKind, PaymentKind
from referee.ledger import MAX_TEXT, POT_PARTY, Idem, clean_currency, clean_name, clean_players, night_money, payments
from referee.ledger.imports import PaymentIn as _PaymentIn
from referee.ledger.matches import EventIn as _EventIn
from referee.ledger.matches import MatchIn as _MatchIn
from referee.ledger.ratelimit import Caller
from referee.models import Match, Night, Payment, db, now

#: Identifies the file; ``version`` changes whenever the shape does (an old
#: reader then refuses a new file instead of misreading it).
FORMAT = "referee-night"
VERSION = 1

EVENT_KINDS = tuple(kind.value for kind in EventKind)
PAYMENT_KINDS = tuple(kind.value for kind in PaymentKind)

#: Bounds on what one import may hold: a night's (:mod:`referee.bounds`), so that the export of any night
#: the app let grow imports again; far above any real night, low enough that a hostile file cannot tie up
#: a worker for long.
MAX_MATCHES = bounds.NIGHT_MATCHES
MAX_EVENTS = bounds.NIGHT_EVENTS  # in all matches together (``MAX_IMPORT_EVENTS``; one match: ``MAX_MATCH_EVENTS``)
MAX_PAYMENTS = bounds.NIGHT_PAYMENTS
MAX_REASON = 500
MAX_PAYLOAD_DEPTH = 8
#: The times an import accepts (``created_at``): no real night is outside, and dates a little outside
#: still convert between time zones and print (year 1 or 9999 with an offset overflowed into a 500).
EARLIEST = datetime(1900, 1, 1)
LATEST = datetime(2999, 12, 31, 23, 59, 59)

#: ``pot`` names the column of the row that is the pot (``player``, ``from`` or ``to``, then left empty).
CSV_COLUMNS = ("type", "match", "game", "round", "kind", "player", "from", "to", "amount", "currency",
               "void", "void_reason", "summary", "created_at", "deal", "pot")


# --- export ------------------------------------------------------------------

def _iso(moment: datetime) -> str:
    """A stored (naive UTC) time as the API writes it: ISO 8601 with ``Z``."""
    return moment.isoformat() + "Z"


def _payment_rows(night: Night) -> list[Payment]:
    return list(db.session.scalars(select(Payment).where(Payment.night_id == night.id).order_by(Payment.id)))


def export_night(night: Night) -> dict[str, Any]:
    """Everything needed to rebuild the night elsewhere, as plain JSON data.

    The facts only (logs, options, payment rows), never derived states: the
    import replays the logs, so what it shows is what the rules give.
    Tokens are left out on purpose: whoever holds the file should not get
    edit rights to the original night.
    """
    money = night_money(night)
    matches = []
    for match in night.matches:
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
            "created_at": _iso(match.created_at),
            "rounds": [{
                "seq": rnd.seq,
                "kind": rnd.kind,
                "payload": rnd.payload,
                "void": rnd.void,
                "void_reason": rnd.void_reason,
                "created_at": _iso(rnd.created_at),
            } | ({"deal": rnd.deal} if rnd.deal is not None else {})
              | {name: getattr(rnd, name) for name in _KEPT if getattr(rnd, name) is not None}
            for rnd in match.rounds],
        })
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": _iso(now()),
        "currency": night.currency,
        "minor_digits": money.digits,
        "night": {
            "name": night.name,
            "date": night.date.isoformat() if night.date else None,
            "place": night.place,
            "leader": night.leader,
            "currency": night.currency,
            "group": night.group.name,
            "created_at": _iso(night.created_at),
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
            "created_at": _iso(row.created_at),
        } for row in _payment_rows(night)],
    }


def _safe_cell(text: str) -> str:
    """Text a spreadsheet will show as text, never run as a formula.

    A player named ``=HYPERLINK(...)`` would otherwise become a live formula
    in the leader's spreadsheet (CSV injection); such cells get a leading
    apostrophe. Only free-text columns pass through here, never amounts.
    """
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def export_csv(night: Night) -> str:
    """The night as CSV for a spreadsheet (UTF-8 text; see :data:`CSV_COLUMNS`).

    Row types: ``round`` (one per logged event, its payload as compact JSON
    in ``summary`` and the trick referee's deal log, if any, in ``deal``),
    ``result`` (each player's result per match, and the money still in its
    pot as a row whose ``pot`` column says ``player``, so a match's rows sum
    to zero; the pot is never named like a player, see :mod:`referee.pots`),
    ``payment`` (every payment row: payments, opening balances, carried-out
    debts, void ones included and marked) and ``transfer`` (the plan for what
    is still open). Amounts are decimal strings in the night's currency
    (``"12.50"``), signed for results and carries.
    """
    money = night_money(night)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    cur = night.currency

    def row(**values: Any) -> None:
        writer.writerow({key: values.get(key, "") for key in CSV_COLUMNS})

    for match in night.matches:
        for rnd in match.rounds:
            row(type="round", match=match.id, game=match.game, round=rnd.seq, kind=rnd.kind,
                void=_flag(rnd.void), void_reason=_safe_cell(rnd.void_reason),
                summary=_compact(rnd.payload), created_at=_iso(rnd.created_at),
                deal=_compact(rnd.deal) if rnd.deal else "")
    settlement = payments.settlement(night)
    for match, amounts in settlement.per_match:
        for name, amount in amounts.items():
            row(type="result", match=match.id, game=match.game, player=_safe_cell(name),
                amount=money.format(amount), currency=cur)
        state = ledger.state_of(match)
        held = state.pot - getattr(state, "carried_in", 0)
        if held:
            row(type="result", match=match.id, game=match.game, pot="player",
                amount=money.format(held), currency=cur)
    for pay in _payment_rows(night):
        row(type="payment", kind=pay.kind, **_csv_parties(pay.payer, pay.payee),
            amount=money.format(pay.amount), currency=cur, void=_flag(pay.void),
            void_reason=_safe_cell(pay.void_reason), created_at=_iso(pay.created_at))
    for transfer in settlement.plan.transfers:
        row(type="transfer", **_csv_parties(transfer.payer, transfer.payee),
            amount=money.format(transfer.amount), currency=cur)
    return out.getvalue()


def _csv_parties(payer: str, payee: str) -> dict[str, str]:
    """``from``/``to`` cells: players' names; the pot's cell left empty and named in the ``pot`` column."""
    parties = pots.parties_json(payer, payee)
    pot = "from" if parties["from_pot"] else "to" if parties["to_pot"] else ""
    return {"from": _safe_cell(parties["from"] or ""), "to": _safe_cell(parties["to"] or ""), "pot": pot}


def _compact(value: Any) -> str:
    """A stored JSON value (a payload, a deal log) in one cell: compact, keys sorted, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _flag(value: bool) -> str:
    return "true" if value else "false"


# --- import: shape -------------------------------------------------------------

def _object(data: object, where: str, allowed: Sequence[str], required: Sequence[str] = ()) -> Mapping[str, Any]:
    """A JSON object with only known keys; a missing or unknown key is named with its full path."""
    if not isinstance(data, Mapping):
        raise BadInput(where, "%(where)s must be a JSON object.", where=where)
    prefix = f"{where}." if where else ""
    for key in data:
        if key not in allowed:
            raise BadInput(f"{prefix}{str(key)[:60]}", "Unknown field %(key)s in %(where)s.",
                               key=repr(str(key)[:40]), where=where or "export")
    for key in required:
        if key not in data:
            raise BadInput(f"{prefix}{key}", "%(where)s is required.", where=f"{prefix}{key}")
    return data


def _int(value: object, where: str, *, low: int = -MAX_MINOR, high: int = MAX_MINOR) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(where, "%(where)s must be a whole number.", where=where)
    if not low <= value <= high:
        raise BadInput(where, "%(where)s must be from %(low)s to %(high)s.", where=where, low=low, high=high)
    return value


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise BadInput(where, "%(where)s must be true or false.", where=where)
    return value


def _text(value: object, where: str, max_len: int) -> str:
    if not isinstance(value, str):
        raise BadInput(where, "%(where)s must be text.", where=where)
    if len(value) > max_len:
        raise BadInput(where, "%(where)s is longer than %(n)s characters.", where=where, n=max_len)
    return value


def _list(value: object, where: str, max_len: int) -> list[Any]:
    if not isinstance(value, list):
        raise BadInput(where, "%(where)s must be a list.", where=where)
    if len(value) > max_len:
        raise BadInput(where, "%(where)s has more than %(n)s entries.", where=where, n=max_len)
    return value


def _moment(value: object, where: str) -> datetime:
    """An ISO 8601 time (``Z`` or an offset: converted to UTC) as stored: naive UTC."""
    text = _text(value, where, 40)
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        raise BadInput(where, "%(where)s must be an ISO 8601 time like 2024-05-17T19:30:00Z.",
                       where=where) from None
    try:
        if moment.tzinfo is not None:
            moment = moment.astimezone(UTC).replace(tzinfo=None)
        in_range = EARLIEST <= moment <= LATEST
    except OverflowError:  # year 1 or 9999 with an offset
        in_range = False
    if not in_range:
        raise BadInput(where, "%(where)s must be a time from %(low)s to %(high)s.", where=where,
                       low=_iso(EARLIEST), high=_iso(LATEST))
    return moment


def _money(obj: Mapping[str, Any], key: str, where: str, money: Money, *, default: int | None = None) -> int:
    """``<key>_minor`` (the truth), checked against the decimal ``<key>`` when both are given."""
    minor_key = f"{key}_minor"
    if minor_key not in obj:
        if default is None:
            raise BadInput(f"{where}.{minor_key}", "%(where)s is missing.", where=f"{where}.{minor_key}")
        minor = default
    else:
        minor = _int(obj[minor_key], f"{where}.{minor_key}")
    if obj.get(key) is not None and money.parse(obj[key], f"{where}.{key}") != minor:
        raise BadInput(f"{where}.{key}", "%(a)s (%(x)s) disagrees with %(b)s (%(y)s).",
                       a=f"{where}.{key}", x=str(obj[key])[:20], b=f"{where}.{minor_key}", y=minor)
    return minor


def _plain_json(value: object, where: str, depth: int = 0) -> None:
    """Only what JSON can hold (a payload is stored as JSON and replayed)."""
    if depth > MAX_PAYLOAD_DEPTH:
        raise BadInput(where, "%(where)s is nested too deeply.", where=where)
    if value is None or isinstance(value, (bool, str, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadInput(where, "%(where)s holds a number JSON cannot hold.", where=where)
        return
    if isinstance(value, list):
        for item in value:
            _plain_json(item, where, depth + 1)
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise BadInput(where, "%(where)s has a key that is not text.", where=where)
            _plain_json(item, where, depth + 1)
        return
    raise BadInput(where, "%(where)s holds a %(kind)s, which JSON cannot hold.", where=where,
                   kind=type(value).__name__)


def _players(raw: object) -> list[dict[str, str]]:
    entries = _list(raw, "players", bounds.NIGHT_PLAYERS)
    objs = [_object(e, f"players[{k}]", ("name", "swish", "iban", "account_holder"), ("name",))
            for k, e in enumerate(entries)]
    names = clean_players([o["name"] for o in objs], "players", bounds.NIGHT_PLAYERS)
    out = []
    for k, (name, obj) in enumerate(zip(names, objs, strict=True)):
        where = f"players[{k}]"
        swish = _text(obj.get("swish") or "", f"{where}.swish", 40)
        iban = _text(obj.get("iban") or "", f"{where}.iban", 60)
        holder = _text(obj.get("account_holder") or "", f"{where}.account_holder", 100)
        # The same checks as paying.set_payment_details: an import is an entry too.
        try:
            swish = payment_codes.normalize_swish(swish) if swish else ""
            iban = payment_codes.normalize_iban(iban) if iban else ""
            holder = payment_codes.clean_holder(holder) if holder else ""
        except ValueError as exc:
            raise BadInput(where, "%(where)s: %(error)s", where=where, error=exc) from None
        if iban and not holder:
            raise BadInput(f"{where}.account_holder", "An IBAN needs the account holder's name.")
        out.append({"name": name, "swish": swish, "iban": iban, "account_holder": holder})
    return out


def _events(raw: object, where: str, budget: int, per_match: int) -> list[_EventIn]:
    """A match's log; at most ``per_match`` events numbered up to ``per_match``, and ``budget`` left in all."""
    if isinstance(raw, list) and len(raw) > budget:
        raise BadInput(where, "The matches of an import hold more than %(n)s events in all.",
                       n=int(current_app.config.get("MAX_IMPORT_EVENTS", MAX_EVENTS)))
    entries = _list(raw, where, per_match)
    out: list[_EventIn] = []
    last = 0
    for k, entry in enumerate(entries):
        at = f"{where}[{k}]"
        obj = _object(entry, at, ("seq", "kind", "payload", "void", "void_reason", "created_at", "deal", *_KEPT),
                      ("seq", "payload"))
        seq = _int(obj["seq"], f"{at}.seq", low=1, high=per_match)
        if seq <= last:
            raise BadInput(f"{at}.seq", "%(where)s must be greater than the round before it (%(last)s).",
                               where=f"{at}.seq", last=last)
        last = seq
        kind = obj.get("kind", "round")
        if kind not in EVENT_KINDS:
            raise BadInput(f"{at}.kind", "%(where)s must be one of: %(choices)s.", where=f"{at}.kind",
                               choices=", ".join(EVENT_KINDS))
        payload = obj["payload"]
        if not isinstance(payload, Mapping):
            raise BadInput(f"{at}.payload", "%(where)s must be a JSON object.", where=f"{at}.payload")
        _plain_json(payload, f"{at}.payload")
        if kind == EventKind.CLOSE:
            close = _object(payload, f"{at}.payload", ("pot", "to"), ("pot",))
            if close["pot"] not in CLOSE_HOWS:
                raise BadInput(f"{at}.payload.pot", "%(where)s must be one of: %(choices)s.",
                               where=f"{at}.payload.pot", choices=", ".join(CLOSE_HOWS))
            if close.get("to") is not None:
                _text(close["to"], f"{at}.payload.to", ledger.MAX_NAME)
        void = _bool(obj.get("void", False), f"{at}.void")
        reason = _text(obj.get("void_reason") or "", f"{at}.void_reason", MAX_REASON)
        created = _moment(obj["created_at"], f"{at}.created_at") if "created_at" in obj else now()
        deal = obj.get("deal")
        if deal is not None:
            if kind != EventKind.ROUND or not isinstance(deal, Mapping):
                raise BadInput(f"{at}.deal", "%(where)s must be a JSON object, and only a round has one.",
                               where=f"{at}.deal")
            _plain_json(deal, f"{at}.deal")
        out.append(_EventIn(seq, str(kind), dict(payload), void, reason, created,
                            dict(deal) if deal is not None else None, *_kept(obj, at, seq, per_match)))
    return out


#: An event's facts and correction marks (issue 42): exported where set, and replayed on import.
_KEPT = ("facts", "corrects", "corrected_by")


def _kept(obj: Mapping[str, Any], at: str, seq: int, per_match: int) -> tuple[Any, Any, Any]:
    """An imported event's facts (a JSON object; checked on replay), the round a correction replaces (an
    earlier one) and the correction that replaced it."""
    facts = obj.get("facts")
    if facts is not None:
        if not isinstance(facts, Mapping):
            raise BadInput(f"{at}.facts", "%(where)s must be a JSON object.", where=f"{at}.facts")
        _plain_json(facts, f"{at}.facts")
    corrects = obj.get("corrects")
    if corrects is not None:
        corrects = _int(corrects, f"{at}.corrects", low=1, high=max(1, seq - 1))
    corrected_by = obj.get("corrected_by")
    if corrected_by is not None:
        corrected_by = _int(corrected_by, f"{at}.corrected_by", low=seq + 1, high=per_match)
    return (dict(facts) if facts is not None else None), corrects, corrected_by


def _matches(raw: object, names: list[str], money: Money) -> list[_MatchIn]:
    entries = _list(raw, "matches", MAX_MATCHES)
    known = set(names)
    out: list[_MatchIn] = []
    budget = int(current_app.config.get("MAX_IMPORT_EVENTS", MAX_EVENTS))
    per_match = ledger.match_events_limit()
    allowed = ("game", "seats", "first_dealer", "stake_minor", "stake", "options", "carried_in_minor",
               "carried_in", "status", "created_at", "rounds")
    for k, entry in enumerate(entries):
        at = f"matches[{k}]"
        obj = _object(entry, at, allowed, ("game", "seats", "first_dealer", "stake_minor", "rounds"))
        game = obj["game"]
        if not isinstance(game, str) or game not in SPECS:
            raise BadInput(f"{at}.game", "%(where)s must be one of: %(choices)s.", where=f"{at}.game",
                               choices=", ".join(SPECS))
        seats = clean_players(obj["seats"], f"{at}.seats")
        if not seats:
            raise BadInput(f"{at}.seats", "%(where)s needs players.", where=at)
        for name in seats:
            if name not in known:
                raise BadInput(f"{at}.seats", "%(name)s in %(where)s is not a player of the night.",
                               name=repr(name), where=f"{at}.seats")
        dealer = obj["first_dealer"]
        if dealer not in seats:
            raise BadInput(f"{at}.first_dealer", "%(where)s must be one of the match's players.",
                           where=f"{at}.first_dealer")
        stake = _money(obj, "stake", at, money)
        if stake < 0:
            raise BadInput(f"{at}.stake_minor", "A stake cannot be negative.")
        carried_in = _money(obj, "carried_in", at, money, default=0)
        if carried_in and not spec(game).can_carry:
            raise BadInput(f"{at}.carried_in_minor", "%(game)s has no carried pot.", game=spec(game).title)
        try:
            options = dump(parse_options(spec(game).Options, obj.get("options")))
        except BadInput as exc:
            raise BadInput(f"{at}.{exc.field}", exc.template, **exc.params) from None
        status = obj.get("status")
        if status is not None and status not in ("open", "closed"):
            raise BadInput(f"{at}.status", "%(where)s must be open or closed.", where=f"{at}.status")
        created = _moment(obj["created_at"], f"{at}.created_at") if "created_at" in obj else now()
        events = _events(obj["rounds"], f"{at}.rounds", budget, per_match)
        budget -= len(events)
        out.append(_MatchIn(game, seats, str(dealer), stake, options, carried_in, status, created, events))
    return out


def _payments(raw: object, names: list[str], money: Money, leader: str = "") -> list[_PaymentIn]:
    """The payment rows; the game leader is a party too, playing or not (the leader plan, issue 26)."""
    entries = _list(raw, "payments", MAX_PAYMENTS)
    parties = set(names) | {POT_PARTY} | ({leader} if leader else set())
    out = []
    allowed = ("kind", "payer", "payee", "payer_pot", "payee_pot", "amount_minor", "amount", "carry_id", "void",
               "void_reason", "created_at")
    for k, entry in enumerate(entries):
        at = f"payments[{k}]"
        obj = _object(entry, at, allowed, ("kind", "payer", "amount_minor"))
        kind = obj["kind"]
        if kind not in PAYMENT_KINDS:
            raise BadInput(f"{at}.kind", "%(where)s must be one of: %(choices)s.", where=f"{at}.kind",
                               choices=", ".join(PAYMENT_KINDS))
        # The pot by its flag (payer_pot, payee_pot); an export written before the flags names it by its label.
        payer = _text(pots.party_in(obj, "payer", sorted(parties), field=f"{at}.payer"), f"{at}.payer",
                      ledger.MAX_NAME)
        payee = _text(pots.party_in(obj, "payee", sorted(parties), field=f"{at}.payee", required=False) or "",
                      f"{at}.payee", ledger.MAX_NAME)
        if payer not in parties:
            raise BadInput(f"{at}.payer", "%(name)s in %(where)s is not a player of the night.",
                               name=repr(payer), where=f"{at}.payer")
        amount = _int(obj["amount_minor"], f"{at}.amount_minor")
        carry_id = obj.get("carry_id")
        if kind == PaymentKind.PAYMENT:
            if payee not in parties or payee == payer:
                raise BadInput(f"{at}.payee", "%(where)s must be another player of the night.", where=f"{at}.payee")
            if amount <= 0:
                raise BadInput(f"{at}.amount_minor", "A payment must be more than zero.")
            if carry_id is not None:
                raise BadInput(f"{at}.carry_id", "A payment has no carry id.")
        else:
            if payee:
                raise BadInput(f"{at}.payee", "An %(kind)s row has no payee.", kind=kind)
            if amount == 0:
                raise BadInput(f"{at}.amount_minor", "An %(kind)s row cannot be zero.", kind=kind)
            carry_id = _text(carry_id, f"{at}.carry_id", 40)
        _money(obj, "amount", at, money)  # the decimal amount, if given, agrees with amount_minor
        void = _bool(obj.get("void", False), f"{at}.void")
        reason = _text(obj.get("void_reason") or "", f"{at}.void_reason", MAX_REASON)
        created = _moment(obj["created_at"], f"{at}.created_at") if "created_at" in obj else now()
        out.append(_PaymentIn(str(kind), payer, payee, amount, carry_id, void, reason, created))
    _check_carries(out)
    return out


def _check_carries(rows: Sequence[_PaymentIn]) -> None:
    """Each carry's opening rows, and its carried-out rows, add up to zero and are void together.

    A carry moves everything open on a night, which adds up to zero, and
    voids both halves at once; rows that do not add up would leave the
    night's balances unequal, a settlement no plan can pay.
    """
    carries: dict[tuple[str, str], list[_PaymentIn]] = {}
    for row in rows:
        if row.carry_id is not None:
            carries.setdefault((row.kind, row.carry_id), []).append(row)
    for (kind, carry_id), part in carries.items():
        total = sum(r.amount for r in part)
        if total or len({r.void for r in part}) > 1:
            raise BadInput("payments", "The %(kind)s rows of carry %(carry)s add up to %(total)s minor units "
                                       "(void or not: %(void)s); a carry's rows add up to zero and are void "
                                       "together, or the balances would not be equal.",
                           kind=kind, carry=repr(carry_id), total=total,
                           void=", ".join(sorted({str(r.void).lower() for r in part})))


def _date(value: object) -> Date | None:
    if value in (None, ""):
        return None
    try:
        return Date.fromisoformat(_text(value, "night.date", 10))
    except ValueError:
        raise BadInput("night.date", "night.date must be written as YYYY-MM-DD.") from None


# --- import: rebuild -----------------------------------------------------------

def _replayed(match: Match, number: int, events: Sequence[_EventIn]) -> Any:
    """The match's state from its log; the first bad event refuses the whole import."""
    where = f"matches[{number - 1}]"
    try:
        state = ledger.initial_state(match)
    except RuleViolation as exc:
        raise RuleViolation(exc.rule, f"Match {number} ({spec(match.game).title}) cannot start: "
                                      f"{exc.message}") from None
    except BadInput as exc:
        raise BadInput(f"{where}.{exc.field}", exc.message) from None
    order = sorted(range(len(events)), key=lambda k: (events[k].corrects or events[k].seq, events[k].void, k))
    for k, event in ((k, events[k]) for k in order):  # in the order of play: a correction in its round's place
        if event.deal is not None:
            event.deal = _deal_log(match, state, event, f"{where}.rounds[{k}]")  # stored in its canonical form
        if event.void:
            _void_payload(match, state, event, f"{where}.rounds[{k}].payload", number)
            continue
        payload = event.payload
        try:
            if event.kind == "close" and payload.get("pot") == "award" and payload.get("to") not in match.seats:
                raise BadInput("to", "%(name)s is not a player of this match.",
                               name=repr(str(payload.get("to"))[:40]))
            state = ledger.apply_event(match, state, event.kind, payload, event.facts)
        except RuleViolation as exc:
            raise RuleViolation(exc.rule, "Match %(number)s (%(game)s), round %(seq)s: %(error)s",
                                number=number, game=spec(match.game).title, seq=event.seq, error=exc) from None
        except BadInput as exc:
            raise BadInput(f"{where}.rounds[{k}].payload.{exc.field}",
                           "Match %(number)s, round %(seq)s: %(error)s", number=number, seq=event.seq,
                           error=exc) from None
    return state


def _void_payload(match: Match, state: Any, event: _EventIn, where: str, number: int) -> None:
    """A void round's payload is a round of its game all the same (it is kept, shown and printed)."""
    if event.kind != "round":
        return  # a close's payload was checked with the shape
    try:
        spec(match.game).parse_round(state, event.payload, night_money(match.night))
    except BadInput as exc:
        raise BadInput(f"{where}.{exc.field}", "Match %(number)s, round %(seq)s: %(error)s", number=number,
                       seq=event.seq, error=exc) from None


def _deal_log(match: Match, state: Any, event: _EventIn, where: str) -> dict[str, Any]:
    """A round's deal (the trick referee's log) judged again, as on entry; its canonical form is stored."""
    module = spec(match.game)
    money = night_money(match.night)
    try:
        if match.game not in tricks.GAMES:
            raise BadInput("deal", "Only Svängknack, Kul and Schloapfer rounds have a deal of tricks.")
        log = tricks.judge_log(match.game, event.deal)
        canonical = module.round_json(module.parse_round(state, event.payload, money), money)
        ledger.check_deal_round(module, state, money, canonical, log)
    except RuleViolation as exc:
        raise RuleViolation(exc.rule, "Round %(seq)s's deal: %(error)s", seq=event.seq, error=exc) from None
    except BadInput as exc:
        raise BadInput(f"{where}.{exc.field}", "Round %(seq)s's deal: %(error)s", seq=event.seq,
                       error=exc) from None
    return log[0]


def import_night(data: object, *, idem: Idem | None = None, caller: Caller | None = None) -> Night:
    """A night from :func:`export_night`'s data, in a new group with new tokens.

    Checks the whole shape first (:class:`BadInput` naming the field), then
    builds the night in memory and replays every match through the engine
    before anything is written: a round that breaks a rule raises its
    :class:`RuleViolation` (with the match and round in the message) and
    nothing is stored. The write is then one transaction. Snapshots come
    from the replay, never from the file.
    """
    if not isinstance(data, Mapping):
        raise BadInput("export", "The export must be a JSON object.")
    top = _object(data, "", ("format", "version", "exported_at", "currency", "minor_digits", "night",
                                         "players", "matches", "payments"), ("version", "night", "players"))
    if top.get("format", FORMAT) != FORMAT:
        raise BadInput("format", "This is not a night export (format must be %(format)s).",
                       format=repr(FORMAT))
    if isinstance(top["version"], bool) or top["version"] != VERSION:
        raise BadInput("version", "This app reads export version %(ours)s; the file has version %(theirs)s.",
                       ours=VERSION, theirs=str(top["version"])[:10])
    info = _object(top["night"], "night", ("name", "date", "place", "leader", "currency", "group",
                                                 "created_at"), ("name", "currency"))
    name = clean_name(info["name"], "night.name", MAX_TEXT)
    currency = clean_currency(info["currency"])
    if top.get("currency") is not None and top["currency"] != currency:
        raise BadInput("currency", "currency disagrees with night.currency.")
    money = ledger.currency_money(currency)
    if top.get("minor_digits") is not None and top["minor_digits"] != money.digits:
        raise BadInput("minor_digits", "%(currency)s has %(digits)s minor-unit digits, not %(theirs)s.",
                       currency=currency, digits=money.digits, theirs=str(top["minor_digits"])[:10])
    place = "" if info.get("place") in (None, "") else clean_name(info["place"], "night.place", MAX_TEXT)
    leader = "" if info.get("leader") in (None, "") else clean_name(info["leader"], "night.leader")
    group_name = clean_name(info["group"], "night.group", MAX_TEXT) if info.get("group") else name
    created = _moment(info["created_at"], "night.created_at") if info.get("created_at") else now()
    players = _players(top["players"])
    names = [p["name"] for p in players]
    matches_in = _matches(top.get("matches", []), names, money)
    payments_in = _payments(top.get("payments", []), names, money, leader)

    return ledger.import_night(
        group_name, name, currency, players, date=_date(info.get("date")), place=place, leader=leader,
        created_at=created, matches_in=matches_in, payments_in=payments_in,
        fold=lambda match, number: _replayed(match, number, matches_in[number - 1].events), idem=idem,
        caller=caller)


__all__ = ["CSV_COLUMNS", "FORMAT", "VERSION", "export_csv", "export_night", "import_night"]
