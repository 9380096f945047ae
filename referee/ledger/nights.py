"""Nights and groups: creating a night, its players, its tokens.

The only code that creates Night, Group, Player and NightPlayer rows (a
player's payment details are set by :mod:`referee.ledger.payments`); each
action is one transaction (:func:`referee.ledger.tx.writing`).
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from datetime import date as Date
from datetime import datetime

from sqlalchemy import select, update

from referee.engine import BadInput
from referee.ledger import live, ratelimit
from referee.ledger.idempotency import Idem
from referee.ledger.inputs import (
    MAX_PLAYERS_PER_NIGHT,
    MAX_TEXT,
    clean_currency,
    clean_language,
    clean_name,
    clean_player,
    clean_players,
)
from referee.ledger.ratelimit import Caller
from referee.ledger.tx import NotFound, store_reply, writing
from referee.models import Group, Night, NightPlayer, Player, Tournament, TournamentTable, db, new_token, token_key

# --- nights ------------------------------------------------------------------

def create_night(name: object, currency: object, players: object, *, date: Date | None = None,
                 place: object = "", group: object = None, group_token: object = None,
                 leader: object = "", language: object = None, idem: Idem | None = None,
                 caller: Caller | None = None) -> Night:
    """A new night, in a new group or an existing one (by its token); counted towards the address's creations.

    ``language`` is the one it is created in: its sheets use it when the reader asks for none."""
    name = clean_name(name, "name", MAX_TEXT)
    code = clean_currency(currency)
    names = clean_players(players)
    place = "" if place in (None, "") else clean_name(place, "place", MAX_TEXT)
    leader = "" if leader in (None, "") else clean_name(leader, "leader")
    lang = clean_language(language)
    with ratelimit.creating(caller, idem):
        if group_token is not None:
            if not isinstance(group_token, str):
                raise BadInput("group_token", "group_token must be text.")
            grp = group_by_token(group_token)
            if grp is None:
                raise NotFound("No group has that token.")
        else:
            grp = Group(name=clean_name(group, "group", MAX_TEXT) if group else name)
            db.session.add(grp)
        night = Night(group=grp, name=name, currency=code, date=date, place=place, leader=leader,
                      language=lang)
        db.session.add(night)
        for pos, pname in enumerate(names):
            night.seats.append(NightPlayer(player=_group_player(grp, pname), position=pos))
        db.session.flush()
        store_reply(idem, night)
    return night


def imported_night(group_name: str, name: str, currency: str, players: Sequence[Mapping[str, str]], *,
                   date: Date | None, place: str, leader: str, created_at: datetime) -> Night:
    """An imported night in a new group, with its players and their payment details; not yet stored.

    The night gets fresh tokens (the model's defaults), never the file's:
    an export is shared more widely than an edit link should be.
    """
    grp = Group(name=group_name)
    night = Night(group=grp, name=name, date=date, place=place, leader=leader, currency=currency,
                  created_at=created_at)
    for pos, details in enumerate(players):
        night.seats.append(NightPlayer(player=Player(group=grp, **details), position=pos))
    return night


def group_by_token(token: str) -> Group | None:
    """The group a token opens (looked up by its hash, compared in constant time), or None."""
    if not token or len(token) > 64:
        return None
    grp: Group | None = db.session.scalar(select(Group).where(Group.token_key == token_key(token)))
    if grp is None or not hmac.compare_digest(grp.token.encode(), token.encode()):
        return None
    return grp


def player_order(grp: Group) -> list[str]:
    """The group's players' names in the order they joined (their place gives each a chart colour).

    Why not ``grp.players``: at a club evening the group has 200 players, and a
    match page drew its chart after loading all 200 rows as objects (6 ms of a
    guest's 37 ms page); the names alone are one light query.
    """
    if "players" in grp.__dict__:  # loaded already: no query
        return [p.name for p in grp.players]
    return list(db.session.scalars(select(Player.name).where(Player.group_id == grp.id).order_by(Player.id)))


def _group_player(grp: Group, name: str) -> Player:
    for p in grp.players:
        if p.name.casefold() == name.casefold():
            return p
    player = Player(group=grp, name=name)
    db.session.add(player)
    return player


def add_player(night: Night, name: object, *, idem: Idem | None = None) -> None:
    """Another player joins the night (a group member or a new one); not a tournament's night, whose players
    come late by :func:`referee.ledger.tournament_entries.register` (the routes' door: ``join_night``)."""
    pname = clean_player(name, "name")
    with writing(idem=idem):
        night = db.session.get(Night, night.id) or night
        if db.session.scalar(select(Tournament.id).where(Tournament.night_id == night.id)) is not None:
            raise BadInput("name", "This night is a tournament's: add a late player on the tournament's page.")
        if any(n.casefold() == pname.casefold() for n in night.player_names):
            raise BadInput("name", "%(name)s is already at this night.", name=repr(pname))
        if len(night.seats) >= MAX_PLAYERS_PER_NIGHT:
            raise BadInput("name", "At most %(n)s players.", n=MAX_PLAYERS_PER_NIGHT)
        seat_player(night, pname)
        live.note(night.id, "players")
        store_reply(idem, night)


def seat_player(night: Night, name: str) -> None:
    """Seat a group member (or a new one) at the night; inside a write transaction."""
    night.seats.append(NightPlayer(player=_group_player(night.group, name), position=len(night.seats)))


def revoke_edit_token(night: Night) -> str:
    """Give the night a new edit token: the old edit link and its phones lose the right."""
    token = new_token()
    with writing():
        db.session.execute(update(Night.__table__).where(Night.__table__.c.id == night.id)
                           .values(edit_token=token, edit_key=token_key(token)))
        # A tournament's table tokens end with the night's edit link (the organiser gives new ones per table).
        tournaments = select(Tournament.id).where(Tournament.night_id == night.id)
        db.session.execute(update(TournamentTable).where(TournamentTable.tournament_id.in_(tournaments))
                           .values(revoked=True).execution_options(synchronize_session=False))
        live.note(night.id, "rights")  # open streams check their token again and end if it no longer opens
    db.session.expire(night)
    return token


def get_night(night_id: int) -> Night:
    night = db.session.get(Night, night_id)
    if night is None:
        raise NotFound(f"There is no night {night_id}.")
    return night


def night_by_token(token: str) -> tuple[Night, bool] | None:
    """The night an edit or view token opens, and whether it may write."""
    key = token_key(token)
    night = db.session.scalar(select(Night).where(Night.edit_key == key))
    if night is not None and hmac.compare_digest(night.edit_token.encode(), token.encode()):
        return night, True
    night = db.session.scalar(select(Night).where(Night.view_key == key))
    if night is not None and hmac.compare_digest(night.view_token.encode(), token.encode()):
        return night, False
    return None
