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
- :mod:`.matches`: creating matches (and an imported night's);
- :mod:`.rounds`: a match's log (rounds, voids, closes);
- :mod:`.carries`: pots carried to the next night (SK-14);
- :mod:`.payments`: payments and the settlement; :mod:`.debts`: debts carried to a later night;
- :mod:`.imports`: an export file's night written as rows;
- :mod:`.fold`: the one fold of the log (writes, charts, seasons, protocols, the import), its error
  policy (``CorruptLog``), its cache and its checkpoints stored in ``fold_checkpoints``; the only
  reader and writer of a snapshot's JSON;
- :mod:`.idempotency`, :mod:`.rights` (with :mod:`.ratelimit`, the count of
  wrong tokens), :mod:`.live` (the live notes every write makes),
  :mod:`.season`, :mod:`.settle` (who pays whom, pure), :mod:`.settings`
  (the few settings its rules read, per database engine).

It reads no request, session or app config (issue 48.1): the doors hand it
plain values (a key and a request's fingerprint, the caller's address, a
phone's grants as a mapping), read off Flask in ``referee/web/``, so a
script drives it in an app context with no request.

The names below are re-exported so that a call site reads
``from referee import ledger`` ... ``ledger.add_round(...)``; this file holds
no logic.
"""

from referee.ledger.carries import open_carry
from referee.ledger.corrections import Outcome, correct_round, state_to_correct, void_round
from referee.ledger.fold import CorruptLog, apply_event, initial_state, replay, state_of
from referee.ledger.idempotency import Idem
from referee.ledger.imports import import_night
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
from referee.ledger.matches import create_match
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
    add_round,
    check_deal_round,
    close_match,
    get_match,
    match_events_limit,
    match_json,
    recent_rounds,
    round_at,
    round_json,
    state_json,
    stored_states_json,
)
from referee.ledger.settings import MAX_MATCH_EVENTS, Settings, configure
from referee.ledger.tx import Conflict, NotFound, Unavailable, configure_engine, lock_nights, store_reply, writing

__all__ = [
    "MAX_MATCH_EVENTS", "MAX_NAME", "MAX_PLAYERS_PER_NIGHT", "MAX_TEXT", "POT_PARTY", "Conflict", "CorruptLog", "Idem",
    "NotFound", "Outcome", "Settings", "Unavailable", "add_player", "add_round", "apply_event", "check_deal_round",
    "clean_currency", "clean_name", "clean_player", "clean_players", "close_match", "configure", "configure_engine",
    "correct_round", "create_match", "create_night", "currency_money", "get_match", "get_night", "group_by_token",
    "import_night",
    "initial_state", "lock_nights", "match_events_limit", "match_json", "night_by_token", "night_money", "open_carry",
    "recent_rounds", "replay", "revoke_edit_token", "round_at", "round_json", "seat_player", "state_json", "state_of",
    "state_to_correct", "store_reply", "stored_states_json", "void_round", "writing",
]
