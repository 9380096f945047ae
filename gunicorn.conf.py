"""gunicorn's settings for this app, read by gunicorn from the working directory (``make run``, the tests'
and the benchmarks' servers, and a deployment started from the checkout: docs/deploying.md).

The command line gives workers, threads and the address; this file only the hooks: every gunicorn started
in the checkout redacts tokens from its logs, whatever its command line.
"""

import sys
from typing import Any

#: How often (s) a thread that holds the interpreter is asked to let another one run (Python's default: 0.005).
#: A round entry lets go of the interpreter at each database call and waits to get it back; while another thread
#: renders a page (the hall of 120 tables: 25 ms of CPU) each wait took up to the whole interval. In one process,
#: a round beside a thread rendering the hall: p50 / p90 27 / 196 ms at 5 ms, 9 / 29 ms at 1 ms, against 7 / 12 ms
#: alone (bench/tournament.py's round p99 at a big evening, docs/speed.md).
SWITCH_INTERVAL = 0.001


def post_worker_init(worker: Any) -> None:
    """The worker's app is loaded: freeze it and make collections rarer (``referee/collector.py`` says why),
    let a thread waiting for the interpreter have it sooner (:data:`SWITCH_INTERVAL`), and redact every token
    from its access and error logs (``referee/logs.py``: the app's token routes are known now)."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    # Imported here, in the worker that has loaded the app already: an import at the top would load the whole
    # app into gunicorn's master too (measured: 46 MiB more resident memory on the server, for nothing).
    from referee import collector, logs

    collector.tune()
    logs.guard(worker.log)
