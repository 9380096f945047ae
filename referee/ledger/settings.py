"""The few settings the ledger's rules read, handed to it once per database engine when the app is made.

Why not ``current_app.config``: the ledger reads no Flask state (issue 48.1),
so a script or a command drives it with a database and these values only.
Why per engine and not one global: a process may hold several apps (the
tests make one per configuration) and each has its own engine; the ledger
finds the settings of the engine its session writes to, and the defaults for
an engine nobody configured.
"""

from __future__ import annotations

from dataclasses import dataclass
from weakref import WeakKeyDictionary

from sqlalchemy.engine import Engine

from referee import bounds
from referee.models import db

#: Events one match may hold (rounds and closes, void ones too; ``MAX_MATCH_EVENTS`` in the config).
#: A long evening's match has a few hundred; a void replays the whole log and a protocol prints it,
#: so without a bound one request's work would have none.
MAX_MATCH_EVENTS = bounds.MATCH_EVENTS


@dataclass(frozen=True)
class Settings:
    """The ledger's settings: plain values, read from the app's config by ``create_app``."""

    max_match_events: int = MAX_MATCH_EVENTS
    #: Events one night may hold (``MAX_IMPORT_EVENTS``: so its export imports again; :mod:`referee.bounds`).
    max_night_events: int = bounds.NIGHT_EVENTS


DEFAULTS = Settings()
_BY_ENGINE: WeakKeyDictionary[Engine, Settings] = WeakKeyDictionary()


def configure(engine: Engine, settings: Settings) -> None:
    """The settings of the ledger's writes through ``engine`` (``create_app`` calls it once per app)."""
    _BY_ENGINE[engine] = settings


def current() -> Settings:
    """The settings of the engine the ledger's session uses (the defaults when it was not configured)."""
    return _BY_ENGINE.get(db.engine, DEFAULTS)
