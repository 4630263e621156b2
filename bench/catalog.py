"""Catalog benchmark: import, no-change re-import, and route search against a naive scan.

    .venv/bin/python bench/catalog.py [--reps N] [--no-synthetic]

Runs on a throwaway database: a temporary SQLite file by default, or, when ``DATABASE_URL`` is a
postgres:// URL, a scratch database ``rsshub_agent_bench`` on that server (created and dropped
here; the database the URL names is never touched). For the real snapshot and for a synthetic
catalog ten times its size (every namespace cloned nine times under suffixed keys and names) it
prints: first import time; a no-change re-import with the rows it wrote (every INSERT, UPDATE
and DELETE counted by an execute wrapper); the index build; and search latency p50/p99 over the
dev questions (``eval/routing-dev.jsonl``), next to a naive linear substring scan measured
in the same run, with hit@1/hit@3 of the top platform and the top route's hit.
"""

import argparse
import copy
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path, and this module's name would hide
# the catalog app: put the project root there instead.
sys.path[0] = str(ROOT)
QUESTIONS = ROOT / "eval" / "routing-dev.jsonl"
BENCH_DB = "rsshub_agent_bench"


# --- Setup --------------------------------------------------------------------------------------


def django_setup(workdir: str) -> str:
    """Configure Django on a throwaway database; returns a label for it."""
    from bench.scratch import scratch_database_create, scratch_environment

    postgres = scratch_environment(workdir)
    import django

    django.setup()
    return scratch_database_create(postgres=postgres, name=BENCH_DB)


def django_teardown(label: str) -> None:
    from bench.scratch import scratch_database_drop

    scratch_database_drop(label, BENCH_DB)


# --- Catalogs -----------------------------------------------------------------------------------


def _suffixed_url(url: str, k: int) -> str:
    host, dot, tld = url.rpartition(".")
    return f"{host}-c{k}.{tld}" if dot else url


def catalog_synthetic(data: dict, factor: int) -> dict:
    """``data`` plus ``factor - 1`` clones of every namespace, keys and names suffixed."""
    out = dict(data)
    for k in range(1, factor):
        for namespace, entry in data.items():
            clone = copy.deepcopy(entry)
            clone["name"] = f"{entry.get('name') or namespace} C{k}"
            clone["url"] = _suffixed_url(entry.get("url") or "", k)
            for lang in ("zh", "zh-TW", "ja", "en"):
                if isinstance(clone.get(lang), dict) and clone[lang].get("name"):
                    clone[lang]["name"] = f"{clone[lang]['name']} C{k}"
            for route in clone.get("routes", {}).values():
                example = route.get("example")
                if isinstance(example, str) and example.startswith(f"/{namespace}"):
                    route["example"] = f"/{namespace}-c{k}" + example[len(namespace) + 1 :]
            out[f"{namespace}-c{k}"] = clone
    return out


# --- Measuring ----------------------------------------------------------------------------------


class WriteCounter:
    """An execute wrapper that counts write statements and the rows they report."""

    def __init__(self) -> None:
        self.statements = 0
        self.rows = 0

    def __call__(self, execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if sql.lstrip()[:6].upper() in ("INSERT", "UPDATE", "DELETE"):
            self.statements += 1
            self.rows += max(context["cursor"].rowcount, 0)
        return result


def bench_import(data: dict) -> dict:
    from django.db import connection

    from catalog.importer import catalog_import

    started = time.perf_counter()
    catalog_import(data)
    first = time.perf_counter() - started
    counter = WriteCounter()
    with connection.execute_wrapper(counter):
        started = time.perf_counter()
        report = catalog_import(data)
        again = time.perf_counter() - started
    return {
        "first": first,
        "again": again,
        "writes": counter.statements,
        "rows": counter.rows,
        "changed": report.changed,
    }


def latencies(
    search: Callable[[str], object], questions: list[str], reps: int, cpu: list | None = None
) -> list[float]:
    """Milliseconds per call, every question ``reps`` times, interleaved; the thread's CPU time
    of each call goes to ``cpu`` when given (on a loaded machine, wall time includes waiting
    for a core)."""
    out = []
    for _ in range(reps):
        for question in questions:
            started, started_cpu = time.perf_counter_ns(), time.thread_time_ns()
            search(question)
            out.append((time.perf_counter_ns() - started) / 1e6)
            if cpu is not None:
                cpu.append((time.thread_time_ns() - started_cpu) / 1e6)
    return out


def index_size() -> tuple[int, int]:
    """Bytes the index takes (traced allocations of a fresh build) and of them its arrays."""
    import tracemalloc

    from catalog.search_index import search_index_build
    from catalog.selectors import catalog_search_version

    tracemalloc.start()
    index = search_index_build(catalog_search_version())
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return size, index.arrays.nbytes


def staff_change_seconds() -> dict:
    """A route disabled by staff, then the next search: the time the index takes to follow."""
    from catalog.models import Route
    from catalog.search import search_catalog
    from catalog.search_index import search_index_current
    from catalog.services import routes_set_enabled

    index = search_index_current()
    route_id = Route.objects.filter(enabled=True).values_list("id", flat=True).first()
    routes_set_enabled(route_ids=[route_id], enabled=False)
    from django.conf import settings

    recheck, settings.CATALOG_SEARCH_RECHECK_SECONDS = settings.CATALOG_SEARCH_RECHECK_SECONDS, 0
    started = time.perf_counter()
    search_catalog("news")
    seconds = time.perf_counter() - started
    settings.CATALOG_SEARCH_RECHECK_SECONDS = recheck
    routes_set_enabled(route_ids=[route_id], enabled=True)
    return {"seconds": seconds, "kept": search_index_current() is index}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


# --- The naive baseline -------------------------------------------------------------------------


class NaiveScan:
    """The predecessor's method: a linear substring scan over every name, in memory.

    A platform scores 10 per name or alias found in the question, plus 1 per route of it whose
    name is in the question or holds one of the question's words; routes score the same way.
    """

    def __init__(self) -> None:
        from catalog.models import Platform, Route

        self.platforms = [
            (ns, [n.lower() for n in [ns, name, *aliases] if n])
            for ns, name, aliases in Platform.objects.filter(enabled=True).values_list(
                "namespace", "name", "aliases"
            )
        ]
        self.routes = [
            (ns, path, name.lower())
            for ns, path, name in Route.objects.filter(enabled=True).values_list(
                "platform__namespace", "path", "name"
            )
        ]

    def __call__(self, question: str) -> tuple[list[str], str | None]:
        q = question.lower()
        words = [w for w in q.split() if len(w) > 1]
        scores: dict[str, int] = {}
        for ns, names in self.platforms:
            found = sum(10 for n in names if n in q)
            if found:
                scores[ns] = scores.get(ns, 0) + found
        best_route, best = None, 0
        for ns, path, name in self.routes:
            if name in q or any(w in name for w in words):
                scores[ns] = scores.get(ns, 0) + 1
                if scores[ns] > best:
                    best_route, best = path, scores[ns]
        ranked = sorted(scores, key=lambda n: -scores[n])
        return ranked[:3], best_route


# --- Quality ------------------------------------------------------------------------------------


def quality(rank: Callable[[str], tuple[list[str], str | None]], dev: list[dict]) -> dict:
    hit1 = hit3 = route_hit = with_routes = 0
    for item in dev:
        namespaces, route = rank(item["question"])
        hit1 += bool(namespaces[:1]) and namespaces[0] in item["namespaces"]
        hit3 += any(n in item["namespaces"] for n in namespaces[:3])
        if item.get("routes"):
            with_routes += 1
            route_hit += route in item["routes"]
    return {"hit1": hit1, "hit3": hit3, "route": route_hit, "with_routes": with_routes}


def search_rank(question: str) -> tuple[list[str], str | None]:
    from catalog.search import search_catalog

    result = search_catalog(question, limit=1, platform_limit=3)
    return [p.namespace for p in result.platforms], (
        result.routes[0].path if result.routes else None
    )


# --- One catalog --------------------------------------------------------------------------------


def bench_catalog(data: dict, dev: list[dict], reps: int) -> dict:
    from catalog.models import Platform, Route
    from catalog.search import search_catalog
    from catalog.search_index import search_index_invalidate
    from catalog.selectors import catalog_search_version

    Route.objects.all().delete()
    Platform.objects.all().delete()
    search_index_invalidate()
    result = {"import": bench_import(data)}
    result["size"] = (Platform.objects.count(), Route.objects.count())
    questions = [item["question"] for item in dev]
    started = time.perf_counter()
    search_catalog(questions[0])
    result["build"] = time.perf_counter() - started
    started = time.perf_counter()
    catalog_search_version()
    result["version_check"] = (time.perf_counter() - started) * 1000
    result["cpu"] = []
    result["search"] = latencies(search_catalog, questions, reps, result["cpu"])
    naive = NaiveScan()
    result["naive"] = latencies(naive, questions, reps)
    result["quality"] = quality(search_rank, dev)
    result["memory"] = index_size()
    result["staff_change"] = staff_change_seconds()
    result["naive_quality"] = quality(naive, dev)
    return result


# --- Report -------------------------------------------------------------------------------------


def _row(label: str, *cells: str) -> str:
    return f"{label:<36}" + "".join(f"{c:<34}" for c in cells)


# (p50 ms, p99 ms, speed-up over the naive scan at p50): the full snapshot, ten times it (issue 13)
TARGETS = ((0.5, 2.0, 3.0), (1.0, 5.0, 10.0))


def report(database: str, dev: list[dict], results: dict[str, dict]) -> None:
    n = len(dev)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"catalog bench on {database}; {n} dev questions")
    print(f"machine: {os.cpu_count()} CPUs, load average {load} (latency is wall time)\n")
    print(_row("", *results))
    r = list(results.values())
    print(_row("searches timed (dev set x reps)", *(f"{len(x['search'])}" for x in r)))
    print(_row("platforms / routes", *(f"{x['size'][0]} / {x['size'][1]}" for x in r)))
    print(_row("import, first run", *(f"{x['import']['first']:.2f} s" for x in r)))
    print(
        _row(
            "re-import, no change",
            *(
                f"{x['import']['again']:.2f} s, {x['import']['writes']} writes "
                f"({x['import']['rows']} rows)"
                for x in r
            ),
        )
    )
    print(_row("index build (first search)", *(f"{x['build']:.2f} s" for x in r)))
    print(_row("version check (every 2 s)", *(f"{x['version_check']:.1f} ms" for x in r)))
    mib = 1024 * 1024
    print(_row("index size (of it arrays)", *(
        f"{x['memory'][0] / mib:.1f} MiB ({x['memory'][1] / mib:.1f} MiB)" for x in r
    )))  # fmt: skip
    print(_row("staff disable, next search", *(
        f"{x['staff_change']['seconds'] * 1000:.1f} ms, index "
        f"{'kept' if x['staff_change']['kept'] else 'REBUILT'}" for x in r
    )))  # fmt: skip
    for label, key in (("search", "search"), ("search CPU time", "cpu"), ("naive scan", "naive")):
        cells = (f"{percentile(x[key], 0.5):.3f} / {percentile(x[key], 0.99):.3f} ms" for x in r)
        print(_row(f"{label} p50 / p99", *cells))
    print(
        _row(
            "naive / search, p50 and p99",
            *(
                f"{percentile(x['naive'], 0.5) / percentile(x['search'], 0.5):.1f}x / "
                f"{percentile(x['naive'], 0.99) / percentile(x['search'], 0.99):.1f}x"
                for x in r
            ),
        )
    )
    print(_row("search mean", *(f"{statistics.fmean(x['search']):.3f} ms" for x in r)))
    for label, key in (("search", "quality"), ("naive scan", "naive_quality")):
        q = [x[key] for x in r]
        cells = (f"{x['hit1']}/{n} / {x['hit3']}/{n}; {x['route']}/{x['with_routes']}" for x in q)
        print(_row(f"{label} hit@1 / hit@3; route hit", *cells))
    print()
    for x, (p50, p99, factor) in zip(r, TARGETS, strict=False):
        search, naive = percentile(x["search"], 0.5), percentile(x["naive"], 0.5)
        ok = search < p50 and percentile(x["search"], 0.99) < p99 and naive / search >= factor
        verdict = "met" if ok else "MISSED"
        print(f"targets ({x['size'][1]} routes): search p50 < {p50} ms, p99 < {p99} ms, "
              f">= {factor}x the naive scan at p50: {verdict} (wall time)")  # fmt: skip
    writes = "met" if not r[0]["import"]["writes"] else "MISSED"
    print(f"no-change re-import writes 0 rows: {writes}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=100, help="repetitions of the dev set")
    parser.add_argument("--factor", type=int, default=10, help="synthetic catalog size factor")
    parser.add_argument("--no-synthetic", action="store_true", help="the real snapshot only")
    args = parser.parse_args()
    if not QUESTIONS.is_file():
        sys.exit(f"dev questions not found at {QUESTIONS}")
    dev = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory(prefix="rsshub-bench-") as workdir:
        database = django_setup(workdir)
        try:
            from catalog.importer import catalog_read_file
            from catalog.seed import SEED_PATH

            data = catalog_read_file(SEED_PATH)
            results = {"full snapshot": bench_catalog(data, dev, args.reps)}
            if not args.no_synthetic:
                synthetic = catalog_synthetic(data, args.factor)
                label = f"synthetic x{args.factor}"
                results[label] = bench_catalog(synthetic, dev, max(1, args.reps // 5))
        finally:
            django_teardown(database)
    report(database, dev, results)


if __name__ == "__main__":
    main()
