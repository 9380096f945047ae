"""An import rebuilt: every match's log replayed through the engine before anything is written, then one write.

The file's shape is checked first (:mod:`.import_checks`); a log that no
longer replays refuses the whole import; the ledger writes the night in one
transaction (:func:`referee.ledger.import_night`), with the states from the
replay, never from the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee import ledger
from referee.engine import BadInput, RuleViolation, tricks
from referee.engine.spec import spec
from referee.exports import tournament_checks
from referee.exports.chain_check import check_chain
from referee.exports.import_checks import (
    check_date,
    check_matches,
    check_moment,
    check_object,
    check_payments,
    check_players,
)
from referee.exports.night_json import FORMAT, READS, TOURNAMENT_SINCE
from referee.ledger import MAX_TEXT, Idem, clean_currency, clean_name, night_money
from referee.ledger.matches import EventIn as _EventIn
from referee.ledger.ratelimit import Caller
from referee.models import Match, Night, now


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
    from the replay, never from the file. A file of version 2 on carries the night's hash chain, which must
    hold (:mod:`.chain_check`), checked once the logs replayed; of version 3 on, a tournament night's
    tournament (:mod:`.tournament_checks`), re-created with new table tokens.
    """
    if not isinstance(data, Mapping):
        raise BadInput("export", "The export must be a JSON object.")
    top = check_object(data, "", ("format", "version", "exported_at", "fingerprint", "currency", "minor_digits",
                                  "night", "players", "matches", "payments", "tournament"),
                       ("version", "night", "players"))
    if top.get("format", FORMAT) != FORMAT:
        raise BadInput("format", "This is not a night export (format must be %(format)s).",
                       format=repr(FORMAT))
    if isinstance(top["version"], bool) or top["version"] not in READS:
        raise BadInput("version", "This app reads export version %(ours)s; the file has version %(theirs)s.",
                       ours=f"{min(READS)}–{max(READS)}", theirs=str(top["version"])[:10])
    info = check_object(top["night"], "night", ("name", "date", "place", "leader", "currency", "group",
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
    created = check_moment(info["created_at"], "night.created_at") if info.get("created_at") else now()
    players = check_players(top["players"])
    names = [p["name"] for p in players]
    matches_in = check_matches(top.get("matches", []), names, money)
    payments_in = check_payments(top.get("payments", []), names, money, leader)
    tournament = None
    if top.get("tournament") is not None:
        if top["version"] < TOURNAMENT_SINCE:
            raise BadInput("tournament", "A file of version %(version)s has no tournament.", version=top["version"])
        tournament = tournament_checks.check_part(top["tournament"], top.get("fingerprint"), names, matches_in, money)

    return ledger.import_night(
        group_name, name, currency, players, date=check_date(info.get("date")), place=place, leader=leader,
        created_at=created, matches_in=matches_in, payments_in=payments_in,
        fold=lambda match, number: _replayed(match, number, matches_in[number - 1].events), idem=idem,
        caller=caller, verify=lambda: check_chain(top, matches_in, payments_in), tournament=tournament)
