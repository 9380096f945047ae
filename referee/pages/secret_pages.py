"""Every answer that holds a secret says so itself (issue 45.2), for the service worker's keeping.

The phone's service worker (``static/sw.js``) keeps copies of pages for when
there is no network. A secret (an edit link, a tournament table's ``/t/``
link, a group's link) must never be kept: whoever holds the phone later, or
anything that reads its storage, would hold the right. The worker used to
tell secrets by a list of address prefixes in its own code, so a new page
with a new kind of link (the organiser's page with its tables' links) was
kept whole. Here the server says it, from one place:

- A route whose address is a secret declares it once, on the view
  (:func:`secret_address`); ``tests/web/test_secret_pages.py`` checks that
  every route with a token in its address declares whether it is secret.
- Building any link to such a route (``url_for``, whichever blueprint, page
  or report) notes its secret for this request (:func:`note`), and so does
  a request to such an address (the address itself is the secret).
- The answer then carries ``X-Referee-Secret`` (:func:`mark`): ``parts``
  when every secret it shows sits between ``<!--secret-->`` and
  ``<!--/secret-->`` (the worker keeps the page without those parts), else
  ``page`` (the worker keeps nothing of it, and drops an older copy). A
  template that shows a secret and forgets the markers makes a page that is
  not kept, never one kept with its secret.

The header names no secret (the worker keeps headers with a copy). A page
served from the kept renders of guests' pages (``referee/pages/guest_pages.py``)
builds no link here; those are pages of the view right only, which show no
secret.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Response, current_app, g, has_request_context, request

HEADER = "X-Referee-Secret"
#: The parts of a page the service worker drops before it keeps the page (the same pattern as static/sw.js).
MARKED = re.compile(r"<!--secret-->.*?<!--/secret-->", re.S)

View = TypeVar("View", bound=Callable[..., Any])


def secret_address(argument: str) -> Callable[[View], View]:
    """Declare that the route's ``argument`` (a token in its address) is a secret: a link to it is one too."""
    def mark(view: View) -> View:
        view.secret_address = argument  # type: ignore[attr-defined]
        return view
    return mark


def secret_argument(endpoint: str | None) -> str | None:
    """The argument of ``endpoint``'s address that is a secret, if its view declared one."""
    view = current_app.view_functions.get(endpoint or "")
    return getattr(view, "secret_address", None)


def note(endpoint: str, values: dict[str, Any]) -> None:
    """A link to a secret address is being built (a ``url_defaults`` hook): its secret goes into this answer."""
    if has_request_context() and (argument := secret_argument(endpoint)) and values.get(argument):
        g.setdefault("secrets_shown", set()).add(str(values[argument]))


def mark(resp: Response) -> Response:
    """``X-Referee-Secret: parts`` or ``page`` on an answer that holds a secret (see the module's doc)."""
    found: set[str] = g.pop("secrets_shown", set())
    own = secret_argument(request.endpoint)
    if own and request.view_args and request.view_args.get(own):
        found.add(str(request.view_args[own]))
    if not found:
        return resp
    if own or resp.mimetype != "text/html" or resp.is_streamed:
        resp.headers[HEADER] = "page"  # its address is the secret, or a body not to read here
    else:
        rest = MARKED.sub("", resp.get_data(as_text=True))
        resp.headers[HEADER] = "page" if any(secret in rest for secret in found) else "parts"
    return resp
