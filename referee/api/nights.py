"""The API's nights: create, read, revoke, late players, settlement, payments, carries, export and import."""

from __future__ import annotations

import json
from typing import Any

from flask import Response, jsonify, request

from referee import bounds, exports, ledger, night_changes, payment_codes, pots
from referee.api import _date, authorize, authorized_night, body, bp, respond
from referee.engine import BadInput
from referee.ledger import debts, fingerprint, inputs, paying, payments, rights, tournament_entries, tournament_view
from referee.ledger import tournaments as tourneys
from referee.models import Night
from referee.web import idempotent
from referee.web.caller import caller


def night_json(night: Night, *, with_tokens: bool = False) -> dict[str, Any]:
    money = ledger.night_money(night)
    result = payments.settlement(night).result
    chain = fingerprint.night_chain(night)
    balances = {name: result[name] for name in night.player_names}
    out: dict[str, Any] = {
        "id": night.id,
        "name": night.name,
        "date": night.date.isoformat() if night.date else None,
        "place": night.place,
        "leader": night.leader,
        "currency": night.currency,
        "language": night.language,
        "group": night.group.name,
        "players": night.player_names,
        "balances": {k: money.format(v) for k, v in balances.items()},
        "pots": money.format(pots.pot_amount(result)),
        "matches": [{"id": m.id, "game": m.game, "players": list(m.seats), "status": m.status}
                    for m in night.matches],
        # the night's hash chain (referee/ledger/fingerprint.py): its last link, and how many events it holds
        "fingerprint": chain.fingerprint,
        "events": len(chain.events),
    }
    if with_tokens:
        out |= {"edit_token": night.edit_token, "view_token": night.view_token,
                "group_token": night.group.token}
    return out


def _created_night(night: Night) -> tuple[int, dict[str, Any]]:
    return 201, night_json(night, with_tokens=True)


@bp.post("/nights")
def create_night() -> Any:
    idem = idempotent.from_request(_created_night)
    data = body({"name", "currency", "players", "group", "group_token", "date", "place", "leader", "language"},
                {"name", "currency", "players"})
    if isinstance(data.get("group_token"), str) and rights.group(data["group_token"], caller()) is None:  # counted
        raise ledger.NotFound("No group has that token.")
    night = ledger.create_night(
        data["name"], data["currency"], data["players"], date=_date(data.get("date")),
        place=data.get("place", ""), group=data.get("group"), group_token=data.get("group_token"),
        leader=data.get("leader", ""), idem=idem, caller=caller(),
        # Its sheets' language when a reader asks for none: as given, else the client's Accept-Language.
        language=data.get("language", request.accept_languages.best_match(inputs.LANGUAGES)))
    return respond(idem, _created_night, night)


@bp.get("/nights/<int:night_id>")
def get_night(night_id: int) -> Any:
    night = authorized_night(night_id, write=False)
    return jsonify(night_json(night))


@bp.get("/nights/<int:night_id>/events")
def night_events(night_id: int) -> Any:
    """The events of the night's hash chain after the first ``after`` (an addition to the contract, issue 46.2).

    ``since`` (the fingerprint the client saw) tells whether the chain still passes through it (``known``).
    """
    night = authorized_night(night_id, write=False)
    after = night_changes.seen_count(request.args.get("after"))
    chain = fingerprint.night_chain(night)
    seen = fingerprint.since(chain, after, request.args.get("since") or "")
    money = ledger.night_money(night)
    return jsonify({"fingerprint": chain.fingerprint, "count": len(chain.events),
                    "known": seen.known if request.args.get("since") else None,
                    "events": [night_changes.event_json(seen.first + k, ev, chain, night, money)
                               for k, ev in enumerate(seen.events)]})


@bp.post("/nights/<int:night_id>/revoke")
def revoke(night_id: int) -> Any:
    """A new edit token: the old one (and every phone holding it) can no longer write."""
    night = authorized_night(night_id, write=True)
    token = ledger.revoke_edit_token(night)
    return jsonify({"id": night.id, "edit_token": token})


@bp.post("/nights/<int:night_id>/players")
def add_player(night_id: int) -> Any:
    night = authorized_night(night_id, write=True)

    def render(joined: Night) -> tuple[int, dict[str, Any]]:
        return 201, night_json(joined)

    idem = idempotent.from_request(render)
    data = body({"name"}, {"name"})
    tournament_entries.join_night(night, data["name"], idem=idem)  # a tournament's night: a late player
    return respond(idem, render, ledger.get_night(night_id))


def settlement_json(s: payments.NightSettlement, plan_kind: str = "fewest") -> dict[str, Any]:
    """The settlement ``s`` as the API shows it: what is open and the plan to settle it.

    Players' maps hold players only; what lies in pots is in ``pots`` (the
    result) and ``pot_account`` (see :mod:`referee.pots`).
    """
    money = ledger.night_money(s.night)
    plan = payments.leader_plan(s) if plan_kind == "leader" else s.plan

    def amounts(values: dict[str, int], *, nonzero: bool = False) -> dict[str, str]:
        return {k: money.format(v) for k, v in pots.players_only(values).items() if v or not nonzero}

    return {
        "balances": amounts(s.open),
        "result": amounts(s.result),
        "opening": amounts(s.opening, nonzero=True),
        "paid": amounts(s.paid, nonzero=True),
        "carried_out": amounts(s.carried_out, nonzero=True),
        "pots": money.format(pots.pot_amount(s.result)),
        "pot_account": {key: money.format(pots.pot_amount(values)) for key, values in (
            ("result", s.result), ("opening", s.opening), ("paid", s.paid), ("carried_out", s.carried_out),
            ("open", s.open))},
        "per_match": [{"match": m.id, "game": m.game, "balances": amounts(b)} for m, b in s.per_match],
        "plan": plan_kind,
        "transfers": [pots.parties_json(w.payer, w.payee) | {
            "amount": money.format(w.amount), "payer_owes": money.format(-w.payer_open),
            "payee_is_owed": money.format(w.payee_open)} for w in payments.explain(s, plan)],
        "exact": plan.exact,
        "note": plan.note,
        "settled": s.settled,
        "payments": [payment_json(p, money) for p in s.payments],
    }


def payment_json(p: Any, money: Any) -> dict[str, Any]:
    return {"id": p.id, "kind": p.kind, **pots.parties_json(p.payer, p.payee), "amount": money.format(p.amount),
            "void": p.void, "void_reason": p.void_reason or None, "created_at": p.created_at.isoformat() + "Z"}


@bp.get("/nights/<int:night_id>/settlement")
def settlement(night_id: int) -> Any:
    night = authorized_night(night_id, write=False)
    kind = request.args.get("plan", "fewest")
    if kind not in ("fewest", "leader"):
        raise BadInput("plan", "plan must be fewest or leader.")
    return jsonify(settlement_json(payments.settlement(night), kind))


@bp.post("/nights/<int:night_id>/payments")
def add_payment(night_id: int) -> Any:
    """A transfer paid, fully or partly (an event: voidable, never edited).

    The answer's settlement is the one the ledger checked the payment against, with the payment in it
    (:class:`payments.Paid`): the night is settled once per payment (issue 48.3).
    """
    night = authorized_night(night_id, write=True)

    def render(paid: payments.Paid) -> tuple[int, dict[str, Any]]:
        return 201, {"payment": payment_json(paid.row, ledger.night_money(night)),
                     "settlement": settlement_json(paid.settlement)}

    idem = idempotent.from_request(render)
    data = body({"from", "to", "from_pot", "to_pot", "amount"}, {"amount"})
    payer, payee = pots.parties_in(data, night.player_names)
    paid = payments.record_payment(night, payer, payee, data["amount"], idem=idem)
    return respond(idem, render, paid)


@bp.post("/nights/<int:night_id>/payments/<int:payment_id>/void")
def void_payment(night_id: int, payment_id: int) -> Any:
    night = authorized_night(night_id, write=True)

    def render(_voided: Any) -> tuple[int, dict[str, Any]]:
        return _settled(night)

    idem = idempotent.from_request(render)
    data = body({"reason"})
    voided = payments.void_payment(night, payment_id, data.get("reason"), idem=idem)
    return respond(idem, render, voided)


@bp.post("/nights/<int:night_id>/carry")
def carry(night_id: int) -> Any:
    """Carry what is still open to a later night of the group (opening balances there)."""
    night = authorized_night(night_id, write=True)
    idem = idempotent.from_request(_settled)
    data = body({"to_night"}, {"to_night"})
    debts.carry_debts(night, data["to_night"], idem=idem)
    return respond(idem, _settled, night)


def _settled(night: Night) -> tuple[int, dict[str, Any]]:
    """The answer of a payment's void and of a carry: the night's settlement."""
    return 200, {"settlement": settlement_json(payments.settlement(night))}


@bp.post("/nights/<int:night_id>/players/<name>/details")
def payment_details(night_id: int, name: str) -> Any:
    """A player's Swish number and/or IBAN with the account holder, and the IBAN's bank where it is known."""
    night = authorized_night(night_id, write=True)
    data = body({"swish", "iban", "holder"})
    player = paying.set_payment_details(night, name, data.get("swish", ""), data.get("iban", ""),
                                          data.get("holder", ""))
    return jsonify({"name": player.name, "swish": player.swish, "iban": player.iban,
                    "holder": player.account_holder,
                    "bank": payment_codes.bank_name(player.iban) if player.iban else None})


@bp.get("/nights/<int:night_id>/export.json")
def export_night(night_id: int) -> Any:
    """Everything needed to rebuild the night (its facts, never derived states)."""
    night = ledger.get_night(night_id)
    access = authorize(night, write=False)
    # UTF-8, not \u escapes: a name or reason outside ASCII is 2 to 4 bytes, not 6 to 12, so the export of
    # the largest night stays within what its import takes (bounds.IMPORT_BYTES; the seed as the view shows it)
    resp = Response(json.dumps(exports.export_night(night, organiser=access.may_edit()), ensure_ascii=False,
                               sort_keys=True, separators=(",", ":")), mimetype="application/json")
    resp.headers["Content-Disposition"] = f'attachment; filename="night-{night.id}.json"'
    return resp


@bp.post("/import")
def import_night() -> Any:
    """A night export into a new group: checked and replayed before anything is stored."""
    request.max_content_length = bounds.IMPORT_BYTES  # the export of the largest night; set before reading
    idem = idempotent.from_request(_imported)
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadInput("body", "The request body must be a JSON object (a night export).")
    night = exports.import_night(data, idem=idem, caller=caller())
    return respond(idem, _imported, night)


def _imported(night: Night) -> tuple[int, dict[str, Any]]:
    """The new night with its tokens; a tournament's night adds the new ``tournament`` and its current tables
    with their new tokens (API.md "Tournaments")."""
    status, out = _created_night(night)
    tourn = tourneys.of_night(night.id)
    if tourn is not None:
        out |= {"tournament": tourn.id,
                "tables": [tournament_view.table_json(t, token=True) for t in tourneys.current_tables(tourn)]}
    return status, out
