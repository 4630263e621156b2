"""Failover cost: the extra latency of a fetch step whose first RSSHub instance refuses the
connection, against the same step served directly by the second, measured in the same run.

    .venv/bin/python bench/failover.py [--runs N]

Two instances: ``a`` preferred, on a closed port of 127.0.0.1 (the connection is refused), and
``b``, a stand-in that answers a 20-item feed. Each run fetches one path through the whole fetch
path (``fetch_path_sync`` with ``refresh``: the batch's database round, the request, parse,
store, the attempt rows and health). Both instances stay enabled; runs alternate between
``direct`` (``b`` preferred: ``a`` is never asked) and ``failover`` (``a`` preferred: tried first,
refused, then ``b`` within the same step). Before each run the preference is set and ``a``'s
health reset outside the timing, so its circuit never opens and every failover run really asks
it first. The extra latency is the difference of the medians; the target
is under 50 ms. It covers the refused connection, the instance's failure recorded (its row under
a lock, its circuit), the banner's memory forgotten, and the extra attempt row.

Runs on a throwaway database: a temporary SQLite file by default, or, when ``DATABASE_URL`` is
a postgres:// URL, a scratch database ``rsshub_agent_bench_failover`` on that server (created and
dropped here). ``failover_cost`` can be called by another benchmark on its own database.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as a script: the project root, not bench/, comes first
BENCH_DB = "rsshub_agent_bench_failover"
NAMESPACE = "benchfailover"
PATH = f"/{NAMESPACE}/news"
TARGET_MS = 50.0


@dataclass(frozen=True)
class FailoverCost:
    runs: int
    direct_ms: float  # median of the steps served by b directly
    failover_ms: float  # median of the steps a refused, then b served

    @property
    def extra_ms(self) -> float:
        return self.failover_ms - self.direct_ms

    @property
    def ratio(self) -> float:
        return self.failover_ms / self.direct_ms if self.direct_ms else float("inf")


def _closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _catalog() -> None:
    from catalog.models import Platform, Route
    from fetching.paths import catalog_cache_clear

    platform, _ = Platform.objects.get_or_create(namespace=NAMESPACE, defaults={"name": "Bench"})
    Route.objects.get_or_create(
        path=PATH, defaults={"platform": platform, "key": "/news", "name": "News"}
    )
    catalog_cache_clear()


def _timed(fetch) -> float:
    started = time.perf_counter()
    result = fetch(PATH, refresh=True)
    elapsed = (time.perf_counter() - started) * 1000
    if not result.ok:
        raise SystemExit(f"the bench fetch failed: {result.outcome}: {result.message}")
    return elapsed


def failover_cost(*, runs: int = 60, warmup: int = 5) -> FailoverCost:
    """Measure on the configured database (Django set up, migrated); leaves the settings as
    they were and removes the instances it made."""
    from django.conf import settings

    from bench.support.feeds import RSS_TYPE, rss
    from bench.support.httpserver import Reply, ScriptedServer
    from fetching.models import RSSHubInstance
    from fetching.services import fetch_path_sync

    saved = (settings.RSSHUB_URLS, settings.RSSHUB_ACCESS_KEY)
    _catalog()
    with ScriptedServer() as b_server:
        b_server.route("/healthz", Reply(200, {"Content-Type": "text/plain"}, b"ok"))
        b_server.route(PATH, Reply(200, RSS_TYPE, rss(20)))
        settings.RSSHUB_URLS, settings.RSSHUB_ACCESS_KEY = [b_server.url], ""
        a = RSSHubInstance.objects.create(
            name="bench-a", base_url=f"http://127.0.0.1:{_closed_port()}", priority=10
        )
        rows = RSSHubInstance.objects.filter(pk=a.pk)
        direct, failover = [], []
        try:
            for n in range(warmup + runs):
                rows.update(priority=-10)  # b first
                took_direct = _timed(fetch_path_sync)
                rows.update(priority=10, consecutive_failures=0, circuit="closed",
                            circuit_open_until=None)  # fmt: skip
                took_failover = _timed(fetch_path_sync)
                if n >= warmup:
                    direct.append(took_direct)
                    failover.append(took_failover)
        finally:
            RSSHubInstance.objects.filter(pk=a.pk).delete()
            RSSHubInstance.objects.filter(base_url=b_server.url).delete()
            settings.RSSHUB_URLS, settings.RSSHUB_ACCESS_KEY = saved
    return FailoverCost(runs, statistics.median(direct), statistics.median(failover))


def failover_report(cost: FailoverCost) -> list[str]:
    verdict = "meets" if cost.extra_ms < TARGET_MS else "misses"
    return [
        f"fetch step served directly by b: median {cost.direct_ms:.1f} ms ({cost.runs} runs)",
        f"fetch step a refused, b served: median {cost.failover_ms:.1f} ms",
        f"failover cost: +{cost.extra_ms:.1f} ms, ratio {cost.ratio:.2f}x "
        f"({verdict} the target of under {TARGET_MS:.0f} ms)",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=60, help="measured runs of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        from bench.scratch import scratch_database_create, scratch_environment

        postgres = scratch_environment(workdir)
        Path(workdir, "static").mkdir()
        import django

        django.setup()
        label = scratch_database_create(postgres=postgres, name=BENCH_DB)
        try:
            print(f"database: {label}")
            for line in failover_report(failover_cost(runs=args.runs)):
                print(line)
        finally:
            from bench.scratch import scratch_database_drop

            scratch_database_drop(label, BENCH_DB)


if __name__ == "__main__":
    main()
