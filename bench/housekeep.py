"""Housekeeping benchmark: a simulated month of hourly watches on PostgreSQL, then one run.

    DATABASE_URL=postgres://... .venv/bin/python bench/housekeep.py [--watches 100] [--days 30]

The default, 100 watches, runs in about four minutes on two busy cores; ``--watches 200`` is the
full size of the issue (about seven: 2.9 million steps).

Builds, in a scratch database ``rsshub_agent_bench_housekeep`` on the server the URL names (the
database it names is never touched), what ``--watches`` hourly watches write in ``--days`` days:
a brief per watch per hour (body, 10 citations, coverage), 20 steps and 2 fetch attempts per
brief, 2 new items (600-character text) per watch per hour, a feed per watch, a webhook delivery
per brief of a quarter of the owners, daily token-usage rows, some circuit changes. The rows are
generated server-side (``INSERT ... SELECT generate_series``) to build millions in seconds.

Then, while two threads play web requests against the same rows (a brief page read, an UPDATE
of the very briefs housekeeping is about to prune, a brief created with a step, an attempt
inserted), it runs housekeeping once and prints:
- the database size before, after housekeeping, and after VACUUM FULL of the pruned tables
  (PostgreSQL keeps deleted rows' space for reuse until then: growth stops, the file stays);
- the time housekeeping took, table by table;
- the longest time a web request took while it ran, against the same requests before it: the
  upper bound of how long one waited on a lock (target: under 50 ms).
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as a script: the project root, not bench/, comes first
BENCH_DB = "rsshub_agent_bench_housekeep"
USERS = 20
STEPS = 20
ATTEMPTS = 2
ITEMS_PER_HOUR = 2
CITATIONS = 10
WEB_THREADS = 2
PRUNED_TABLES = ("briefs_runstep", "fetching_fetchattempt", "fetching_item",
                 "briefs_webhookdelivery", "briefs_tokenusage",
                 "catalog_circuitchange")  # fmt: skip
WEB_NAME = "bench-web"
WEB_PAUSE = 0.02  # seconds between one thread's requests: ~100 requests/s in all


def django_setup(workdir: str) -> str:
    from bench.scratch import scratch_database_create, scratch_environment

    if not scratch_environment(workdir):
        raise SystemExit("bench/housekeep.py measures PostgreSQL: set DATABASE_URL=postgres://...")
    Path(workdir, "static").mkdir()
    import django

    django.setup()
    logging.getLogger("housekeeping").setLevel(logging.WARNING)
    return scratch_database_create(postgres=True, name=BENCH_DB)


def django_teardown(label: str) -> None:
    from bench.scratch import scratch_database_drop

    scratch_database_drop(label, BENCH_DB)


def sql(statement: str, params: list | None = None) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(statement, params)  # None: no placeholders, so % is the operator


def scalar(statement: str, params: list | None = None):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(statement, params)  # None: no placeholders, so % is the operator
        return cursor.fetchone()[0]


def build(watches: int, days: int) -> dict[str, int]:
    """Generate the month; returns the row counts."""
    from django.contrib.auth import get_user_model

    from briefs.models import Webhook
    from catalog.models import Platform, Route

    users = [get_user_model().objects.create_user(f"u{i}") for i in range(USERS)]
    for user in users[: USERS // 4]:
        Webhook.objects.create(owner=user, url=f"https://example.com/{user.pk}", secret="s")
    platform = Platform.objects.create(namespace="test", name="Test")
    route = Route.objects.create(platform=platform, key="/watch/:id", path="/test/watch/:id",
                                 name="watch")  # fmt: skip
    hours = days * 24
    params = {"w": watches, "h": hours, "u0": users[0].pk, "r": route.pk}
    for step in (_feeds, _items, _briefs, _steps, _attempts, _deliveries, _usage, _circuits):
        started = time.perf_counter()
        sql(step(**params))
        print(f"  built {step.__name__[1:]:<12} in {time.perf_counter() - started:6.1f} s")
    sql("ANALYZE")
    return counts()


def _feeds(w, h, r, **_) -> str:
    return f"""INSERT INTO fetching_feed (path, route_id, title, link, etag, last_modified,
        last_fetched_at, created_at)
      SELECT '/test/watch/' || f, {r}, 'Watch ' || f, '', '', '', now(),
        now() - {h} * interval '1 hour'
      FROM generate_series(0, {w} - 1) f ORDER BY f"""


def _items(w, h, **_) -> str:
    # Ordered (feed, hour, k): the id of item k of feed f at hour t is base + (f*h + t)*2 + k.
    return f"""INSERT INTO fetching_item (feed_id, guid_hash, guid, title, link, summary, author,
        published_at, first_seen_at, last_seen_at)
      SELECT feed.id, md5(feed.id || ':' || t || ':' || k) || md5(t || ':' || k), 'g' || t || k,
        'Item ' || t || '-' || k || ' of ' || feed.path,
        'https://example.com/' || feed.id || '/' || t || '/' || k,
        repeat('Text of the item, as the feed gave it. ', 15), '',
        at, at, LEAST(at + interval '10 hours', now())
      FROM fetching_feed feed, generate_series(0, {h} - 1) t,
        generate_series(0, {ITEMS_PER_HOUR} - 1) k,
        LATERAL (SELECT now() - ({h} - t) * interval '1 hour' AS at) a
      ORDER BY feed.id, t, k"""


def _briefs(w, h, u0, **_) -> str:
    base = "(SELECT min(id) FROM fetching_item)"
    cite = f"""(SELECT jsonb_agg(jsonb_build_object('n', n, 'item_id',
        {base} + (f * {h} + GREATEST(t - (n - 1) / 2, 0)) * 2 + (n - 1) % 2,
        'title', 'Item', 'link', 'https://example.com/' || n, 'path', '/test/watch/' || f,
        'source', 'Test', 'published_at', to_char(at, 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"')))
        FROM generate_series(1, {CITATIONS}) n)"""
    return f"""INSERT INTO briefs_brief (owner_id, question, offline, query, language, keywords,
        window_label, status, mode, body, citations, coverage, usage, timings, as_of, error,
        attempts, cancel_requested, step_seq, created_at, started_at, finished_at, steps_summary)
      SELECT {u0} + f % {USERS}, 'What is new on watch ' || f || '?', true, 'watch ' || f, 'en',
        '[]', 'today', 'succeeded', 'offline', repeat('A cited sentence of the answer [1]. ', 25),
        {cite}, '{{"tried": 1, "succeeded": [{{"path": "/test/watch", "outcome": "ok", "items": 20,
        "attempts": 1, "message": ""}}], "failed": []}}', '{{"steps": 8, "llm_calls": 0}}',
        '{{"total_ms": 900}}', at, '', 1, false, {STEPS}, at, at, at + interval '40 seconds', '{{}}'
      FROM generate_series(0, {w} - 1) f, generate_series(0, {h} - 1) t,
        LATERAL (SELECT now() - ({h} - t) * interval '1 hour' AS at) a
      ORDER BY t, f"""


def _steps(**_) -> str:
    kinds = ("ARRAY['run_started','query_rewritten','step_started','candidates','choice',"
             "'step_started','candidates','choice','step_started','fetch_result','fetch_result',"
             "'router','step_started','llm_fallback','router','step_started','fetch_result',"
             "'router','llm_fallback','brief_ready']")  # fmt: skip
    return f"""INSERT INTO briefs_runstep (brief_id, seq, kind, payload, created_at)
      SELECT b.id, s, ({kinds})[s],
        jsonb_build_object('path', '/test/watch/1', 'outcome', 'ok', 'items_new', 2,
          'items_seen', 18, 'latency_ms', 120, 'message', '', 'node', 'fetch'),
        b.started_at + s * interval '1 second'
      FROM briefs_brief b, generate_series(1, {STEPS}) s"""


def _attempts(r, **_) -> str:
    return f"""INSERT INTO fetching_fetchattempt (path, route_id, feed_id, brief_id, outcome,
        transient, http_status, message, latency_ms, items_new, items_seen, created_at)
      SELECT '/test/watch/1', {r}, NULL, b.id, 'ok', false, 200, '', 120, 2, 18,
        b.started_at + a * interval '5 seconds'
      FROM briefs_brief b, generate_series(1, {ATTEMPTS}) a"""


def _deliveries(**_) -> str:
    return """INSERT INTO briefs_webhookdelivery (webhook_id, brief_id, event, event_id, body,
        status, attempts, last_error, created_at, delivered_at)
      SELECT hook.id, b.id, 'brief.finished', gen_random_uuid(), '{"event": "brief.finished"}',
        'succeeded', 1, '', b.finished_at, b.finished_at
      FROM briefs_brief b JOIN briefs_webhook hook ON hook.owner_id = b.owner_id"""


def _usage(h, u0, **_) -> str:
    return f"""INSERT INTO briefs_tokenusage (user_id, day, tokens, calls)
      SELECT {u0} + u, (now() - d * interval '1 day')::date, 1000, 10
      FROM generate_series(0, {USERS} - 1) u, generate_series(0, {h} / 24) d"""


def _circuits(h, r, **_) -> str:
    return f"""INSERT INTO catalog_circuitchange (route_id, from_state, to_state, reason,
        created_at)
      SELECT {r}, 'closed', 'open', 'three failures', now() - t * interval '1 hour'
      FROM generate_series(0, {h} - 1, 6) t"""


def counts() -> dict[str, int]:
    tables = ["briefs_brief", "briefs_runstep", "fetching_fetchattempt", "fetching_item",
              "briefs_webhookdelivery"]  # fmt: skip
    return {table: scalar(f"SELECT count(*) FROM {table}") for table in tables}


def database_size() -> int:
    return scalar("SELECT pg_database_size(current_database())")


class WebLoad:
    """Threads that play web requests; each request's time, per kind, split by phase."""

    def __init__(self, step_days: int) -> None:
        self.phase = "before"
        self.times: dict[tuple[str, str], list[float]] = defaultdict(list)
        self.stop = threading.Event()
        self.step_days = step_days
        self.threads = [threading.Thread(target=self._loop, args=(i,)) for i in range(WEB_THREADS)]
        self.threads.append(threading.Thread(target=self._watch_locks))
        self.lock_waits: dict[str, float] = defaultdict(float)

    def __enter__(self) -> WebLoad:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()

    def _loop(self, index: int) -> None:
        from django.db import connections

        rng = random.Random(index)
        requests = [self._page, self._touch_due_brief, self._create, self._attempt]
        sql(f"SET application_name = '{WEB_NAME}'")
        try:
            while not self.stop.is_set():
                request = rng.choice(requests)
                started = time.perf_counter()
                request(rng)
                self.times[(self.phase, request.__name__[1:])].append(time.perf_counter() - started)
                time.sleep(WEB_PAUSE)
        finally:
            connections.close_all()

    def _watch_locks(self) -> None:
        """Sample the web connections' lock waits: how long the statement of one that waits
        on a lock has run (PostgreSQL's own view, read every ~2 ms)."""
        from django.db import connections

        query = f"""SELECT COALESCE(max(extract(epoch FROM clock_timestamp() - query_start)), 0)
            FROM pg_stat_activity WHERE application_name = '{WEB_NAME}'
            AND wait_event_type = 'Lock'"""
        try:
            while not self.stop.is_set():
                waited = float(scalar(query))
                self.lock_waits[self.phase] = max(self.lock_waits[self.phase], waited)
                time.sleep(0.002)
        finally:
            connections.close_all()

    def _page(self, rng: random.Random) -> None:
        from briefs.models import Brief
        from briefs.selectors import brief_steps

        brief = Brief.objects.filter(pk=rng.randint(1, self.top)).first()
        if brief is not None:
            brief_steps(brief_id=brief.pk)

    def _touch_due_brief(self, rng: random.Random) -> None:
        """A person writes to a brief housekeeping is about to prune (the worst case)."""
        from datetime import timedelta

        from django.utils import timezone

        from briefs.models import Brief

        cutoff = timezone.now() - timedelta(days=self.step_days)
        due = Brief.objects.filter(steps_pruned_at__isnull=True, finished_at__lt=cutoff)
        ids = list(due.order_by().values_list("pk", flat=True)[:100])
        if ids:
            Brief.objects.filter(pk=rng.choice(ids)).update(cancel_requested=False)

    def _create(self, rng: random.Random) -> None:
        from briefs.models import Brief
        from briefs.steps import step_append

        brief = Brief.objects.create(owner_id=self.owner_id, question="a new question")
        step_append(brief_id=brief.pk, kind="run_started", payload={"attempt": 1})

    def _attempt(self, rng: random.Random) -> None:
        from fetching.models import FetchAttempt

        FetchAttempt.objects.create(path="/test/watch/1", outcome="ok", latency_ms=100)

    def summary(self) -> list[tuple[str, str, int, float, float]]:
        rows = []
        for (phase, kind), times in sorted(self.times.items()):
            p50 = statistics.median(times) * 1000
            rows.append((phase, kind, len(times), p50, max(times) * 1000))
        return rows


def vacuum_full() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for table in PRUNED_TABLES:
            cursor.execute(f"VACUUM FULL {table}")


def run(watches: int, days: int, label: str) -> None:
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from briefs.models import Brief
    from housekeeping.services import housekeep_run

    print(f"database: {label}")
    print(f"simulating {watches} hourly watches for {days} days:")
    started = time.perf_counter()
    before_rows = build(watches, days)
    print(f"built in {time.perf_counter() - started:.0f} s: " +
          ", ".join(f"{t} {n:,}" for t, n in before_rows.items()))  # fmt: skip
    size_before = database_size()
    load = WebLoad(settings.HOUSEKEEP_STEP_DAYS)
    load.top = Brief.objects.order_by("-pk").values_list("pk", flat=True).first()
    load.owner_id = get_user_model().objects.values_list("pk", flat=True).first()
    with load:
        time.sleep(5)  # the same requests without housekeeping
        load.phase = "during"
        report = housekeep_run()
        load.phase = "after"
    size_after = database_size()
    vacuum_full()
    size_vacuumed = database_size()

    print(f"\nhousekeeping (batch {settings.HOUSEKEEP_BATCH_SIZE}): {report.seconds:.1f} s")
    for table in report.tables:
        print(f"  {table.table:<30} removed {table.rows:>10,}  {table.seconds:7.2f} s")
    mb = 1024 * 1024
    print(f"\ndatabase size before:                   {size_before / mb:8.0f} MB")
    print(f"database size after housekeeping:       {size_after / mb:8.0f} MB "
          "(freed space is reused by new rows)")  # fmt: skip
    print(f"database size after VACUUM FULL:        {size_vacuumed / mb:8.0f} MB")
    print(f"\nweb requests ({WEB_THREADS} threads), before and during housekeeping:")
    print(f"  {'phase':<7} {'request':<18} {'count':>6} {'p50 ms':>8} {'max ms':>8}")
    for phase, kind, n, p50, top in load.summary():
        if phase != "after":
            print(f"  {phase:<7} {kind:<18} {n:>6} {p50:>8.1f} {top:>8.1f}")
    during = [t for (phase, _), times in load.times.items() if phase == "during" for t in times]
    longest = max(during, default=0) * 1000
    print(f"\nlongest web request during housekeeping: {longest:.1f} ms (CPU shared with it)")
    for phase in ("before", "during"):
        waited = load.lock_waits[phase] * 1000
        label = f"{phase} housekeeping:"
        print(f"longest lock wait of a web request, {label:<21} {waited:6.1f} ms (target < 50 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watches", type=int, default=100)
    parser.add_argument("--days", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        label = django_setup(workdir)
        try:
            run(args.watches, args.days, label)
        finally:
            django_teardown(label)


if __name__ == "__main__":
    main()
