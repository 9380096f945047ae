"""What a posted form must be, checked before any view or CSRF check reads it (issues 8 and 45.7).

A form the app's pages send is UTF-8 text, urlencoded or multipart, without
files, each field once, without NUL; anything else is a 400 before a view
runs, so nothing a lenient parser made of it can be stored. One check
for every form of every blueprint (the night's pages, the tournaments', the
hall's and any added later): it runs before every POST outside the JSON API,
installed on the app (:func:`install`), not on a blueprint, so a new
blueprint cannot be left out (the tournament and hall forms were: a field
sent twice was taken, invalid UTF-8 stored as literal ``%E4``).
"""

from __future__ import annotations

from urllib.parse import unquote

from flask import Flask, abort, request
from flask_babel import gettext as _

from referee import text_door
from referee.errors import wants_json

#: The encodings a browser sends a form in; the pages take nothing else.
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
#: Fields that are lists by design (the eye counter's tapped cards); every other field is one value.
LIST_FIELDS = {"pages.schloapfer_eyes": {"card"}, "pages.trick_dispute": {"players", "known"}}


def _readable_form() -> None:
    """Refuse a post no form of the app can send, before any view reads it (issue 8, hostile input).

    A form is UTF-8 text, urlencoded or multipart, without files, each field
    once. A body in another Content-Type (JSON, text/plain: Flask-WTF
    would read JSON as the form), bytes that are not UTF-8 (Werkzeug reads them
    as an empty form, as literal ``%FF`` text or as U+FFFD, which would be
    stored), a multipart body without its boundaries (read as an empty or
    partial form), a file, a field sent twice (only the first value would
    count) or a NUL (``text_door.check``: a 400 naming the field) is a 400;
    nothing is read further or stored. A body over
    ``MAX_CONTENT_LENGTH`` is a 413 here, before it is read.
    """
    if request.method != "POST" or request.url_rule is None or wants_json():
        return  # not a form: a read, a URL no view answers (404, 405), or the JSON API (text_door checks its text)
    has_body = bool(request.content_length) or (
        request.content_length is None and bool(request.environ.get("wsgi.input_terminated")))
    if has_body and request.mimetype not in FORM_TYPES:
        abort(400, _("The form could not be read; reload the page and try again."))
    if request.mimetype == FORM_TYPES[0] and not _utf8_urlencoded(request.get_data(cache=True)):
        abort(400, _("The form could not be read; reload the page and try again."))
    if request.mimetype == FORM_TYPES[1] and not _framed_multipart(request.get_data(cache=True),
                                                                   request.mimetype_params.get("boundary", "")):
        abort(400, _("The form could not be read; reload the page and try again."))
    form = request.form  # parsing it raises 413 for a body over the limit (read from the cached body above)
    allowed = LIST_FIELDS.get(request.endpoint or "", set())
    if request.files or any(len(values) > 1 and key not in allowed for key, values in form.lists()) or any(
            "\ufffd" in key or any("\ufffd" in v for v in values) for key, values in form.lists()):
        abort(400, _("The form could not be read; reload the page and try again."))
    for key, values in form.lists():
        text_door.check(key, "form")
        for value in values:
            text_door.check(value, key)  # a NUL: PostgreSQL's text cannot hold it


def install(app: Flask) -> None:
    """Run :func:`_readable_form` before every other before-request function of ``app``, for every blueprint.

    It must see the raw body before anything parses the form: CSRFProtect's
    check (an app-level before-request function) reads ``request.form``, after
    which the body is gone and only Werkzeug's lenient reading of it is left.
    """
    app.before_request_funcs.setdefault(None, []).insert(0, _readable_form)


def _utf8_urlencoded(body: bytes) -> bool:
    """Whether an urlencoded body is UTF-8, percent-escapes included.

    Werkzeug reads a body with bytes that are not UTF-8 as an empty form (so a
    void would go through without its reason) and keeps an escape of such
    bytes (``%FF``) as literal text (which would be stored as a name).
    """
    try:
        for pair in body.decode("utf-8").split("&"):
            for part in pair.split("=", 1):
                unquote(part.replace("+", " "), errors="strict")
    except UnicodeDecodeError:
        return False
    return True


def _framed_multipart(body: bytes, boundary: str) -> bool:
    """Whether a multipart body is framed by its boundary, closing delimiter included.

    Werkzeug reads a body without its boundary (or cut short) as an empty or
    partial form, which a form of optional fields would take as valid.
    """
    if not boundary or not boundary.isascii():
        return False
    delimiter = b"--" + boundary.encode()
    return body.lstrip(b"\r\n").startswith(delimiter) and body.rstrip().endswith(delimiter + b"--")
