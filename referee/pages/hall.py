"""What the room sees of a tournament (issue 30): the hall display and each player's own view.

Both are read only and need the night's view right; both follow the
night's live stream (``static/js/live.js``: on a change the page fetches
itself again and swaps ``<main>``), so a round entered at any table shows
within the stream's delay.

- ``/tournaments/<id>/hall``: a projector at the back of the room
  (1920×1080): the standings, the tables in columns (more than 16 take
  turns on pages), the series' countdown, and the QR code of the players' view.
- ``/tournaments/<id>/me``: a phone (390×844): the player picks their name
  once (kept in this phone's session, no account), then sees their table and
  seat now, their standing, and once the night is settled, what they pay or
  receive and to whom.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, session, url_for
from flask_babel import gettext as _

from referee import ledger
from referee.ledger import payments, ratings, tournament_view
from referee.ledger import tournaments as tourneys
from referee.models import now
from referee.pages.filters import qr_svg
from referee.pages.forms import RoundForm
from referee.pages.tournaments import tournament
from referee.reports.tournament import players_link
from referee.web import balance_lines

bp = Blueprint("hall", __name__)

#: How many standings rows the hall shows (the rest: on the players' phones and the final sheet).
HALL_STANDINGS = 16


#: A name longer than this many characters wraps onto more lines at its own table instead of shrinking the type.
WRAP = 14
#: Characters a player's numbers take beside the name ("2 liv", "−12,50"), at .8 of the type (``.hall-count``).
NUMBER = 6
#: The width of the star before the names of who is ahead ("★ "), in type sizes.
AHEAD = 1.2
#: The most tables one screen of the hall shows. More tables take turns on pages of at most this many, each shown
#: for a while in turn (``static/js/hall.js``).
PAGE = 16
#: The grid's width and height in hundredths of the screen's height (a 16:9 screen less the standings' column and
#: the header), for :func:`layout`'s estimate.
WIDTH, HEIGHT = 128, 82


def split(tables: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The tables in pages of at most :data:`PAGE`, as even as possible (30 tables: two pages of 15).

    Why pages and not smaller type: every table of a hall of 30 tables of 4
    on one 1920×1080 screen left names about 20 px with the numbers beside
    them (or the numbers left out, as the hall once did above 16 tables);
    two pages of 15 keep names about 27 px with every player's numbers, so a
    player reads their table's lives from the room, at the cost of waiting
    one turn of the pages (about 12 s) to see it.
    """
    count = math.ceil(len(tables) / PAGE) or 1
    per = math.ceil(len(tables) / count) or 1
    return [tables[i:i + per] for i in range(0, len(tables), per)] or [[]]


def _sizes(tables: list[dict[str, Any]], cols: int) -> dict[int, int]:
    """Each table's type size in tenths of the screen's height for a grid of ``cols`` columns.

    A character of DejaVu Sans is about 0.62 of the type size (0.68 in bold:
    the names of who is ahead, after a star of :data:`AHEAD`), the seat
    numbers take 1.6 more, a player's numbers :data:`NUMBER` characters at
    .8 of it beside the name. Budgeted for every name, so that a table's
    first saved game (a star and bold for who is ahead) wraps no name.
    """
    rows = math.ceil(len(tables) / cols)
    width = WIDTH / cols - 1.5
    sizes: dict[int, int] = {}
    for table in tables:
        names = [len(p) for p in table["players"]] or [8]
        longest = max(6, min(max(names), WRAP))  # long names wrap
        extra = sum(math.ceil(n / WRAP) - 1 for n in names) + 1  # wrapped lines, the table's word
        lines = len(names) + 2 + extra  # the table's number, its seats, room between the cards
        by_height = HEIGHT * 10 // (rows * lines)
        by_width = int(10 * width / (0.68 * longest + AHEAD + 0.8 * 0.62 * NUMBER + 0.4 + 1.6))
        sizes[table["table"]] = max(10, min(40, by_height, by_width))
    return sizes


def layout(tables: list[dict[str, Any]]) -> dict[str, Any]:
    """The hall's pages of tables (:func:`split`), each with its grid's columns and rows, and each table's type
    size in tenths of the screen's height (``sizes``: table number → ``fs-<n>``).

    Why computed here, and per table: the type must be as large as the room
    allows and still fit a page of tables on one 16:9 screen, so it follows
    the number of tables and their size; and each table's own names and
    numbers, so that one long name wraps and shrinks its own table a little,
    never every table's names (a 28-character name took every name from
    about 40 to 22.7 px, issue 43.3). A page takes the number of columns
    that gives its smallest table the largest type. The sizes are floors in
    ``rem`` as well (``static/css/hall.css``), so browser zoom and a larger
    default text grow them (issue 50.5); the page then scrolls, never sideways.
    """
    pages: list[dict[str, Any]] = []
    sizes: dict[int, int] = {}
    for number, page in enumerate(split(tables), start=1):
        best = max(range(1, 9), key=lambda cols: (min(_sizes(page, cols).values(), default=40), -cols))
        sizes |= _sizes(page, best)
        pages.append({"page": number, "tables": page, "cols": best, "rows": math.ceil(len(page) / best) or 1,
                      "first": page[0]["table"] if page else 0, "last": page[-1]["table"] if page else 0})
    return {"pages": pages, "sizes": sizes, "count": len(tables)}


def clock(found: Any, now: datetime) -> dict[str, Any] | None:
    """The series' countdown as the hall first shows it (``static/js/hall.js`` then counts each second from
    ``ends_at``): the time left as mm:ss, or time up; ``None`` without a limit (API.md ``series_minutes``)."""
    ends = tourneys.ends_at(found)
    if ends is None:
        return None
    left = max(0, math.ceil((ends - now).total_seconds()))
    return {"ends_at": ends.isoformat(timespec="seconds") + "Z", "up": left == 0,
            "left": f"{left // 60:02d}:{left % 60:02d}"}


def champions(view: dict[str, Any]) -> list[str]:
    """The finished knockout's champions (never out, place 1), named on the hall and every player's view.

    Usually one; a final whose ranking ties at the top makes joint champions, who share the first place and its
    prizes (docs/rules.md, "Tournaments"), and the hall names them all.
    """
    if not view["finished"] or view["format"] != "knockout":
        return []
    return [s["player"] for s in view["standings"] if s["place"] == 1 and s.get("out_in_series") is None]


def gone(view: dict[str, Any]) -> set[str]:
    """Who a finished table of the knockout's current series puts out: "out" (in this series) in the standings at
    once, not "in" until the next series is drawn (issue 43.3)."""
    return {p for table in view["tables"] if table.get("through") is not None
            for p in table["players"] if p not in table["through"]}


@bp.get("/tournaments/<int:tournament_id>/hall")
def hall(tournament_id: int) -> Any:
    found = tournament(tournament_id, edit=False)
    view = tournament_view.view(found, organiser=False, minor=True)
    link = players_link(found.night, found.id)
    return render_template("pages/tournament_hall.html", t=view, night=found.night, grid=layout(view["tables"]),
                           standings=view["standings"][:HALL_STANDINGS], players_url=link, champions=champions(view),
                           gone=gone(view), clock=clock(found, now()),
                           players_qr=qr_svg(link, scale=4))


def _chosen(tournament_id: int) -> str:
    names = session.get("tourn_me", {})
    return str(names.get(str(tournament_id), "")) if isinstance(names, dict) else ""


@bp.route("/tournaments/<int:tournament_id>/me", methods=["GET", "POST"])
def me(tournament_id: int) -> Any:
    found = tournament(tournament_id, edit=False)
    view = tournament_view.view(found, organiser=False, minor=True)
    # every player of the tournament, a late one not yet seated too (she owes her fee from now, issue 43.2/43.4)
    names = sorted((p["player"] for p in view["players"]), key=str.casefold)
    form = RoundForm()
    if request.method == "POST":
        if not form.validate_on_submit():
            abort(400, _("The form has expired; reload the page."))
        name = request.form.get("player", "")
        if name and name not in names:
            abort(400, _("Nobody of that name plays in this tournament."))
        chosen = dict(session.get("tourn_me", {})) if isinstance(session.get("tourn_me"), dict) else {}
        chosen.pop(str(tournament_id), None)
        if name:
            chosen[str(tournament_id)] = name
        session["tourn_me"] = dict(list(chosen.items())[-20:])
        session.permanent = True
        return redirect(url_for("hall.me", tournament_id=tournament_id))
    name = _chosen(tournament_id)
    if name not in names:
        return render_template("pages/tournament_me.html", t=view, night=found.night, names=names, name="",
                               form=form)
    seat = next(({"table": t["table"], "seat": t["players"].index(name) + 1, "players": t["players"],
                  "match": t["match"], "finished": t["finished"]}
                 for t in view["tables"] if name in t["players"]), None)
    standing = next((s for s in view["standings"] if s["player"] == name), None)
    entry = next(p for p in view["players"] if p["player"] == name)
    prize = next((p for p in view["prizes"] if p["player"] == name), None)
    rated = next((r for r in ratings.group_ratings(found.night.group).get(found.game, []) if r.player == name), None)
    return render_template("pages/tournament_me.html", t=view, night=found.night, names=names, name=name,
                           seat=seat, standing=standing, entry=entry, prize=prize, form=form, champions=champions(view),
                           rated=rated, figure=ratings.figure, game=found.game,
                           # what one pays or receives: the fee from the start (issue 43.4), all of it once over
                           **(money_of(found.night, name) if view["finished"] or found.entry_fee else {}))


def money_of(night: Any, name: str) -> dict[str, Any]:
    """What ``name`` pays or receives by the night's settlement: the balance, the plan's transfers, and the
    lines the balance is made of (issue 46)."""
    return payments.owed(night).of(name) | {"pot_party": ledger.POT_PARTY, "explained": balance_lines.one(night, name)}
