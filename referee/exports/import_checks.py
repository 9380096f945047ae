"""An import's checks of shape: every field of the file known, typed, bounded and named by its path.

Nothing here reads the database or replays a rule (that is :mod:`.replay`):
a file that fails a check is refused with a :class:`BadInput` naming the
field (``matches[2].rounds[5].payload``) before anything else is done.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from datetime import date as Date
from typing import Any

from flask import current_app

from referee import bounds, ledger, payment_codes, pots
from referee.engine import BadInput
from referee.engine.money import MAX_AMOUNT, MAX_MINOR, Money
from referee.engine.records import dump, parse_options
from referee.engine.spec import SPECS, spec
from referee.engine.vocab import CLOSE_HOWS, EventKind, PaymentKind
from referee.exports.night_json import KEPT, iso
from referee.ledger import POT_PARTY, clean_players
from referee.ledger.imports import PaymentIn as _PaymentIn
from referee.ledger.matches import EventIn as _EventIn
from referee.ledger.matches import MatchIn as _MatchIn
from referee.models import now

EVENT_KINDS = tuple(kind.value for kind in EventKind)
PAYMENT_KINDS = tuple(kind.value for kind in PaymentKind)
#: The kinds whose rows are one party's (no payee), each one of a carry's rows that add up to zero: the
#: halves of a carried debt, a tournament's fee-and-prize rows. Any other kind (a payment; a kind added
#: later, such as a tournament's fee) is read as its export writes it: with a payee, a transfer between
#: two parties of the night; without one, one of a carry's rows. So every kind round-trips, and no file
#: makes the night's balances unequal.
ONE_SIDED = (PaymentKind.OPENING, PaymentKind.CARRY_OUT, PaymentKind.PRIZE)

#: Bounds on what one import may hold: a night's (:mod:`referee.bounds`, read there at each import), so that
#: the export of any night the app let grow imports again; far above any real night, low enough that a
#: hostile file cannot tie up a worker for long. Events in all matches together: ``MAX_IMPORT_EVENTS``
#: (:data:`referee.bounds.NIGHT_EVENTS`); of one match: ``MAX_MATCH_EVENTS``.
MAX_REASON = 500
MAX_PAYLOAD_DEPTH = 8
#: The times an import accepts (``created_at``): no real night is outside, and dates a little outside
#: still convert between time zones and print (year 1 or 9999 with an offset overflowed into a 500).
EARLIEST = datetime(1900, 1, 1)
LATEST = datetime(2999, 12, 31, 23, 59, 59)


def check_object(data: object, where: str, allowed: Sequence[str], required: Sequence[str] = ()) -> Mapping[str, Any]:
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


def check_bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise BadInput(where, "%(where)s must be true or false.", where=where)
    return value


def check_text(value: object, where: str, max_len: int) -> str:
    if not isinstance(value, str):
        raise BadInput(where, "%(where)s must be text.", where=where)
    if len(value) > max_len:
        raise BadInput(where, "%(where)s is longer than %(n)s characters.", where=where, n=max_len)
    return value


def check_list(value: object, where: str, max_len: int) -> list[Any]:
    if not isinstance(value, list):
        raise BadInput(where, "%(where)s must be a list.", where=where)
    if len(value) > max_len:
        raise BadInput(where, "%(where)s has more than %(n)s entries.", where=where, n=max_len)
    return value


def check_moment(value: object, where: str) -> datetime:
    """An ISO 8601 time (``Z`` or an offset: converted to UTC) as stored: naive UTC."""
    text = check_text(value, where, 40)
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
                       low=iso(EARLIEST), high=iso(LATEST))
    return moment


def check_money(obj: Mapping[str, Any], key: str, where: str, money: Money, *, default: int | None = None,
                high: int = MAX_MINOR) -> int:
    """``<key>_minor`` (the truth, at most ``high`` either way), checked against the decimal ``<key>`` when both
    are given. An amount from outside is at most ``MAX_MINOR``; one the app worked out (a carried pot, a prize, a
    carried balance) may be more (:data:`referee.bounds.NIGHT_AMOUNT`), and its decimal is then the one the
    export writes."""
    minor_key = f"{key}_minor"
    if minor_key not in obj:
        if default is None:
            raise BadInput(f"{where}.{minor_key}", "%(where)s is missing.", where=f"{where}.{minor_key}")
        minor = default
    else:
        minor = _int(obj[minor_key], f"{where}.{minor_key}", low=-high, high=high)
    text = obj.get(key)
    if text is not None and (text != money.format(minor) if abs(minor) > MAX_MINOR
                             else money.parse(text, f"{where}.{key}") != minor):
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


def check_players(raw: object) -> list[dict[str, str]]:
    entries = check_list(raw, "players", bounds.NIGHT_PLAYERS)
    objs = [check_object(e, f"players[{k}]", ("name", "swish", "iban", "account_holder"), ("name",))
            for k, e in enumerate(entries)]
    names = clean_players([o["name"] for o in objs], "players", bounds.NIGHT_PLAYERS)
    out = []
    for k, (name, obj) in enumerate(zip(names, objs, strict=True)):
        where = f"players[{k}]"
        swish = check_text(obj.get("swish") or "", f"{where}.swish", 40)
        iban = check_text(obj.get("iban") or "", f"{where}.iban", 60)
        holder = check_text(obj.get("account_holder") or "", f"{where}.account_holder", 100)
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
                       n=int(current_app.config.get("MAX_IMPORT_EVENTS", bounds.NIGHT_EVENTS)))
    entries = check_list(raw, where, per_match)
    out: list[_EventIn] = []
    last = 0
    for k, entry in enumerate(entries):
        at = f"{where}[{k}]"
        obj = check_object(entry, at, ("seq", "kind", "payload", "void", "void_reason", "created_at", "deal", *KEPT,
                                       "link", "void_link", "voided_at"), ("seq", "payload"))
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
            close = check_object(payload, f"{at}.payload", ("pot", "to"), ("pot",))
            if close["pot"] not in CLOSE_HOWS:
                raise BadInput(f"{at}.payload.pot", "%(where)s must be one of: %(choices)s.",
                               where=f"{at}.payload.pot", choices=", ".join(CLOSE_HOWS))
            if close.get("to") is not None:
                check_text(close["to"], f"{at}.payload.to", ledger.MAX_NAME)
        void = check_bool(obj.get("void", False), f"{at}.void")
        reason = check_text(obj.get("void_reason") or "", f"{at}.void_reason", MAX_REASON)
        created = check_moment(obj["created_at"], f"{at}.created_at") if "created_at" in obj else now()
        voided_at = check_moment(obj["voided_at"], f"{at}.voided_at") if obj.get("voided_at") is not None else None
        deal = obj.get("deal")
        if deal is not None:
            if kind != EventKind.ROUND or not isinstance(deal, Mapping):
                raise BadInput(f"{at}.deal", "%(where)s must be a JSON object, and only a round has one.",
                               where=f"{at}.deal")
            _plain_json(deal, f"{at}.deal")
        out.append(_EventIn(seq, str(kind), dict(payload), void, reason, created,
                            dict(deal) if deal is not None else None, *_kept(obj, at, seq, per_match),
                            voided_at=voided_at if void else None))
    return out


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


def check_matches(raw: object, names: list[str], money: Money) -> list[_MatchIn]:
    entries = check_list(raw, "matches", bounds.NIGHT_MATCHES)
    known = set(names)
    out: list[_MatchIn] = []
    budget = int(current_app.config.get("MAX_IMPORT_EVENTS", bounds.NIGHT_EVENTS))
    per_match = ledger.match_events_limit()
    allowed = ("game", "seats", "first_dealer", "stake_minor", "stake", "options", "carried_in_minor",
               "carried_in", "status", "created_at", "rounds", "link")
    for k, entry in enumerate(entries):
        at = f"matches[{k}]"
        obj = check_object(entry, at, allowed, ("game", "seats", "first_dealer", "stake_minor", "rounds"))
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
        stake = check_money(obj, "stake", at, money)
        if stake < 0:
            raise BadInput(f"{at}.stake_minor", "A stake cannot be negative.")
        carried_in = check_money(obj, "carried_in", at, money, default=0, high=MAX_AMOUNT)  # a pot, worked out
        if carried_in and not spec(game).can_carry:
            raise BadInput(f"{at}.carried_in_minor", "%(game)s has no carried pot.", game=spec(game).title)
        try:
            options = dump(parse_options(spec(game).Options, obj.get("options")))
        except BadInput as exc:
            raise BadInput(f"{at}.{exc.field}", exc.template, **exc.params) from None
        status = obj.get("status")
        if status is not None and status not in ("open", "closed"):
            raise BadInput(f"{at}.status", "%(where)s must be open or closed.", where=f"{at}.status")
        created = check_moment(obj["created_at"], f"{at}.created_at") if "created_at" in obj else now()
        events = _events(obj["rounds"], f"{at}.rounds", budget, per_match)
        budget -= len(events)
        out.append(_MatchIn(game, seats, str(dealer), stake, options, carried_in, status, created, events))
    return out


def check_payments(raw: object, names: list[str], money: Money, leader: str = "") -> list[_PaymentIn]:
    """The payment rows; the game leader is a party too, playing or not (the leader plan, issue 26)."""
    entries = check_list(raw, "payments", bounds.NIGHT_PAYMENTS)
    parties = set(names) | {POT_PARTY} | ({leader} if leader else set())
    out = []
    allowed = ("kind", "payer", "payee", "payer_pot", "payee_pot", "amount_minor", "amount", "carry_id", "void",
               "void_reason", "created_at", "link", "void_link", "voided_at")
    for k, entry in enumerate(entries):
        at = f"payments[{k}]"
        obj = check_object(entry, at, allowed, ("kind", "payer", "amount_minor"))
        kind = obj["kind"]
        if kind not in PAYMENT_KINDS:
            raise BadInput(f"{at}.kind", "%(where)s must be one of: %(choices)s.", where=f"{at}.kind",
                               choices=", ".join(PAYMENT_KINDS))
        # The pot by its flag (payer_pot, payee_pot); an export written before the flags names it by its label.
        payer = check_text(pots.party_in(obj, "payer", sorted(parties), field=f"{at}.payer"), f"{at}.payer",
                      ledger.MAX_NAME)
        payee = check_text(pots.party_in(obj, "payee", sorted(parties), field=f"{at}.payee", required=False) or "",
                      f"{at}.payee", ledger.MAX_NAME)
        if payer not in parties:
            raise BadInput(f"{at}.payer", "%(name)s in %(where)s is not a player of the night.",
                               name=repr(payer), where=f"{at}.payer")
        # a payment's amount came from outside (MAX_MINOR); a carried balance or a prize was worked out
        most = MAX_MINOR if kind == PaymentKind.PAYMENT else bounds.NIGHT_AMOUNT
        amount = _int(obj["amount_minor"], f"{at}.amount_minor", low=-most, high=most)
        carry_id = obj.get("carry_id")
        if kind == PaymentKind.FEE or (kind == PaymentKind.PRIZE and payee):
            # A tournament's fee (player to pot) or prize (pot to player, ``payer`` the winner): a move
            # between a player and the pool, a whole amount each (an old net prize row has no payee).
            if payee != POT_PARTY or payer == POT_PARTY:
                raise BadInput(f"{at}.payee", "A %(kind)s row moves money between a player and the pot "
                                              "(payee_pot: true).", kind=kind)
            if amount <= 0:
                raise BadInput(f"{at}.amount_minor", "A %(kind)s row must be more than zero.", kind=kind)
            carry_id = check_text(carry_id, f"{at}.carry_id", 40)
        elif kind == PaymentKind.PAYMENT or (payee and kind not in ONE_SIDED):
            # A transfer between two parties (a payment, or a kind added later that names a payee): zero in itself.
            if payee not in parties or payee == payer:
                raise BadInput(f"{at}.payee", "%(where)s must be another player of the night.", where=f"{at}.payee")
            if kind == PaymentKind.PAYMENT and amount <= 0:
                raise BadInput(f"{at}.amount_minor", "A payment must be more than zero.")
            if kind == PaymentKind.PAYMENT and carry_id is not None:
                raise BadInput(f"{at}.carry_id", "A payment has no carry id.")
            if carry_id is not None:
                carry_id = check_text(carry_id, f"{at}.carry_id", 40)
        else:  # one party's row: one of a carry's rows, which add up to zero (_check_carries)
            if payee:
                raise BadInput(f"{at}.payee", "An %(kind)s row has no payee.", kind=kind)
            if amount == 0:
                raise BadInput(f"{at}.amount_minor", "An %(kind)s row cannot be zero.", kind=kind)
            carry_id = check_text(carry_id, f"{at}.carry_id", 40)
        check_money(obj, "amount", at, money, high=most)  # the decimal amount, if given, agrees with amount_minor
        void = check_bool(obj.get("void", False), f"{at}.void")
        reason = check_text(obj.get("void_reason") or "", f"{at}.void_reason", MAX_REASON)
        created = check_moment(obj["created_at"], f"{at}.created_at") if "created_at" in obj else now()
        voided_at = check_moment(obj["voided_at"], f"{at}.voided_at") if obj.get("voided_at") is not None else None
        out.append(_PaymentIn(str(kind), payer, payee, amount, carry_id, void, reason, created,
                              voided_at if void else None))
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
        if row.carry_id is not None and not row.payee:  # a transfer, fee or prize row is zero in itself
            carries.setdefault((row.kind, row.carry_id), []).append(row)
    for (kind, carry_id), part in carries.items():
        total = sum(r.amount for r in part)
        if total or len({r.void for r in part}) > 1:
            raise BadInput("payments", "The %(kind)s rows of carry %(carry)s add up to %(total)s minor units "
                                       "(void or not: %(void)s); a carry's rows add up to zero and are void "
                                       "together, or the balances would not be equal.",
                           kind=kind, carry=repr(carry_id), total=total,
                           void=", ".join(sorted({str(r.void).lower() for r in part})))


def check_date(value: object) -> Date | None:
    if value in (None, ""):
        return None
    try:
        return Date.fromisoformat(check_text(value, "night.date", 10))
    except ValueError:
        raise BadInput("night.date", "night.date must be written as YYYY-MM-DD.") from None


