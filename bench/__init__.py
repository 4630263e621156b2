"""Benchmarks, each a script run from the project root: .venv/bin/python bench/NAME.py."""
