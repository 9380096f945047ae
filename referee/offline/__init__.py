"""What ships to the phone's browser: the engine's door (:mod:`~referee.offline.browser`), the round forms'
parsers (:mod:`~referee.offline.round_parse`), and the tools that build the bundle
(:mod:`~referee.offline.bundle`) and trim Pyodide's standard library (:mod:`~referee.offline.stdlib_trim`).

Below the ledger and the pages, above the engine: nothing here imports Flask,
SQLAlchemy or anything of the server, so the bundle (this package, the engine
and the game registry) imports in Pyodide as it does here
(``tests/engine/test_bundle_imports.py``). This file imports nothing, as it
ships too.
"""
