"""The ledger: the only code that writes a night's rows (services, payments, tournaments ...)."""
