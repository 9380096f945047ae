"""The ledger: the one package that owns the event log and writes its rows.

Every Night, Group, Player, Match, Round, Snapshot and Payment row is written
here and nowhere else, each action in one transaction (:mod:`.tx`), after
the engine has checked it, with the same locks and the same idempotency path
(:mod:`.idempotency`) whichever door it came through. Above it, the pages,
the API and the reports only ask: they read through it and write by calling
its actions. It never imports them (nor :mod:`referee.errors`).

What lives where:

- :mod:`.tx`: the write transaction, the nights' locks, the errors
  (``NotFound``, ``Conflict``, ``Unavailable``);
- :mod:`.inputs`: names, players, currencies checked before a write;
- :mod:`.nights`: nights, groups, players, tokens;
- :mod:`.rounds`: matches and their log (rounds, voids, closes), the fold
  used to check a write (``replay``);
- :mod:`.carries`: pots carried to the next night (SK-14);
- :mod:`.payments`: payments, openings, carried debts, the settlement;
- :mod:`.fold`: the match's history folded for charts and seasons;
- :mod:`.idempotency`, :mod:`.rights` (with :mod:`.ratelimit`, the count of
  wrong tokens), :mod:`.live` (the live notes every write makes),
  :mod:`.season`, :mod:`.settle` (who pays whom, pure).

The names below are re-exported so that a call site reads
``from referee import ledger`` ... ``ledger.add_round(...)``; this file holds
no logic.
"""

from referee.ledger.carries import open_carry
from referee.ledger.idempotency import Idem
from referee.ledger.inputs import (
    MAX_NAME,
    MAX_PLAYERS_PER_NIGHT,
    MAX_TEXT,
    POT_PARTY,
    clean_currency,
    clean_name,
    clean_player,
    clean_players,
    currency_money,
    night_money,
)
from referee.ledger.nights import (
    add_player,
    create_night,
    get_night,
    group_by_token,
    night_by_token,
    revoke_edit_token,
    seat_player,
)
from referee.ledger.rounds import (
    MAX_MATCH_EVENTS,
    add_round,
    apply_event,
    check_deal_round,
    close_match,
    create_match,
    get_match,
    initial_state,
    match_events_limit,
    match_json,
    recent_rounds,
    replay,
    round_json,
    state_of,
    void_round,
)
from referee.ledger.tx import Conflict, NotFound, Unavailable, configure_engine, lock_nights, store_reply, writing

__all__ = [
    "MAX_MATCH_EVENTS", "MAX_NAME", "MAX_PLAYERS_PER_NIGHT", "MAX_TEXT", "POT_PARTY", "Conflict", "Idem",
    "NotFound", "Unavailable", "add_player", "add_round", "apply_event", "check_deal_round", "clean_currency",
    "clean_name", "clean_player", "clean_players", "close_match", "configure_engine", "create_match",
    "create_night", "currency_money", "get_match", "get_night", "group_by_token", "initial_state",
    "lock_nights", "match_events_limit", "match_json", "night_by_token", "night_money", "open_carry",
    "recent_rounds", "replay", "revoke_edit_token", "round_json", "seat_player", "state_of", "store_reply",
    "void_round", "writing",
]
