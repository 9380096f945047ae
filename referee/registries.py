"""Can the registries the remaining install steps fetch from be reached? One line and a failure if not.

Why: ``make run`` installs the Python packages from PyPI and fetches Pyodide
and Swagger UI from the npm registry. On a machine without them the install
failed somewhere in the middle (pip's retries, then a traceback), after
minutes; the Makefile runs this first, with only the registries that a step
still to do needs (a machine with everything in place checks nothing and
starts offline), and stops at once with one sentence naming what could not
be reached.

Each registry is the one its tool is configured with: pip's ``index-url``
(``PIP_INDEX_URL``, else pip's configuration files in pip's order), npm's
``registry`` (``npm config get registry``, else ``npm_config_registry``);
the defaults otherwise. A registry counts as reached when its host answers
at all (any HTTP status, even a TLS certificate the system does not trust,
which pip may have its own ``cert`` for): what is checked is the network,
not the registry's content. Proxies come from the environment, as for pip
and npm.

The Makefile runs this file with the system's ``python3 -P`` before the
virtualenv exists: standard library only, and never imported as part of the
package (whose ``__init__`` needs Flask).
"""

from __future__ import annotations

import argparse
import configparser
import os
import shutil
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

#: Seconds a registry has to answer: long enough for a slow hotel Wi-Fi, short enough to fail early.
TIMEOUT = 5.0

PYPI_DEFAULT = "https://pypi.org/simple"
NPM_DEFAULT = "https://registry.npmjs.org/"

#: What each registry is needed for, as the one line says it.
NEEDED_FOR = {"pypi": "the Python packages", "npm": "the browser-side packages (Pyodide, Swagger UI, axe-core)"}


def _pip_config_files(venv: Path) -> list[Path]:
    """pip's configuration files, the later overriding the earlier (pip's documented order)."""
    if os.environ.get("PIP_CONFIG_FILE") == os.devnull:
        return []
    dirs = os.environ.get("XDG_CONFIG_DIRS") or "/etc/xdg"
    files = [Path(d) / "pip" / "pip.conf" for d in dirs.split(":") if d] + [Path("/etc/pip.conf")]
    home = Path.home()
    user = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    files += [home / ".pip" / "pip.conf", user / "pip" / "pip.conf", venv / "pip.conf"]
    if os.environ.get("PIP_CONFIG_FILE"):
        files.append(Path(os.environ["PIP_CONFIG_FILE"]))
    return files


def pip_index(venv: Path) -> str | None:
    """The index pip installs from (``None``: pip is told to use none, ``no-index``)."""
    found: dict[str, str] = {}
    for path in _pip_config_files(venv):
        parser = configparser.RawConfigParser()
        try:
            parser.read(path, encoding="utf-8")
        except (OSError, configparser.Error):
            continue
        for section in ("global", "install"):  # a command's own section overrides [global]
            if parser.has_section(section):
                found.update({key.replace("_", "-"): value.strip() for key, value in parser.items(section)})
    for key in ("index-url", "no-index"):
        value = os.environ.get("PIP_" + key.replace("-", "_").upper())
        if value is not None:
            found[key] = value.strip()
    if found.get("no-index", "").lower() in ("1", "true", "yes", "on"):
        return None
    return (found.get("index-url") or PYPI_DEFAULT).split()[0]


def npm_registry() -> str:
    """The registry npm fetches from: npm's own answer when npm is installed, else its environment or default."""
    npm = shutil.which("npm")
    if npm:
        try:
            answer = subprocess.run([npm, "config", "get", "registry"], capture_output=True, text=True,
                                    timeout=30, check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            answer = ""
        if answer.startswith(("http://", "https://")):
            return answer
    # npm reads its environment variables in any case (npm_config_registry, NPM_CONFIG_REGISTRY).
    return next((value for key, value in os.environ.items() if key.lower() == "npm_config_registry" and value),
                NPM_DEFAULT)


def unreachable(url: str, timeout: float = TIMEOUT) -> str | None:
    """Why ``url``'s host cannot be reached, or ``None`` when it answers."""
    if url.startswith("file:"):
        path = urllib.request.url2pathname(url.removeprefix("file://"))
        return None if Path(path).exists() else "no such directory"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout):
            return None
    except urllib.error.HTTPError:  # an answer, whatever its status
        return None
    except urllib.error.URLError as error:
        reason = error.reason
        if isinstance(reason, ssl.SSLError):  # the host answered; pip and npm may trust another certificate
            return None
        return _said(reason)
    except (OSError, ValueError) as error:  # a timeout while reading, a malformed URL
        return _said(error)


def _said(reason: object) -> str:
    if isinstance(reason, TimeoutError) or "timed out" in str(reason):
        return f"no answer within {TIMEOUT:g} s"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror.lower()
    return str(reason)


def check(needed: list[str], venv: Path) -> str | None:
    """The one line saying which of ``needed`` (``pypi``, ``npm``) cannot be reached, or ``None``."""
    urls: dict[str, str] = {}
    if "pypi" in needed:
        index = pip_index(venv)
        if index is not None:
            urls["pypi"] = index
    if "npm" in needed:
        urls["npm"] = npm_registry()
    names = {"pypi": "PyPI", "npm": "the npm registry"}
    with ThreadPoolExecutor(max_workers=max(1, len(urls))) as pool:
        why = dict(zip(urls, pool.map(unreachable, urls.values()), strict=True))
    failed = [f"{names[key]} ({urls[key]}: {reason}), needed for {NEEDED_FOR[key]}"
              for key, reason in why.items() if reason is not None]
    if not failed:
        return None
    return ("cannot reach " + "; nor ".join(failed) + ". Connect this machine to the internet "
            "(or point PIP_INDEX_URL / npm_config_registry at a mirror) and run make again.")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Fail in one line when a registry still needed cannot be reached.")
    parser.add_argument("--venv", type=Path, default=Path(".venv"), help="the project's virtualenv (its pip.conf)")
    parser.add_argument("needed", nargs="*", help="the registries still needed: " + ", ".join(NEEDED_FOR))
    args = parser.parse_args(argv)
    unknown = set(args.needed) - NEEDED_FOR.keys()
    if unknown:
        parser.error(f"unknown registries: {' '.join(sorted(unknown))}")
    line = check(args.needed, args.venv)
    if line is None:
        return 0
    print(line, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
