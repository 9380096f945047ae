"""Fault-injection tests: kill -9, dropped connections, a database restarted under load."""
