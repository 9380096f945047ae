"""The address the phones at the table open, printed and drawn as a QR code by ``make run LAN=1``.

Why: the app serves on 127.0.0.1 by default, which no phone can open; with
``LAN=1`` gunicorn binds every interface, and the leader needs to know what to
type (or scan) on each phone: this machine's address on the local network,
which a laptop rarely knows by heart. The Makefile runs this module just
before gunicorn starts.

The address is found without sending anything: connecting a UDP socket only
asks the kernel's routing table which source address it would use towards a
destination (no packet leaves), first towards the internet (the default
route: the Wi-Fi or cable the phones share), then towards the private ranges
(a hotspot or a router without internet has no default route) and the
link-local one (two machines on a cable, no router). When none has a route
the machine has no network: the address is 127.0.0.1 and the message says so
(no fallback through the host name: resolving it may ask a DNS server).
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from typing import TextIO

from referee.payment_qr import qr_code

#: Destinations whose route gives the source address (never contacted): a public one (TEST-NET-3, RFC 5737),
#: then one in each private range (RFC 1918) and the link-local one, for a network without a default route.
_PROBES = ("203.0.113.1", "10.255.255.254", "172.31.255.254", "192.168.255.254", "169.254.255.254")

#: A bind address meaning "every interface": the address to print must be found.
_EVERY = ("", "0.0.0.0", "::")


def _usable(address: str) -> bool:
    """Whether a phone can open ``address`` (an IP address or the host name ``HOST`` gave)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address != "localhost"
    return not (ip.is_loopback or ip.is_unspecified)


def _route_source(destination: str) -> str | None:
    """The source address the kernel would use towards ``destination`` (UDP connect sends no packet)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((destination, 9))
        except OSError:  # no route to that network
            return None
        address = str(probe.getsockname()[0])
    return address if _usable(address) else None


def lan_address() -> str:
    """This machine's IPv4 address on the local network, or ``127.0.0.1`` when it has none."""
    for destination in _PROBES:
        found = _route_source(destination)
        if found:
            return found
    return "127.0.0.1"


def served_address(host: str) -> str:
    """The address a phone opens for a server bound to ``host`` (every interface: this machine's address)."""
    return lan_address() if host in _EVERY else host


def url_for(address: str, port: int) -> str:
    shown = f"[{address}]" if ":" in address else address
    return f"http://{shown}:{port}/"


def announce(address: str, port: int, out: TextIO) -> None:
    """The lines ``make run LAN=1`` prints: the address, its QR code, what is open to whom, how to stop."""
    url = url_for(address, port)
    if not _usable(address):
        out.write(f"{address} is this machine itself: no phone can open it (no network found, or HOST says so).\n")
    out.write(f"Phones on this network open {url} (or scan the code):\n")
    # Level L: the smallest code (a screen is not a crumpled paper). segno draws the dark modules as spaces and
    # the light ones as blocks in the text's colour: made for the usual light text on a dark terminal.
    qr_code(url, error="L").terminal(out=out, compact=True)
    out.write("Anyone on this network can open the start page and create nights; a night is reached only by "
              "its secret links. Ctrl-C stops the server.\n")
    out.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default="0.0.0.0", help="the address gunicorn binds (0.0.0.0: every interface)")
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args(argv)
    announce(served_address(args.host), args.port, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
