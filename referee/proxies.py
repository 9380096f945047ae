"""The client's address behind a TLS proxy: ``X-Forwarded-For``, believed only from the proxies configured.

Behind Caddy (docs/deploying.md) every request reaches gunicorn from
127.0.0.1, so without this every phone would share one address: one
wrong-token limit for the whole club (``referee/ledger/ratelimit.py``) and
one address in every access log line. A client can write any
``X-Forwarded-For`` it likes, though, so the header is used only

* when the connection comes from a proxy's address (``FORWARDED_ALLOW_IPS``,
  gunicorn's own setting and variable, which it already uses for
  ``X-Forwarded-Proto``; default ``127.0.0.1,::1``), and then
* only as far as the configured number of proxies (``FORWARDED_PROXIES``)
  appended to it: Werkzeug's :class:`~werkzeug.middleware.proxy_fix.ProxyFix`
  takes the address that many entries from the right, the one the outermost
  proxy of ours saw; what the client wrote before it is ignored.

``FORWARDED_PROXIES=0`` (the default) leaves the header unread. The
middleware wraps the whole app, static files too, and rewrites the request's
``REMOTE_ADDR`` in place, so gunicorn's access log (``%(h)s``) shows the
forwarded address as well.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from werkzeug.middleware.proxy_fix import ProxyFix

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(spec: str) -> list[Network] | None:
    """The proxies' addresses or networks of a comma-separated list; None for ``*`` (any address).

    A wrong entry stops the app at start with the entry named, not a proxy silently untrusted.
    """
    items = [item.strip() for item in spec.split(",") if item.strip()]
    if "*" in items:
        return None
    try:
        return [ipaddress.ip_network(item, strict=False) for item in items]
    except ValueError as exc:
        raise ValueError(f"FORWARDED_ALLOW_IPS: {exc}") from None


class TrustedProxies:
    """``ProxyFix`` for connections from the trusted proxies; the connection's own address for any other."""

    def __init__(self, app: WSGIApplication, proxies: int, allowed: list[Network] | None) -> None:
        self.app = app
        self.fixed = ProxyFix(app, x_for=proxies, x_proto=proxies)
        self.allowed = allowed

    def trusted(self, address: str | None) -> bool:
        """Whether a connection from ``address`` comes from a trusted proxy.

        No IP address at all (a Unix socket, which only this machine can open) counts as trusted, as
        gunicorn counts it for ``X-Forwarded-Proto``.
        """
        if self.allowed is None:
            return True
        try:
            ip = ipaddress.ip_address((address or "").split("%", 1)[0])
        except ValueError:
            return True
        return any(ip in net for net in _matching(self.allowed, ip.version))

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if self.trusted(environ.get("REMOTE_ADDR")):
            return self.fixed(environ, start_response)
        return self.app(environ, start_response)


def _matching(allowed: list[Network], version: int) -> Iterable[Network]:
    return (net for net in allowed if net.version == version)


def install(app: Any) -> None:
    """Wrap ``app.wsgi_app`` when ``FORWARDED_PROXIES`` is set (call it last: the outermost layer)."""
    proxies = int(app.config["FORWARDED_PROXIES"])
    if proxies < 0:
        raise ValueError("FORWARDED_PROXIES: the number of proxies in front of the app, 0 or more")
    if proxies:
        app.wsgi_app = TrustedProxies(app.wsgi_app, proxies, networks(str(app.config["FORWARDED_ALLOW_IPS"])))
