"""Fetching benchmarks, printed as plain lines.

1. Ingest throughput on 200-item feeds (parse in the bounded worker + store), next to
   ``feedparser.parse`` alone on the same bytes in the same run. Target: ingest <= 1.5x parse.
2. Rows written when re-fetching unchanged feeds, through the whole fetch path: once from a
   server that honours ETags (304s), once from one that ignores them (200s with the same
   bytes). Target: 0 item and feed rows (the attempt log and route health are written by
   design, one row each per fetch).
3. Wall time of 16 paths fetched together from a local server that answers each after 300 ms,
   as a ratio to 300 ms. Target: <= 1.3.
4. How long the client takes to give up on a server that never answers and on one that drips a
   byte every 100 ms (a per-read timeout would never fire), as a ratio to its total deadline.
   Target: 1.0 to 1.2. The tests check the outcome (a timeout); the time is measured here.
5. The demand curve (fetch once, serve many): 1, 10, 100 and 1,000 briefs over 50 paths with a
   Zipf popularity, arriving within one minute and run by worker processes against one
   database: the RSSHub requests made, and requests per brief. Target at 1,000 briefs: <= 0.1.
   The minute is compressed (``--minute``, seconds of real time) and the freshness window with
   it, so the curve takes seconds; the ratio of window to arrival span is the real one.

Run from the repository root (any DATABASE_URL; a throwaway database is created and dropped,
never the configured one):

    SECRET_KEY=x DATABASE_URL=postgres://postgres@127.0.0.1:5432/rsshub_agent \\
        .venv/bin/python bench/fetch.py [--only demand] [--minute 15] [--workers 4]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rsshub_agent.settings")

import django  # noqa: E402

django.setup()

import feedparser  # noqa: E402
from asgiref.sync import async_to_sync  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connection, connections  # noqa: E402

from bench.support.feeds import RSS_TYPE, rss  # noqa: E402
from bench.support.httpserver import Reply, ScriptedServer  # noqa: E402
from catalog.models import Platform, Route  # noqa: E402
from fetching.client import FetchFailed, RSSHubClient  # noqa: E402
from fetching.ingest import items_store  # noqa: E402
from fetching.models import Feed, Item, Outcome  # noqa: E402
from fetching.parsing import feed_parse, feed_parser_warm  # noqa: E402
from fetching.services import fetch_paths  # noqa: E402

FEEDS = 20
ITEMS = 200
BATCH = 16
DELAY = 0.3


@contextmanager
def throwaway_database():
    """A fresh, migrated database named for this process, dropped afterwards."""
    test_settings = connection.settings_dict.setdefault("TEST", {})
    test_settings["NAME"] = f"bench_fetch_{os.getpid()}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def catalog_minimal() -> None:
    platform = Platform.objects.create(namespace="test", name="RSSHub Test")
    Route.objects.create(platform=platform, key="/:id/:params?", path="/test/:id/:params?",
                         name="Test", example="/test/1")  # fmt: skip


def bodies(count: int, items: int, tag: str) -> list[bytes]:
    return [rss(items, title=f"{tag} {n}", prefix=f"{tag}-{n}") for n in range(count)]


# --- 1. ingest throughput ----------------------------------------------------------------------


def bench_ingest() -> None:
    feeds = bodies(FEEDS, ITEMS, "ingest")
    feed_parser_warm()
    feed_parse(feeds[0], content_type=RSS_TYPE["Content-Type"])  # the worker is up and warm
    started = time.perf_counter()
    for body in feeds:
        feedparser.parse(io.BytesIO(body))
    parse_alone = time.perf_counter() - started
    rows = [Feed.objects.create(path=f"/test/ingest-{n}") for n in range(FEEDS)]
    started = time.perf_counter()
    stored = 0
    for feed, body in zip(rows, feeds, strict=True):
        parsed = feed_parse(body, content_type=RSS_TYPE["Content-Type"])
        stored += items_store(feed=feed, items=parsed.items)[0]
    ingest = time.perf_counter() - started
    total = FEEDS * ITEMS
    print(f"ingest: {FEEDS} feeds x {ITEMS} items, {stored} stored")
    print(f"  feedparser.parse alone  {total / parse_alone:8.0f} items/s  ({parse_alone:.3f} s)")
    print(f"  full ingest             {total / ingest:8.0f} items/s  ({ingest:.3f} s)")
    print(f"  ingest / parse alone    {ingest / parse_alone:8.2f} x      (target <= 1.5)")


# --- 2. rows written on unchanged re-fetch -----------------------------------------------------


class RowCounter:
    """Counts the rows each INSERT/UPDATE/DELETE touched (the cursor's rowcount), and the
    statements, per table."""

    def __init__(self) -> None:
        self.rows: Counter[str] = Counter()
        self.statements: Counter[str] = Counter()

    def __call__(self, execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        words = sql.split()
        if words and words[0] in ("INSERT", "UPDATE", "DELETE"):
            table = (words[2] if words[0] != "UPDATE" else words[1]).strip('"')
            self.rows[table] += max(context["cursor"].rowcount, 0)
            self.statements[f"{words[0]} {table}"] += 1
        return result


def conditional(body: bytes, etag: str):
    def handler(request):
        if request.headers.get("if-none-match", "").startswith(etag):
            return Reply(304, {"ETag": etag})
        return Reply(200, {**RSS_TYPE, "ETag": etag}, body)

    return handler


def refetch_rows(paths: list[str]) -> tuple[Counter, RowCounter]:
    outcomes = Counter(r.outcome for r in async_to_sync(fetch_paths)(paths))
    assert outcomes == Counter({"ok": len(paths)}), outcomes
    counter = RowCounter()
    with connection.execute_wrapper(counter):  # refresh: past the window, as a minute later
        again = async_to_sync(fetch_paths)(paths, refresh=True)
    return Counter(str(r.outcome) for r in again), counter


def bench_refetch(server: ScriptedServer) -> None:
    items, feeds = Item._meta.db_table, Feed._meta.db_table
    for mode in ("etag", "plain"):
        paths = [f"/test/refetch-{mode}-{n}" for n in range(BATCH)]
        for n, (path, body) in enumerate(zip(paths, bodies(BATCH, ITEMS, mode), strict=True)):
            server.route(path, conditional(body, f'"v{n}"') if mode == "etag" else
                         Reply(200, RSS_TYPE, body))  # fmt: skip
        outcomes, counter = refetch_rows(paths)
        label = "honours ETag" if mode == "etag" else "ignores ETag"
        print(f"re-fetch {BATCH} unchanged {ITEMS}-item feeds, server {label}: {dict(outcomes)}")
        rows = counter.rows
        print(f"  item rows written {rows[items]}, feed rows written {rows[feeds]}  (target 0)")
        others = {k: n for k, n in counter.statements.items() if items not in k and feeds not in k}
        print(f"  statements by design (attempt log, route health, the path's claim): {others}")


# --- 3. 16 paths at 300 ms ---------------------------------------------------------------------


def _slow_reply(request) -> Reply:
    time.sleep(DELAY)
    items = 5 if request.path.startswith("/test/five-") else 20
    return Reply(200, RSS_TYPE, rss(items, title="slow", prefix=request.path))


def _serve_slow(urls: multiprocessing.Queue) -> None:
    # In a process of its own, as RSSHub is: its threads must not share our GIL.
    with ScriptedServer(default=_slow_reply) as server:
        urls.put(server.url)
        time.sleep(3600)


def _walls(run, rounds: int = 7) -> tuple[float, float]:
    async_to_sync(run)(0)  # warm: connections, parse workers, caches
    walls = [async_to_sync(run)(n) for n in range(1, rounds + 1)]
    return statistics.median(walls), min(walls)


def bench_concurrency() -> None:
    urls: multiprocessing.Queue = multiprocessing.Queue()
    process = multiprocessing.Process(target=_serve_slow, args=(urls,), daemon=True)
    process.start()
    base_url = urls.get(timeout=10)
    concurrency = max(BATCH, settings.RSSHUB_CONCURRENCY)

    def full(prefix: str):
        async def run(round_: int) -> float:
            paths = [f"/test/{prefix}-{round_}-{n}" for n in range(BATCH)]
            async with RSSHubClient(base_url=base_url, concurrency=concurrency) as client:
                started = time.perf_counter()
                results = await fetch_paths(paths, client=client)
                elapsed = time.perf_counter() - started
            assert all(r.outcome == "ok" for r in results), [r.outcome for r in results]
            return elapsed

        return run

    async def http_only(round_: int) -> float:
        async with RSSHubClient(base_url=base_url, concurrency=concurrency) as client:
            started = time.perf_counter()
            await asyncio.gather(*(client.get(f"/test/raw-{round_}-{n}") for n in range(BATCH)))
            return time.perf_counter() - started

    try:
        rows = [
            ("fetch + parse + store, 20 items each", full("twenty")),
            ("fetch + parse + store, 5 items each", full("five")),
            ("HTTP alone (client.get, for reference)", http_only),
        ]
        print(f"{BATCH} paths together, each answered after {DELAY * 1000:.0f} ms by a server in "
              f"another process (per-instance limit {concurrency}; target <= 1.3 x):")  # fmt: skip
        for label, run in rows:
            median, best = _walls(run)
            print(f"  {label:40} median {median / DELAY:.2f} x  best {best / DELAY:.2f} x")
    finally:
        process.terminate()


# --- 4. the total deadline -----------------------------------------------------------------------

DEADLINE = 1.0


def _never_answers(request) -> None:
    request.stopping.wait(DEADLINE * 5)


def _drips(request) -> None:
    request.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n")
    request.wfile.write(b"Content-Length: 100000\r\n\r\n")
    while not request.stopping.wait(0.1):
        try:
            request.wfile.write(b"<")
            request.wfile.flush()
        except OSError:
            return  # the client gave up, as it should


def bench_deadline(server: ScriptedServer) -> None:
    server.route("/test/silent", _never_answers)
    server.route("/test/drip", _drips)

    async def give_up(path: str) -> float:
        async with RSSHubClient(base_url=server.url, timeout=DEADLINE) as client:
            started = time.perf_counter()
            try:
                await client.get(path)
            except FetchFailed as failed:
                assert failed.outcome == Outcome.TIMEOUT, failed
                return time.perf_counter() - started
        raise AssertionError(f"{path} answered")

    print(f"giving up at a {DEADLINE:g} s deadline (target 1.0 to 1.2 x):")
    for label, path in (("a server that never answers", "/test/silent"),
                        ("a body dripping a byte per 100 ms", "/test/drip")):  # fmt: skip
        walls = [async_to_sync(give_up)(path) for _ in range(3)]
        print(f"  {label:40} median {statistics.median(walls) / DEADLINE:.2f} x")


# --- 5. the demand curve ----------------------------------------------------------------------

DEMAND_LEVELS = (1, 10, 100, 1000)
DEMAND_PATHS = 50
DEMAND_PATHS_PER_BRIEF = 2
ZIPF_S = 1.0
DEMAND_LATENCY = 0.3  # how long the stand-in RSSHub takes to answer each request


def _demand_reply(request) -> Reply:
    time.sleep(DEMAND_LATENCY)
    return Reply(200, RSS_TYPE, rss(20, title="demand", prefix=request.path))


def zipf_briefs(count: int, *, tag: str, minute: float, seed: int) -> list[tuple[float, list]]:
    """(arrival offset in seconds, paths) per brief: each names DEMAND_PATHS_PER_BRIEF distinct
    paths drawn by a Zipf popularity over DEMAND_PATHS, and arrives at a uniform time within
    the (compressed) minute."""
    rng = random.Random(seed)
    paths = [f"/test/demand-{tag}-{rank}" for rank in range(1, DEMAND_PATHS + 1)]
    weights = [1 / rank**ZIPF_S for rank in range(1, DEMAND_PATHS + 1)]
    briefs = []
    for _ in range(count):
        chosen: list[str] = []
        while len(chosen) < DEMAND_PATHS_PER_BRIEF:
            path = rng.choices(paths, weights)[0]
            if path not in chosen:
                chosen.append(path)
        briefs.append((rng.uniform(0, minute), chosen))
    return sorted(briefs)


def _demand_worker(briefs: list[tuple[float, list]], start: float, out) -> None:
    """One worker process: each brief's fetch starts at its arrival time, concurrently."""
    connections.close_all()  # never share the parent's connection across a fork

    async def run() -> Counter:
        tally: Counter = Counter()
        async with RSSHubClient() as client:

            async def brief(offset: float, paths: list[str]) -> None:
                await asyncio.sleep(max(0.0, start + offset - time.time()))
                for result in await fetch_paths(paths, client=client):
                    tally[str(result.outcome)] += 1
                    tally["served" if result.fetch_age_s is not None else "fetched"] += 1

            await asyncio.gather(*(brief(offset, paths) for offset, paths in briefs))
        return tally

    try:
        out.put(dict(async_to_sync(run)()))
    finally:
        connections.close_all()


def demand_level(server: ScriptedServer, count: int, *, minute: float, workers: int) -> tuple:
    briefs = zipf_briefs(count, tag=str(count), minute=minute, seed=count)
    before = len(server.requests)
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    connections.close_all()
    start = time.time() + 1.0  # every worker is up before the first arrival
    shares = [briefs[n::workers] for n in range(workers)]
    processes = [context.Process(target=_demand_worker, args=(share, start, out))
                 for share in shares if share]  # fmt: skip
    for process in processes:
        process.start()
    tally: Counter = Counter()
    for _ in processes:
        tally.update(out.get(timeout=600))
    for process in processes:
        process.join(timeout=60)
    wall = time.time() - start
    asked = len({p for _, paths in briefs for p in paths})
    return asked, len(server.requests) - before, tally, wall


def bench_demand(server: ScriptedServer, *, minute: float, workers: int) -> None:
    settings.FETCH_FRESH_SECONDS = minute  # the 60 s window, compressed like the minute
    server.route_default(_demand_reply)
    print(f"demand curve: briefs of {DEMAND_PATHS_PER_BRIEF} paths each over {DEMAND_PATHS} "
          f"paths (Zipf s={ZIPF_S}), arriving within one minute, run by {workers} worker "
          f"processes; the minute and the 60 s window compressed to {minute:.0f} s; RSSHub "
          f"answers after {DEMAND_LATENCY * 1000:.0f} ms")  # fmt: skip
    print(f"  {'briefs':>6} {'paths asked':>11} {'requests':>9} {'per brief':>9}  "
          f"{'results served / fetched':>24}  {'wall':>6}")  # fmt: skip
    for count in DEMAND_LEVELS:
        asked, requests, tally, wall = demand_level(server, count, minute=minute, workers=workers)
        split = f"{tally['served']} / {tally['fetched']}"
        failed = {k: n for k, n in tally.items() if k not in ("ok", "served", "fetched")}
        note = f"  not ok: {failed}" if failed else ""
        print(f"  {count:>6} {asked:>11} {requests:>9} {requests / count:>9.3f}  {split:>24}  "
              f"{wall:>5.1f}s{note}")  # fmt: skip
    print(f"  without sharing: {DEMAND_PATHS_PER_BRIEF} requests per brief at every level; "
          "target: <= 0.1 requests per brief at 1000 briefs")  # fmt: skip


BENCHES = ("ingest", "refetch", "concurrency", "deadline", "demand")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=BENCHES)
    parser.add_argument(
        "--minute",
        type=float,
        default=15.0,
        help="seconds of real time one minute of arrivals takes (demand)",
    )
    parser.add_argument("--workers", type=int, default=4, help="worker processes (demand)")
    args = parser.parse_args()  # fmt: skip
    wanted = (args.only,) if args.only else BENCHES
    print(f"database: {connection.vendor}; python {sys.version.split()[0]}")
    with throwaway_database(), ScriptedServer() as server:
        settings.RSSHUB_URL = server.url
        settings.RSSHUB_ACCESS_KEY = ""
        catalog_minimal()
        if "ingest" in wanted:
            bench_ingest()
        if "refetch" in wanted:
            bench_refetch(server)
        if "concurrency" in wanted:
            bench_concurrency()
        if "deadline" in wanted:
            bench_deadline(server)
        if "demand" in wanted:
            bench_demand(server, minute=args.minute, workers=args.workers)


if __name__ == "__main__":
    main()
