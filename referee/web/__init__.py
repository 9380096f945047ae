"""What the ledger needs of a request, read off Flask by the house and handed down as plain values.

Why a package of its own: the ledger (``referee/ledger/``) reads no request,
no session and no app config (issue 48.1), so that a script or a command can
drive it; the pages, the API and the sheets all need the same reading of a
request (the caller's address, a phone's grants, an idempotency key and the
request's fingerprint), and two packages of the house never import each
other. This package sits in the house layer, imports only the ledger and
below, and is imported by pages, api and reports (``tests/test_layers.py``).
"""
