"""The keys of the latest queued writes this phone's session saved (the offline queue's receipts).

A module of its own, reading only the session, so that both the offline
support (:mod:`referee.pages.offline`, which writes them) and the guests'
page cache (:mod:`referee.pages.guest_pages`, which must not serve a page
that carries them) use it without importing the pages blueprint.
"""

from __future__ import annotations

from flask import session

#: How many of the latest saved keys the session names (a page fetched in between, by the live table or the
#: service worker, must not take the news from the page the phone navigates to).
DONE_KEPT = 8


def done_keys() -> list[str]:
    keys = session.get("offline_done", [])
    return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []


def done_key() -> str:
    """The keys of the latest queued writes this phone's session saved, space-separated."""
    return " ".join(done_keys())
