"""gunicorn's settings for this app, read by gunicorn from the working directory (``make run``, the tests'
and the benchmarks' servers, and a deployment started from the checkout: docs/deploying.md).

The command line gives workers, threads and the address; this file only the hooks.
"""

from typing import Any


def post_worker_init(worker: Any) -> None:
    """The worker's app is loaded: freeze it and make collections rarer (``referee/collector.py`` says why)."""
    # Imported here, in the worker that has loaded the app already: an import at the top would load the whole
    # app into gunicorn's master too (measured: 46 MiB more resident memory on the server, for nothing).
    from referee import collector

    collector.tune()
