"""The deployment of docs/deploying.md on the loopback: Caddy (``deploy/Caddyfile``) in front of ``make run``.

:class:`Caddy` runs Debian's ``caddy`` on the shipped Caddyfile with only
what a test machine needs changed: the domain is ``referee.test``, the
upstream is the test's gunicorn, and the global options add ``local_certs``
(every site's certificate from Caddy's own CA, as ``tls internal``),
``skip_install_trust`` (the CA stays out of the machine's trust store),
``admin off`` and free ports. HOME and the XDG directories point into the
test's temporary directory, so Caddy's CA, certificates and state go with it.

:class:`MakeRun` is the app as ``make run`` serves it: the Makefile's own
recipe (``flask db upgrade``, then gunicorn with gthread workers and the
redacting logger), its prerequisites marked as made (``-o``: ``make test`` has
built them; rebuilding static files from a test would race other tests).

:class:`Phone` talks to either: HTTPS through Caddy, the certificate checked
against Caddy's root CA for ``referee.test``, or plain HTTP to gunicorn; from
a loopback address of its own choice (127.0.0.2, 127.0.0.3, ...), so that
phones have different addresses as they would on the internet.
"""

from __future__ import annotations

import base64
import configparser
import hashlib
import http.client
import os
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import time
from pathlib import Path

from tests.components import free_port, missing
from tests.faults.server import HOST, ROOT, Http, Server

#: The test's domain, mapped to the loopback for Chromium (``--host-resolver-rules``) and for :class:`Phone`.
DOMAIN = "referee.test"
#: What the shipped files name and the tests replace.
SHIPPED_DOMAIN = "referee.example.org"
SHIPPED_PORT = 8000
SHIPPED_UPSTREAM = f"127.0.0.1:{SHIPPED_PORT}"
#: ``make run``'s prerequisites, built by ``make test`` before the tests run.
MADE = ("$(VENV)/.installed", "translations", "browser-engine", "api-docs", "static-compressed")


def caddy_path() -> str:
    """Debian's caddy, or a skip (a failure with REFEREE_REQUIRE_ALL)."""
    path = shutil.which("caddy")
    if path is None:
        missing("caddy (Debian package caddy)")
    assert path is not None
    return path


class Caddy:
    """``deploy/Caddyfile`` served by a real Caddy with its internal CA, stopped at the end."""

    def __init__(self, workdir: Path, upstream: int) -> None:
        self.binary = caddy_path()
        self.dir = workdir / "caddy"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.upstream = upstream
        self.https_port = free_port()
        self.http_port = free_port()
        self.log = self.dir / "caddy.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"https://{DOMAIN}:{self.https_port}"

    @property
    def ca(self) -> Path:
        """Caddy's root certificate (made at its first start, under XDG_DATA_HOME)."""
        return self.dir / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"

    def config(self) -> str:
        """The shipped Caddyfile with the test's domain, upstream and global options."""
        text = (ROOT / "deploy" / "Caddyfile").read_text()
        site, proxy = f"\n{SHIPPED_DOMAIN} {{\n", f"reverse_proxy {SHIPPED_UPSTREAM}\n"
        assert text.count(site) == 1 and text.count(proxy) == 1, "deploy/Caddyfile: one site, one upstream"
        text = text.replace(SHIPPED_DOMAIN, DOMAIN).replace(SHIPPED_UPSTREAM, f"127.0.0.1:{self.upstream}")
        options = ["admin off", "local_certs", "skip_install_trust", f"http_port {self.http_port}",
                   f"https_port {self.https_port}"]
        head, brace, rest = text.partition("{\n")  # the global options block opens the file's first block
        assert brace and head.strip().splitlines()[-1].startswith("#"), "deploy/Caddyfile: global options first"
        return head + brace + "".join(f"\t{line}\n" for line in options) + rest

    def start(self, timeout: float = 30) -> None:
        path = self.dir / "Caddyfile"
        path.write_text(self.config())
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.dir / "home"),
               "XDG_DATA_HOME": str(self.dir / "data"), "XDG_CONFIG_HOME": str(self.dir / "config")}
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen([self.binary, "run", "--config", str(path), "--adapter", "caddyfile"],
                                         env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:  # up when a handshake for the domain verifies against Caddy's root
            if self.proc.poll() is not None:
                raise RuntimeError(f"caddy exited ({self.proc.returncode}):\n{self.tail()}")
            try:
                if self.ca.exists():
                    with socket.create_connection((HOST, self.https_port), timeout=5) as sock, \
                            self.context().wrap_socket(sock, server_hostname=DOMAIN):
                        return
            except (OSError, ssl.SSLError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"caddy served no certificate for {DOMAIN} within {timeout:g} s:\n{self.tail()}")
            time.sleep(0.1)

    def context(self) -> ssl.SSLContext:
        """A client's TLS context that trusts Caddy's root CA and nothing else."""
        return ssl.create_default_context(cafile=str(self.ca))

    def spki_hashes(self) -> list[str]:
        """Base64 SHA-256 of the public keys of Caddy's root and intermediate (Chromium's
        ``--ignore-certificate-errors-spki-list``: the chain Caddy sends holds the intermediate)."""
        if shutil.which("openssl") is None:
            missing("openssl (Debian package openssl)")
        hashes = []
        for name in ("root.crt", "intermediate.crt"):
            der = subprocess.run(["openssl", "x509", "-in", str(self.ca.with_name(name)), "-pubkey", "-noout"],
                                 check=True, capture_output=True).stdout
            spki = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=der, check=True,
                                  capture_output=True).stdout
            hashes.append(base64.b64encode(hashlib.sha256(spki).digest()).decode())
        return hashes

    def stop(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def unit() -> dict[str, str]:
    """The ``[Service]`` settings of ``deploy/referee.service`` (each key once in it)."""
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # systemd's keys are CamelCase
    parser.read_string((ROOT / "deploy" / "referee.service").read_text())
    return dict(parser["Service"])


class MakeRun(Server):
    """The app as ``make run`` serves it (the Makefile's recipe) on a free port of the loopback."""

    def __init__(self, database_url: str, workdir: Path, **env: str) -> None:
        super().__init__(database_url, workdir)
        # Gunicorn 27's control socket is one path per user (tests/faults/server.py): off, as for the others.
        self.env.update(GUNICORN_CMD_ARGS="--no-control-socket", **env)

    def command(self) -> list[str]:
        """``deploy/referee.service``'s ExecStart (``make run HOST=127.0.0.1 PORT=8000``) on the test's port."""
        shipped = unit()["ExecStart"]
        assert shipped.endswith(f"run HOST={HOST} PORT={SHIPPED_PORT}"), shipped
        made = [arg for target in MADE for arg in ("-o", target.replace("$(VENV)", ".venv"))]
        return [*shlex.split(shipped.replace(f"PORT={SHIPPED_PORT}", f"PORT={self.port}")), *made]

    def upgrade(self) -> None:
        """Nothing: ``make run`` migrates the database itself before it starts gunicorn."""


class Phone(Http):
    """A phone at a loopback address of its own (``source``): HTTPS to ``caddy`` when given, else plain HTTP."""

    def __init__(self, port: int, source: str, caddy: Caddy | None = None, timeout: float = 20.0) -> None:
        super().__init__(port, timeout)
        self.source = source
        self.caddy = caddy

    def connection(self) -> http.client.HTTPConnection:
        if self.caddy is None:
            return http.client.HTTPConnection(HOST, self.port, timeout=self.timeout, source_address=(self.source, 0))
        return _Tls(self.port, self.timeout, (self.source, 0), self.caddy.context())


class _Tls(http.client.HTTPSConnection):
    """HTTPS to ``referee.test`` on the loopback: the name in SNI, in ``Host`` and in the checked certificate."""

    def __init__(self, port: int, timeout: float, source: tuple[str, int], context: ssl.SSLContext) -> None:
        super().__init__(DOMAIN, port, timeout=timeout, source_address=source, context=context)
        self.tls, self.source = context, source

    def connect(self) -> None:
        sock = socket.create_connection((HOST, self.port), self.timeout, self.source)
        self.sock = self.tls.wrap_socket(sock, server_hostname=DOMAIN)
