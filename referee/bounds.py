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
- :data:`NIGHT_PAYMENTS`: payment rows an import brings.

Creation per address: :data:`CREATIONS_PER_HOUR` nights and tournaments
(and imports, which create a night) from one client address in an hour;
then ``429`` with the wait. A club makes a few a week; a test suite sets
``CREATIONS_PER_HOUR`` higher in its app's config.
"""

from __future__ import annotations

NIGHT_PLAYERS = 480
NIGHT_MATCHES = 1_000
SERIES = 50
NIGHT_EVENTS = 20_000
MATCH_EVENTS = 5_000
NIGHT_PAYMENTS = 5_000

#: Nights, tournaments and imports one client address may create in an hour (``CREATIONS_PER_HOUR``).
CREATIONS_PER_HOUR = 60
CREATION_WINDOW = 3600.0
