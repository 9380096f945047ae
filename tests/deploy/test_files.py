"""The shipped deployment files agree with each other, and the nightly backup's cron line works.

``deploy/referee.service`` is what the other tests here start (its ExecStart, ``make run``, on a test
port: tests/deploy/caddy.py); here its paths and port are checked against the Caddyfile and the cron
line, and the cron line of ``deploy/referee-backup.cron`` is run as cron runs it (``/bin/sh``, ``\\%``
read as ``%``) on a database with a night in it, on SQLite and PostgreSQL: the backup it writes holds
the night when restored, and backups older than 30 days go.
"""

from __future__ import annotations

import datetime
import os
import re
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from referee import backup
from tests.conftest import make_app
from tests.deploy.caddy import SHIPPED_UPSTREAM, unit
from tests.faults.server import ROOT
from tests.web.helpers import Api

CHECKOUT = "/srv/referee"
ENV_FILE = "/etc/referee/env"
BACKUPS = "/var/backups/referee"


def cron_line() -> tuple[list[str], str, str]:
    """The schedule's five fields, the user and the command of the file's one job."""
    jobs = [line for line in (ROOT / "deploy" / "referee-backup.cron").read_text().splitlines()
            if line.strip() and not line.startswith("#") and not re.match(r"^[A-Z_]+=", line)]
    assert len(jobs) == 1, jobs
    fields = jobs[0].split(None, 6)
    return fields[:5], fields[5], fields[6]


def test_the_unit_the_caddyfile_and_the_cron_line_agree() -> None:
    service = unit()
    assert service["WorkingDirectory"] == CHECKOUT and service["EnvironmentFile"] == ENV_FILE
    assert shlex.split(service["ExecStart"])[-3:] == ["run", "HOST=127.0.0.1", f"PORT={SHIPPED_UPSTREAM.split(':')[1]}"]
    assert f"reverse_proxy {SHIPPED_UPSTREAM}\n" in (ROOT / "deploy" / "Caddyfile").read_text()
    schedule, user, command = cron_line()
    assert user == service["User"]
    assert all(re.fullmatch(r"[0-9*,/-]+", field) for field in schedule), schedule
    assert f"cd {CHECKOUT} " in command and f". {ENV_FILE} " in command
    assert "%" not in command.replace("\\%", ""), "cron ends the command at an unescaped %"


def test_the_cron_line_writes_a_backup_that_restores(backend: str, tmp_path: Path, postgres: Any) -> None:
    app = make_app(backend, tmp_path)
    Api(app.test_client()).new_night(["Anna", "Bo"], name="Backed-up night")
    with app.app_context():
        from referee.models import db

        db.engine.dispose()
    env_file, backups = tmp_path / "env", tmp_path / "backups"
    backups.mkdir()
    env_file.write_text(f"DATABASE_URL={backend}\nSECRET_KEY=cron-test\n")  # as systemd's EnvironmentFile reads it
    old, recent = backups / "referee-2020-01-01.backup", backups / "referee-2020-02-01.backup"
    for path, days in ((old, 31), (recent, 29)):
        path.write_bytes(b"an earlier backup")
        then = time.time() - days * 86400 - 3600
        os.utime(path, (then, then))

    _, _, command = cron_line()
    command = (command.replace("\\%", "%").replace(CHECKOUT, str(ROOT)).replace(ENV_FILE, str(env_file))
               .replace(BACKUPS, str(backups)))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}  # cron's bare environment
    done = subprocess.run(["/bin/sh", "-c", command], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

    written = backups / f"referee-{datetime.date.today():%Y-%m-%d}.backup"
    assert sorted(p.name for p in backups.iterdir()) == sorted([recent.name, written.name])
    if backend.startswith("sqlite"):
        restored = f"sqlite:///{tmp_path / 'restored.sqlite3'}"
    else:
        restored = postgres.create_database("cron_restored")  # empty: the dump brings the schema
    backup.restore(restored, written)
    engine = sa.create_engine(restored)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT name FROM nights").scalars().all() == ["Backed-up night"]
    finally:
        engine.dispose()
