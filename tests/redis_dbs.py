"""Redis databases for tests, one set per pytest-xdist worker, so that two workers never flush or
read each other's keys. Each use has a slot of its own; the databases count down from 15 (the
service itself defaults to 0), three per worker."""

import os

SLOTS = ("flight", "broker", "cluster")
REDIS_DATABASES = 16


def worker_index() -> int:
    """0 for a run without workers or for ``gw0``, 1 for ``gw1``, and so on."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(worker.removeprefix("gw") or 0)


def redis_test_url(slot: str) -> str:
    """``redis://127.0.0.1:6379/<n>`` for ``slot`` on this worker."""
    database = REDIS_DATABASES - 1 - worker_index() * len(SLOTS) - SLOTS.index(slot)
    if database < 1:
        raise RuntimeError(f"too many test workers for Redis: no database left for {slot!r}")
    return f"redis://127.0.0.1:6379/{database}"
