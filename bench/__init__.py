"""Benchmarks: scripts that print figures (run with .venv/bin/python -m bench.NAME)."""
