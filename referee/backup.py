"""Backups of the ledger that stay consistent while the app keeps writing.

SQLite: the online backup API copies the database page by page inside one
read transaction, so the copy is the database as it was at one moment, even
while rounds are being entered. PostgreSQL: ``pg_dump`` (custom format)
reads everything in one repeatable-read snapshot. ``restore`` puts a backup
back into the configured database.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy.engine import URL, make_url


def _sqlite_path(url: URL) -> Path:
    if not url.database or url.database == ":memory:":
        raise ValueError("an in-memory SQLite database cannot be backed up")
    return Path(url.database)


def _pg_args(url: URL) -> tuple[list[str], dict[str, str]]:
    args = ["--host", url.host or "localhost", "--port", str(url.port or 5432),
            "--username", url.username or "postgres", "--dbname", url.database or "postgres"]
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    return args, env


def _tool(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))), None)
    if not found:
        raise FileNotFoundError(f"{name} is needed (Debian package postgresql-client)")
    return str(found)


def backup(database_url: str, dest: Path) -> Path:
    """Write a consistent copy of the database to ``dest``."""
    url = make_url(database_url)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if url.get_backend_name() == "sqlite":
        src = sqlite3.connect(_sqlite_path(url), timeout=30)
        out = sqlite3.connect(dest)
        try:
            with out:
                src.backup(out)
        finally:
            out.close()
            src.close()
        return dest
    args, env = _pg_args(url)
    subprocess.run([_tool("pg_dump"), "--format=custom", "--no-owner", "--file", str(dest), *args],
                   check=True, env=env, capture_output=True)
    return dest


def restore(database_url: str, source: Path) -> None:
    """Replace the configured database's contents with a backup."""
    if not source.exists():
        raise FileNotFoundError(source)
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        src = sqlite3.connect(source)
        target = sqlite3.connect(_sqlite_path(url), timeout=30)
        try:
            with target:
                src.backup(target)
        finally:
            target.close()
            src.close()
        return
    args, env = _pg_args(url)
    subprocess.run([_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--single-transaction", *args,
                    str(source)], check=True, env=env, capture_output=True)
