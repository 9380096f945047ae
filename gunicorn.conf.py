"""gunicorn's settings for this app, read by gunicorn from the working directory (``make run``, the tests'
and the benchmarks' servers, and a deployment started from the checkout: docs/deploying.md).

The command line gives workers, threads and the address; this file only the hooks: every gunicorn started
in the checkout redacts tokens from its logs, whatever its command line.
"""

from typing import Any


def post_worker_init(worker: Any) -> None:
    """The worker's app is loaded: freeze it and make collections rarer (``referee/collector.py`` says why),
    and redact every token from its access and error logs (``referee/logs.py``: the app's token routes are
    known now)."""
    # Imported here, in the worker that has loaded the app already: an import at the top would load the whole
    # app into gunicorn's master too (measured: 46 MiB more resident memory on the server, for nothing).
    from referee import collector, logs

    collector.tune()
    logs.guard(worker.log)
