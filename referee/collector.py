"""The garbage collector of a served worker: the app's own objects frozen, collections rarer.

Why: under a club evening's load (``bench/tournament.py``) a gunicorn worker
with 400 threads ran CPython's default collector (thresholds 700, 10, 10)
about 500 times in 30 s of CPU, and each full collection walked the whole
heap, the app's modules, SQLAlchemy's metadata and Babel's catalogs
included, for about 240 ms. During those 240 ms no thread of the worker runs:
every round entered in them waits, and a phone's event is late. Once the app
is loaded (gunicorn's ``post_worker_init``, see ``gunicorn.conf.py``):

- :func:`gc.freeze` moves everything alive then (the app, made once per
  worker and kept for its life) out of the collector's sight, so a full
  collection walks only what requests made since;
- the young generation is collected after 10,000 new objects instead of 700,
  so a request's short-lived objects are freed by their reference counts
  before a collection would look at them.

Memory stays what it was (measured: 280 MiB idle, master and workers, with
and without); nothing is leaked, only collected later. The tests' app (many apps in
one process) keeps the default: this runs in a served worker only.
"""

from __future__ import annotations

import gc

#: The young generation's threshold (CPython's default is 700); the older two keep theirs.
YOUNG = 10_000


def tune() -> None:
    """Freeze what is alive now and make young collections rarer: call once the worker's app is loaded."""
    gc.collect()  # what the app's loading left as garbage is not frozen with it
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)
