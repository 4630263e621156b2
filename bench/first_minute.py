"""The first minute on a machine without internet: ``manage.py ask`` from start to end, against
the project's own local RSSHub (``scripts/rsshub-install``), on a fresh database.

    .venv/bin/python bench/first_minute.py [--runs N]

Each run starts from a fresh database with the real catalog snapshot (nothing checked, nothing
fetched yet) and times three ``manage.py ask --offline`` processes, start to exit, in a row:

- ``first``: "torvalds 最近的 GitHub 动态", whose failing GitHub path must not keep the
  GitHub canary out; this run makes the egress check and ends no_data/unreachable;
- ``next``: "36氪今天有什么快讯" in the same minute: the check's answer is on the row;
- ``answered``: "测试源 1 的最新内容", which RSSHub's built-in ``/test`` route answers without
  internet (the bench names the ``test`` platform 测试源, as staff would): the baseline, a brief
  that gets items, measured in the same run.

Printed: the median of each over the runs (default 3), the ratios to the baseline, and whether
the can't-reach briefs finish under the target of 5 s; beside them, what starting a process
and Django costs on this machine now (``ask --help``), which every brief pays too. Each run's
outcome is checked (a run that did not end no_data/unreachable, or counted a route failing,
stops the bench): a fast wrong answer is no figure. The local RSSHub is started by
``bench/support/rsshub_server.py`` (standard library only: the runtime requirements suffice), on
a free port of 127.0.0.1.

Runs on a throwaway database: a temporary SQLite file by default, or, when ``DATABASE_URL`` is
a postgres:// URL, a scratch database ``rsshub_agent_bench_first_minute`` on that server.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as a script: the project root, not bench/, comes first
BENCH_DB = "rsshub_agent_bench_first_minute"
TARGET_S = 5.0
QUESTIONS = {
    "first": "torvalds 最近的 GitHub 动态",
    "next": "36氪今天有什么快讯",
    "answered": "测试源 1 的最新内容",
}
EXPECTED = {
    "first": ("no_data", "unreachable"),
    "next": ("no_data", "unreachable"),
    "answered": ("answered", None),
}


def _database_url(workdir: str) -> str:
    """The scratch database as a ``DATABASE_URL`` for the ``ask`` processes."""
    from django.db import connection

    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    login = quote(db["USER"] or "", safe="")
    if db["PASSWORD"]:
        login += ":" + quote(db["PASSWORD"], safe="")
    return f"postgres://{login}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _fresh_database(*, postgres: bool, workdir: str) -> None:
    """An empty, migrated database with the catalog snapshot: what a fresh clone has (the
    previous run's is dropped first: ``_database_drop``)."""
    from django.core.management import call_command
    from django.db import connection, connections

    from catalog.importer import catalog_import, catalog_read_file
    from catalog.models import Platform
    from catalog.seed import SEED_PATH

    connections.close_all()
    if postgres:
        connection.settings_dict["TEST"]["NAME"] = BENCH_DB
        connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    else:
        Path(workdir, "bench.sqlite3").unlink(missing_ok=True)
        call_command("migrate", verbosity=0)
    catalog_import(catalog_read_file(SEED_PATH))
    # As staff would curate it: a name for RSSHub's built-in test platform, for the baseline.
    Platform.objects.filter(namespace="test").update(aliases=["测试源"])
    connections.close_all()


def _database_drop(*, postgres: bool, original: str) -> None:
    from django.db import connection, connections

    connections.close_all()
    if postgres:
        connection.creation.destroy_test_db(original, verbosity=0)


def _startup(env: dict) -> float:
    """Seconds for ``manage.py ask --help``: a process, Django set up, the command loaded."""
    command = [sys.executable, "manage.py", "ask", "--help"]
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=True)
    return time.perf_counter() - started


def _ask(question: str, env: dict) -> tuple[float, dict]:
    """One ``manage.py ask`` process: seconds from its start to its exit, and its JSON."""
    command = [sys.executable, "manage.py", "ask", question, "--offline", "--json"]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    try:
        return elapsed, json.loads(done.stdout)
    except ValueError:
        raise SystemExit(f"ask gave no JSON (exit {done.returncode}):\n{done.stderr}") from None


def _check(name: str, result: dict) -> None:
    from catalog.models import CircuitChange, Route

    if (result.get("outcome"), result.get("reason")) != EXPECTED[name]:
        raise SystemExit(f"{name}: ended {result.get('outcome')} ({result.get('reason')})")
    if Route.objects.filter(consecutive_failures__gt=0).exists() or CircuitChange.objects.exists():
        raise SystemExit(f"{name}: a route was counted failing while RSSHub had no internet")


def _run(env: dict) -> dict[str, float]:
    times = {"startup": _startup(env)}
    for name, question in QUESTIONS.items():
        times[name], result = _ask(question, env)
        _check(name, result)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from bench.support.rsshub_server import LocalRSSHub, rsshub_installed

    if not rsshub_installed():
        raise SystemExit("RSSHub is not installed: run scripts/rsshub-install")
    with tempfile.TemporaryDirectory(prefix="bench-first-minute-") as workdir:
        from bench.scratch import scratch_environment

        postgres = scratch_environment(workdir)
        import django

        django.setup()
        from django.db import connection

        original = connection.settings_dict["NAME"]
        with LocalRSSHub() as rsshub:
            runs = []
            for _ in range(args.runs):
                _fresh_database(postgres=postgres, workdir=workdir)
                try:
                    env = {**os.environ, "DATABASE_URL": _database_url(workdir)}
                    env |= {"RSSHUB_URL": rsshub.url, "RSSHUB_URLS": "", "LOG_LEVEL": "WARNING"}
                    runs.append(_run(env))
                finally:
                    _database_drop(postgres=postgres, original=original)
    _report(runs)


def _report(runs: list[dict[str, float]]) -> None:
    medians = {name: statistics.median(run[name] for run in runs) for name in QUESTIONS}
    startup = statistics.median(run["startup"] for run in runs)
    base = medians["answered"]
    print(f"manage.py ask, start to end, median of {len(runs)} fresh databases (local RSSHub):")
    for name, question in QUESTIONS.items():
        seconds = medians[name]
        print(
            f"  {name:9} {seconds:6.2f} s  x{seconds / base:4.2f} of answered,"
            f" {seconds - startup:5.2f} s past startup  {question}"
        )
    print(f"  startup   {startup:6.2f} s  (manage.py ask --help: a process and Django set up)")
    worst = max(medians["first"], medians["next"])
    verdict = "met" if worst < TARGET_S else "MISSED"
    print(f"can't-reach briefs: {worst:.2f} s at worst; target under {TARGET_S:g} s: {verdict}")


if __name__ == "__main__":
    main()
