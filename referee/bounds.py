"""What one night may hold, and what one address may create in an hour: the bounds, in one place (issue 45.6).

Why: nothing bounded a tournament night. 400 players at tables of 2 over 50
series is 10,000 tables: its settlement sheet took 15 s (three at once 45 s,
and the worker grew from 398 to 837 MB and kept it), and a script creating
such tournaments with no credentials grew the database by 31 MB in 30 s
while another night's round entry went from 3 ms to 361 ms.

The bounds are far above a real night and low enough that every sheet of
the largest night prints in under 3 s (``bench/night_bounds.py``). The
creation of a night refuses what goes past them (a ``400`` naming the bound,
nothing written); a round past :data:`NIGHT_EVENTS` is refused as a full
match's is. The import of an export file checks the same constants, so the
export of any night the app let grow can be imported again.

- :data:`NIGHT_PLAYERS`: a club evening may bring 480 players (tables of 4;
  the players cost the sheets little: a row each).
- :data:`NIGHT_MATCHES`: a night's matches, a tournament's tables of every
  series together: 480 players at tables of 4 is 120 tables a series, so 8
  series; a small tournament may play many more series (4 tables over 50).
  The tables are what the sheets pay for (a table card each, a line in the
  protocols and the tournament sheet).
- :data:`SERIES`: a tournament's series.
- :data:`NIGHT_EVENTS`: rounds and closes of all the night's matches (void
  ones too); about 20 rounds for each of the 960 tables of the largest
  evening (``MAX_IMPORT_EVENTS`` in the config).
- :data:`MATCH_EVENTS`: the same of one match (``MAX_MATCH_EVENTS``): a long
  evening's match has a few hundred; a void replays the whole log and a
  protocol prints it.
- :data:`NIGHT_PAYMENTS`: a night's payment rows (payments, void ones too, the
  halves of carried debts, a tournament's prize rows): a payment or a carry
  past it is refused, so the night's export imports again.
- :data:`IMPORT_BYTES`: the body of one import, the export of a night at
  every bound above (written as UTF-8), each row at its largest
  (:data:`EVENT_BYTES` ...: a round naming 8 of a table's 9 players of 40
  characters of 4 bytes, voided with a reason of 500; ``tests/web/test_night_bounds.py``
  measures the largest rows the app writes against them). The 16 MiB it was
  held a night of about 3,000 such events: the app's own export of a valid
  night was refused (issue 43.6).

Creation per address: :data:`CREATIONS_PER_HOUR` nights and tournaments
(and imports, which create a night) from one client address in an hour;
then ``429`` with the wait. A club makes a few a week; a test suite sets
``CREATIONS_PER_HOUR`` higher in its app's config.
"""

from __future__ import annotations

from referee.engine.money import MAX_AMOUNT

NIGHT_PLAYERS = 480
NIGHT_MATCHES = 1_000
SERIES = 50
NIGHT_EVENTS = 20_000
MATCH_EVENTS = 5_000
NIGHT_PAYMENTS = 5_000
#: The largest amount one party's money row of a night may hold (a carried balance, a tournament's prize): every
#: match closed at its largest (a close takes at most twice ``MAX_AMOUNT``); below a 64-bit column's 9.2e18.
#: A payment's amount is an amount from outside (``MAX_MINOR``), a prize is up to 480 players' fees of it: the
#: import refused both past ``MAX_MINOR`` (issue 43.6).
NIGHT_AMOUNT = NIGHT_MATCHES * 2 * MAX_AMOUNT

#: The most bytes one row of an export takes (UTF-8), by kind: an event (a round, close or correction with its
#: void, deal, facts and links), a payment row, a match without its log, a player with payment details.
EVENT_BYTES = 5 * 1024
PAYMENT_BYTES = 3 * 1024
MATCH_BYTES = 4 * 1024
PLAYER_BYTES = 1024
#: The tournament part and the file's own fields (1,000 tables of about 40 bytes, 480 entries of about 250).
PART_BYTES = 1024 * 1024
IMPORT_BYTES = (NIGHT_EVENTS * EVENT_BYTES + NIGHT_PAYMENTS * PAYMENT_BYTES + NIGHT_MATCHES * MATCH_BYTES
                + NIGHT_PLAYERS * PLAYER_BYTES + PART_BYTES)

#: Nights, tournaments and imports one client address may create in an hour (``CREATIONS_PER_HOUR``).
CREATIONS_PER_HOUR = 60
CREATION_WINDOW = 3600.0
