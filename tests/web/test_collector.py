"""The served worker's garbage collector (``gunicorn.conf.py``, ``referee/collector.py``).

Run in a fresh interpreter in the checkout, as gunicorn starts: gunicorn's
own lookup of its config file finds ``gunicorn.conf.py``, and its
``post_worker_init`` hook freezes what is alive and raises the young
generation's threshold. The master does not load the app for it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from referee import collector

ROOT = Path(__file__).resolve().parents[2]

_WORKER = """
import gc, json, sys
from gunicorn.app.base import Application
from gunicorn.config import get_default_config_file

path = get_default_config_file()
hooks = Application.get_config_from_filename(None, path)
master = "referee" in sys.modules  # what the master has after reading the file
import referee  # a worker has loaded the app before the hook runs
referee.create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "SECRET_KEY": "x"})
from types import SimpleNamespace
from gunicorn.config import Config
from gunicorn.glogging import Logger
worker = SimpleNamespace(log=Logger(Config()))
before = gc.get_freeze_count()
hooks["post_worker_init"](worker)
line = worker.log.atoms(SimpleNamespace(status="302 FOUND", headers=[], sent=0, response_length=0),
                        SimpleNamespace(headers=[]), {"REQUEST_METHOD": "GET", "RAW_URI": "/t/SeCrEt-t0ken",
                        "PATH_INFO": "/t/SeCrEt-t0ken", "QUERY_STRING": "", "SERVER_PROTOCOL": "HTTP/1.1"},
                        SimpleNamespace(seconds=0, microseconds=0))["r"]
print(json.dumps({"path": path, "master_loads_app": master, "before": before, "access_line": line,
                  "frozen": gc.get_freeze_count(), "threshold": gc.get_threshold()}))
"""


def test_gunicorn_finds_the_hook_and_the_worker_freezes_its_app_and_collects_less_often() -> None:
    out = subprocess.run([sys.executable, "-c", _WORKER], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["path"] == str(ROOT / "gunicorn.conf.py")
    assert seen["master_loads_app"] is False
    assert seen["before"] == 0 and seen["frozen"] > 10_000, seen  # the app's objects, out of the collector's sight
    assert seen["threshold"][0] == collector.YOUNG != 700, seen
    assert seen["access_line"] == "GET /t/[redacted] HTTP/1.1", seen  # the hook redacts the worker's logs too
