"""The address a page stands for, for the scripts that fetch it again or file entries under it.

A refused round is answered at its form's own address (``POST /matches/N/rounds``, a 422), not by
a redirect, so that the phone's queue, which sends with ``fetch``, does not take the refusal for
"saved". The address bar then shows an address that takes only POST (or, for a refused void, the
void's confirmation page). The live table (``static/js/live.js``) fetches the page again when
another phone writes, and the offline queue (``static/js/offline.js``) files an entry under the page
it was made on; both read this address (``data-page``) instead of the address bar, and on the pages
that include the live box (``templates/pages/_live.html``: each is the page its ``data-page`` names)
``static/js/app.js`` puts it in the address bar, so that a reload opens the page rather than posting again.
A page of neither a match nor the night passes its own address (``page_url``: the settlement, a tournament's).
"""

from __future__ import annotations

from typing import Any

from flask import request, url_for

from referee.pages import bp


@bp.app_template_global("page_address")
def page_address(match: Any = None, night: Any = None, page_url: str | None = None) -> str:
    """For the answer to a POST, the page it stands for; for a GET, "" (the address bar is right).

    ``page_url``: that page, when it is neither the match's nor the night's (the settlement's plan).
    Never the request's own address: its query may hold a token, which a page must not echo (the
    service worker keeps pages, and ``tests/hostile/test_access.py`` looks for tokens in every answer).
    """
    if request.method == "GET":
        return ""
    if page_url:
        return page_url
    if match is not None:
        return url_for("pages.match", match_id=match.id)
    if night is not None:
        return url_for("pages.night", night_id=night.id)
    return url_for("pages.start")
