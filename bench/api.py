"""API benchmark: list and detail requests per second with 1,000 briefs, the queries each makes,
and brief-creation throughput.

    .venv/bin/python bench/api.py [--briefs N] [--seconds S]

Runs on a throwaway database: a temporary SQLite file by default, or, when ``DATABASE_URL`` is
a postgres:// URL, a scratch database ``rsshub_agent_bench_api`` on that server (created and
dropped here; the database the URL names is never touched).

Requests go through the whole Django stack in process (middleware, token authentication,
DRF, serializers), with Django's test client: no socket, so the figures are the application's
cost, not a server's. Throttles are off and the quota is large, so nothing is refused.
Creation is measured twice: the service (``briefs.admission.brief_ask``: quota row, brief, and
the django-q task the ORM broker inserts on commit) and the full ``POST /api/v1/briefs``.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as a script: the project root, not bench/, comes first
BENCH_DB = "rsshub_agent_bench_api"


def django_setup(workdir: str) -> str:
    from bench.scratch import scratch_database_create, scratch_environment

    postgres = scratch_environment(workdir)
    Path(workdir, "static").mkdir()  # STATIC_ROOT, so WhiteNoise does not warn
    import django
    from django.conf import settings

    django.setup()
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client's host, in-memory email
    logging.getLogger("django-q").setLevel(logging.WARNING)  # one line per task enqueued
    logging.getLogger("django.request").setLevel(logging.ERROR)
    settings.API_THROTTLE_RATE = None
    settings.API_CREATE_THROTTLE_RATE = None
    settings.API_BRIEFS_PER_DAY = 10**9
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return scratch_database_create(postgres=postgres, name=BENCH_DB)


def django_teardown(label: str) -> None:
    from bench.scratch import scratch_database_drop

    scratch_database_drop(label, BENCH_DB)


def briefs_fill(owner, other, count: int) -> list[int]:
    """``count`` finished briefs of ``owner`` shaped like real ones (10 citations, coverage,
    usage), plus as many of another user; returns the owner's ids."""
    from briefs.models import Brief, BriefStatus

    citations = [
        {
            "n": n,
            "item_id": n,
            "title": f"Item {n} of the day",
            "link": f"https://example.com/{n}",
            "path": "/36kr/newsflashes",
            "source": "36kr",
            "published_at": "2026-11-01T08:00:00+00:00",
        }
        for n in range(1, 11)
    ]
    row = {"path": "/36kr/newsflashes", "outcome": "ok", "items": 20, "message": "",
           "attempts": 1, "ok": True}  # fmt: skip
    fields = {
        "status": BriefStatus.SUCCEEDED,
        "mode": "offline",
        "query": "36kr news today",
        "body": "A brief [1] with citations [2].\n" * 40,
        "citations": citations,
        "coverage": {"tried": [row["path"]], "succeeded": [row], "failed": []},
        "usage": {"nodes": {}, "llm_calls": 0, "fallbacks": [], "steps": 3, "budget": 8},
        "timings": {"total_ms": 1500},
    }
    Brief.objects.bulk_create(
        [
            Brief(owner=owner, question=f"what is new today, number {i}?", **fields)
            for i in range(count)
        ]
        + [Brief(owner=other, question=f"their question {i}", **fields) for i in range(count)],
        batch_size=500,
    )
    return list(Brief.objects.filter(owner=owner).values_list("pk", flat=True))


def rate(call: Callable[[], object], seconds: float) -> tuple[float, float]:
    """Calls per second over about ``seconds``, and the median latency in ms."""
    call()  # warm-up: caches, the token's last_used_at
    latencies = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        t0 = time.perf_counter()
        call()
        latencies.append(time.perf_counter() - t0)
    elapsed = time.perf_counter() - started
    return len(latencies) / elapsed, statistics.median(latencies) * 1000


def queries(call: Callable[[], object]) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        call()
    return len(ctx.captured_queries)


def ok(response, status: int = 200):
    if response.status_code != status:
        raise SystemExit(f"unexpected {response.status_code}: {response.content[:300]!r}")
    return response


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--briefs", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        label = django_setup(workdir)
        try:
            run(args.briefs, args.seconds, label)
        finally:
            django_teardown(label)


def run(count: int, seconds: float, label: str) -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django_q.models import OrmQ

    from briefs.admission import brief_ask
    from briefs.tokens.service import token_issue
    from catalog.importer import catalog_import, catalog_read_file
    from catalog.seed import SEED_PATH

    catalog_import(catalog_read_file(SEED_PATH))  # the real catalog: 3,905 routes
    users = get_user_model().objects
    owner = users.create_user("bench", password="bench-pass-1234")
    other = users.create_user("other", password="other-pass-1234")
    ids = briefs_fill(owner, other, count)
    auth = {"Authorization": f"Bearer {token_issue(user=owner, name='bench').secret}"}
    client = Client()

    def get(path: str, **params) -> Callable[[], object]:
        return lambda: ok(client.get(path, params, headers=auth))

    print(f"database: {label}; {count} briefs of the caller, {count} of another user;")
    print("the real catalog; in-process requests (no socket), throttles off")
    print(f"{'request':<44} {'req/s':>8} {'median ms':>10} {'queries':>8}")
    cases = [
        ("GET /briefs (page_size=20)", get("/api/v1/briefs")),
        ("GET /briefs (page_size=100)", get("/api/v1/briefs", page_size=100)),
        ("GET /briefs?search=number 42&status=...", get(
            "/api/v1/briefs", search="number 42", status="succeeded")),
        ("GET /briefs/{id}", get(f"/api/v1/briefs/{ids[len(ids) // 2]}")),
        ("GET /catalog/routes (page_size=100)", get("/api/v1/catalog/routes", page_size=100)),
    ]  # fmt: skip
    for name, call in cases:
        per_second, median = rate(call, seconds)
        print(f"{name:<44} {per_second:>8.0f} {median:>10.2f} {queries(call):>8}")

    n = 300
    started = time.perf_counter()
    for i in range(n):
        brief_ask(owner=owner, question=f"bench question {i}", offline=True)
    service = n / (time.perf_counter() - started)
    started = time.perf_counter()
    for i in range(n):
        body = {"question": f"bench api question {i}", "offline": True}
        ok(client.post("/api/v1/briefs", body, content_type="application/json", headers=auth), 202)
    api = n / (time.perf_counter() - started)
    queued = OrmQ.objects.count()
    print(f"brief creation, service (quota + brief + django-q task): {service:.0f} briefs/s")
    print(f"brief creation, POST /api/v1/briefs:                   {api:.0f} briefs/s")
    print(f"django-q tasks queued by the {2 * n} creations: {queued}")
    one = {"question": "one more", "offline": True}
    create_queries = queries(
        lambda: client.post("/api/v1/briefs", one, content_type="application/json", headers=auth)
    )
    print(f"queries of one POST /api/v1/briefs: {create_queries}")


if __name__ == "__main__":
    main()
