"""Configuration from the environment, with safe defaults for a phone at a table.

``DATABASE_URL`` picks the database (default: SQLite in ``instance/``);
``SECRET_KEY`` signs the session cookie (default: a random key generated once
and kept in ``instance/secret_key`` so sessions survive a restart).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from referee import bounds

#: The project's ``instance/`` folder: the SQLite database and local secrets.
INSTANCE = Path(__file__).resolve().parent.parent / "instance"


def _secret_key(instance: Path) -> str:
    env = os.environ.get("SECRET_KEY")
    if env:
        return env
    instance.mkdir(parents=True, exist_ok=True)
    path = instance / "secret_key"
    if not path.exists():
        # O_EXCL: two workers starting at once must agree on one key.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_hex(32))
    return path.read_text().strip()


def database_url(instance: Path = INSTANCE) -> str:
    """The database URL; ``postgres://`` is accepted as PostgreSQL with psycopg 3."""
    url = os.environ.get("DATABASE_URL") or f"sqlite:///{instance / 'referee.sqlite3'}"
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            url = "postgresql+psycopg://" + url[len(prefix):]
    return url


def load(overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The app's settings: environment first, then ``overrides`` (tests)."""
    overrides = overrides or {}
    instance = Path(overrides.get("INSTANCE_PATH", INSTANCE))
    settings: dict[str, Any] = {
        "SQLALCHEMY_DATABASE_URI": database_url(instance),
        "SECRET_KEY": _secret_key(instance),
        # Requests are small; refuse big bodies before reading them.
        "MAX_CONTENT_LENGTH": int(os.environ.get("MAX_CONTENT_LENGTH", 256 * 1024)),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": os.environ.get("SESSION_COOKIE_SECURE", "") == "1",
        "PERMANENT_SESSION_LIFETIME": 60 * 60 * 24 * 60,
        "WTF_CSRF_TIME_LIMIT": None,
        "BABEL_DEFAULT_LOCALE": "en",
        "LANGUAGES": ("en", "sv", "de"),
        "PUBLIC_URL": os.environ.get("PUBLIC_URL", ""),
        # Failed token attempts per client address before a 429 (and for how long).
        "TOKEN_FAILURES": int(os.environ.get("TOKEN_FAILURES", 30)),
        "TOKEN_WINDOW": float(os.environ.get("TOKEN_WINDOW", 300)),
        # Proxies in front of the app (a TLS proxy: 1) whose X-Forwarded-For entries are believed, and the
        # addresses they connect from (gunicorn's own variable and default): referee/proxies.py. 0: unread.
        "FORWARDED_PROXIES": int(os.environ.get("FORWARDED_PROXIES", 0)),
        "FORWARDED_ALLOW_IPS": os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1"),
        # The live stream: a comment at least this often (s), and its lifetime before the browser
        # reconnects (s; bounded so that a server stopping gracefully is not held up by streams).
        "LIVE_PING": float(os.environ.get("LIVE_PING", 15)),
        "LIVE_LIFETIME": float(os.environ.get("LIVE_LIFETIME", 300)),
        # A guest's match page fetches itself at most once in this many seconds; its stream carries the new
        # state meanwhile (static/js/live.js; bench/tournament.py, docs/speed.md). 0: at once, as an editor's.
        "LIVE_FOLLOW_GAP": float(os.environ.get("LIVE_FOLLOW_GAP", 30)),
        # Open live streams per app process, in all, per night, per credential and per client address
        # (referee/live_slots.py): fewer than gunicorn's --threads (make run: 400), so that streams never take
        # round entry's threads; a club's 200 phones on one night (one view token, one address) stay well under
        # the night's and the address's caps, and no night, link or address gets more than 3/4 of them.
        "LIVE_STREAMS": int(os.environ.get("LIVE_STREAMS", 340)),
        "LIVE_NIGHT_STREAMS": int(os.environ.get("LIVE_NIGHT_STREAMS", 250)),
        "LIVE_TOKEN_STREAMS": int(os.environ.get("LIVE_TOKEN_STREAMS", 250)),
        "LIVE_ADDRESS_STREAMS": int(os.environ.get("LIVE_ADDRESS_STREAMS", 250)),
        # Page and sheet renders at once per process, so round entries go first (referee/read_gate.py;
        # 0: no gate), and how long a render waits for its turn before it goes on anyway (s).
        "READ_GATE": int(os.environ.get("READ_GATE", 1)),
        "READ_GATE_WAIT": float(os.environ.get("READ_GATE_WAIT", 5)),
        # Guests' match pages kept per night version and language, per process (referee/pages/guest_pages.py;
        # 0: none): one round at a table full of phones is rendered once, not once a phone.
        "GUEST_PAGES": int(os.environ.get("GUEST_PAGES", 64)),
        # Bounds of one request's work that no real night meets (docs/reliability.md): events one match
        # may hold (rounds and closes, void ones too), and events one night may hold and so one import bring.
        "MAX_MATCH_EVENTS": int(os.environ.get("MAX_MATCH_EVENTS", bounds.MATCH_EVENTS)),
        "MAX_IMPORT_EVENTS": int(os.environ.get("MAX_IMPORT_EVENTS", bounds.NIGHT_EVENTS)),
        # Nights, tournaments and imports one client address may create in an hour (referee/bounds.py).
        "CREATIONS_PER_HOUR": int(os.environ.get("CREATIONS_PER_HOUR", bounds.CREATIONS_PER_HOUR)),
    }
    settings.update(overrides)
    if not str(settings["SQLALCHEMY_DATABASE_URI"]).startswith("sqlite"):
        # Pooled connections die with a restarted database server: check each one as it leaves the
        # pool (one round trip), so the first requests after a restart do not fail on a dead one.
        engine_options = dict(settings.get("SQLALCHEMY_ENGINE_OPTIONS") or {})
        engine_options.setdefault("pool_pre_ping", True)
        settings["SQLALCHEMY_ENGINE_OPTIONS"] = engine_options
    return settings
