"""Guests' pages kept per night version: a round entered at a table full of phones is rendered once.

Why: every phone following a match refetches its page when the live stream
says the night changed (``static/js/live.js``, header ``X-Live``), so one
round made every viewer's phone render the same page again, each a few
milliseconds of the one interpreter a worker has. A guest's refresh (view
right only) is the same page for every guest of that version in that
language, so the first one renders it and the others get its text.

What the key covers, and why that is enough:

- the match's snapshot version (moved on by its rounds, voids and close)
  and the night's version as of its last write of no match (players,
  payments, carries, rights, a tournament's series: the ``night_changes``
  row every write logs in its own transaction,
  :func:`referee.ledger.live.wide_version`), so a page never outlives
  what it shows. Not the night's ``live_version``: at a club
  evening it moves with every other table's round, and no two guests of
  a table fetched the same version (``bench/tournament.py``). The page's
  own ``data-version`` may then be older than the phone's: the phone only
  keeps the newer one (``static/js/live.js``);
- the database and the match (ids repeat across databases) with its
  creation time, the language the page is written in, and the path with
  its query (``?all=1`` lists the whole history);
- only a background refresh of a guest is served from here: no edit right
  (an editor's page holds forms with the session's CSRF token), the
  ``X-Live`` header (such a fetch takes no flash message), and no saved
  queue keys in the session (``data-done``).

Kept per process, at most ``GUEST_PAGES`` pages (0: none); the least
recently used goes first. The guests of a table fetch together (they hear
the round's event at the same moment): the first renders the page and the
others wait for it (:meth:`referee.lru.LRU.once`), where each rendered it
before (a guest's page is about 30 ms of CPU, a kept one about 3 ms).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from flask import current_app, request
from flask_babel import get_locale

from referee.ledger import fold, live
from referee.lru import LRU, MiB
from referee.models import Match
from referee.pages import phone_rights
from referee.pages.queue_keys import done_key

_KEPT: LRU[tuple[Any, ...], tuple[str, int]] = LRU(64, budget=4 * MiB, weigh=lambda page: sys.getsizeof(page[0]))


def _key(match: Match) -> tuple[Any, ...] | None:
    """The page's key, or None when this request's page may differ from another guest's."""
    if (not request.headers.get("X-Live") or request.method != "GET" or current_app.config["GUEST_PAGES"] <= 0
            or phone_rights.can_edit(match.night, match.id) or done_key()):
        return None
    return (*fold.identity(match), match.created_at, live.wide_version(match.night_id), match.snapshot.version,
            str(get_locale()), request.full_path)


def page(match: Match, render: Callable[[], tuple[str, int]]) -> tuple[str, int]:
    """A page of the match as ``render`` makes it, kept for the other guests of the same version when it is a 200."""
    key = _key(match)
    if key is None:
        return render()
    return _KEPT.once(key, render, keep=_keepable, size=current_app.config["GUEST_PAGES"])


def _keepable(page: tuple[str, int]) -> bool:
    """A 200 without a form (a form's tokens are the session's)."""
    body, status = page
    return status == 200 and 'method="post"' not in body


def clear() -> None:
    """Forget every kept page (tests, benchmarks)."""
    _KEPT.clear()
