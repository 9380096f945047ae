"""The PDF footer prints the night's name as it was written (issue 25.11), read back from the PDF's text."""

from __future__ import annotations

from typing import Any

from referee.reports import css_string
from tests.pdf_helpers import pdf_text
from tests.web.helpers import Api

NAME = 'Tom & Jerry "x" \\ </style> åäö'


def test_css_string_escapes_everything_but_letters() -> None:
    assert css_string("Tom & Jerry") == '"Tom\\000020\\000026\\000020Jerry"'
    quoted = str(css_string('"</style>\\'))
    assert '"' not in quoted[1:-1] and "<" not in quoted and "\\\\" not in quoted


def test_footer_prints_the_name_unescaped(client: Any) -> None:
    api = Api(client)
    night = api.new_night(["Anna", "Bo", "Cecilia"], name=NAME)
    match = api.new_match("kul", ["Anna", "Bo", "Cecilia"], stake="1")
    view = night["view_token"]
    for path in (f"/nights/{night['id']}/settlement.pdf?view={view}",
                 f"/matches/{match['id']}/protocol.pdf?view={view}"):
        resp = client.get(path)
        assert resp.status_code == 200, path
        text = pdf_text(resp.data)
        assert f"{NAME} · referee" in text, (path, text[-300:])
        assert "&amp;" not in text and "&quot;" not in text
