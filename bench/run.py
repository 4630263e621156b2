"""Agent run benchmark: wall time of whole briefs next to their critical path, and queries.

Briefs run in this process through the worker task (``briefs.tasks.run_brief``: claim, agent,
finish), against two stand-ins in another process (as RSSHub and an LLM endpoint are):

- RSSHub answers every path after ``FETCH_DELAY`` (a 5-item feed; ``/.../gone/...`` paths: 404);
- the LLM answers every chat completion after ``LLM_DELAY`` with a valid choice among the
  candidates the request offers (rewrite, platform, route), or a brief citing [1] and [2].

The critical path of a run is the time nothing but the stand-ins would take: the sum of its LLM
call delays plus, for each fetch step, its slowest fetch (the paths of a step run concurrently).
Printed per scenario: wall / critical path (target <= 1.15 for model runs), and the database
queries per run (every connection of every thread, counted with an execute wrapper), and the
time beyond the critical path per node (from the steps' timestamps). Then where that time goes:
one scenario again with the agent's pieces timed in place (step writes, LLM bookkeeping, fetch
stages), and the unit costs of a step write, a thread hop and a fresh connection. Last, the
time to build the offline brief for 30 and 300 items (``bench/digest.py``, also runnable alone).

Run from the repository root; a throwaway database is created and dropped (PostgreSQL when
DATABASE_URL names one, else an SQLite file), never the configured one:

    SECRET_KEY=x DATABASE_URL=postgres://postgres@127.0.0.1:5432/rsshub_agent \\
        .venv/bin/python bench/run.py [--runs 7]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import multiprocessing
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rsshub_agent.settings")

import django  # noqa: E402

django.setup()

from asgiref.sync import async_to_sync, sync_to_async  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.db.backends.signals import connection_created  # noqa: E402

from bench.digest import offline_brief_timings  # noqa: E402
from briefs.models import Brief, RunStep  # noqa: E402
from briefs.services import brief_create  # noqa: E402
from briefs.steps import step_append  # noqa: E402
from briefs.tasks import run_brief  # noqa: E402
from catalog.importer import catalog_import, catalog_read_file  # noqa: E402
from catalog.models import CircuitState, Platform, Route  # noqa: E402
from catalog.search_index import search_index_invalidate  # noqa: E402
from catalog.seed import SEED_PATH  # noqa: E402
from fetching.paths import catalog_cache_clear  # noqa: E402

LLM_DELAY = 0.2
FETCH_DELAY = 0.3
TARGET = 1.15
PARAM_RE = re.compile(r":(\w+)(\?)?")


# --- the stand-ins (in a process of their own) --------------------------------------------------


def _feed(path: str) -> bytes:
    from bench.support.feeds import rss

    return rss(5, title=f"bench {path}", prefix=f"bench-{path}")


def _rsshub_answer(request):
    from bench.support.httpserver import Reply

    time.sleep(FETCH_DELAY)
    if "/gone/" in request.path:
        return Reply(404, {"Content-Type": "text/html"}, b"<html>Not Found</html>")
    return Reply(200, {"Content-Type": "application/rss+xml"}, _feed(request.path))


def _named_in(options: list[str], text: str) -> list[str]:
    return [o for o in options if o in text] or options[:1]


def _llm_answer(body: dict):
    """A valid answer to whichever node asks, chosen from what the request offers; a careless
    writer (``bench.support.llmserver.careless_writer``) when the question says "careless"."""
    from bench.support.llmserver import careless_writer, honest_brief, text, tool_call

    tools = body.get("tools")
    prompt = body["messages"][1]["content"] or ""
    if not tools:
        careless = "careless" in prompt.split("<items>", 1)[0].lower()
        return text(careless_writer(body) if careless else honest_brief(prompt))
    schema = tools[0]["function"]["parameters"]["properties"]
    if "query" in schema:
        question = prompt.split("Question: ", 1)[1].split("\n", 1)[0]
        words = [w for w in re.findall(r"\w+", question) if len(w) > 3]
        answer = {"query": question, "language": "en", "keywords": words, "window": "latest"}
        return tool_call(answer)
    if "chosen" in schema:
        chosen = _named_in(schema["chosen"]["items"]["enum"], prompt)
        return tool_call({"chosen": chosen[:1], "reason": "named in the query"})
    offered = [o["properties"]["route"]["enum"][0] for o in schema["routes"]["items"]["anyOf"]]
    # Routes that will fail first (the router table is part of the run), then the others.
    picks = [t for t in offered if "/gone/" in t] or offered
    routes = [
        {"route": t, "params": {name: "news" for name, opt in PARAM_RE.findall(t) if not opt}}
        for t in picks[:3]
    ]
    return tool_call({"routes": routes, "reason": "the routes of the chosen platform"})


def _serve(urls: multiprocessing.Queue) -> None:
    from bench.support.httpserver import ScriptedServer
    from bench.support.llmserver import LLMServer

    with (
        ScriptedServer(default=_rsshub_answer) as rsshub,
        LLMServer(responder=_llm_answer, delay=LLM_DELAY) as llm,
    ):
        urls.put((rsshub.url, llm.url))
        time.sleep(3600)


@contextmanager
def stand_ins():
    urls: multiprocessing.Queue = multiprocessing.Queue()
    process = multiprocessing.Process(target=_serve, args=(urls,), daemon=True)
    process.start()
    try:
        yield urls.get(timeout=20)
    finally:
        process.terminate()


# --- the database and what the runs need ----------------------------------------------------------


@contextmanager
def throwaway_database():
    """A fresh, migrated database named for this process, dropped afterwards."""
    test = connection.settings_dict.setdefault("TEST", {})
    if connection.vendor == "sqlite":
        test["NAME"] = str(Path(tempfile.gettempdir()) / f"bench_run_{os.getpid()}.sqlite3")
    else:
        test["NAME"] = f"bench_run_{os.getpid()}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield
    finally:
        connections.close_all()
        connection.creation.destroy_test_db(old_name, verbosity=0)


BENCH_PLATFORMS = {
    # namespace: (name, route keys)
    "benchwire": ("Benchwire Daily", ["/a/:topic", "/b/:topic", "/c/:topic"]),
    "benchgone": ("Benchgone Times", ["/gone/:topic", "/news/:topic"]),
}


def catalog_prepare() -> None:
    """The real catalog snapshot, plus two platforms of the bench's own."""
    started = time.perf_counter()
    catalog_import(catalog_read_file(SEED_PATH))
    for namespace, (name, keys) in BENCH_PLATFORMS.items():
        platform = Platform.objects.create(namespace=namespace, name=name, priority=1)
        for key in keys:
            Route.objects.create(
                platform=platform, key=key, path=f"/{namespace}{key}", name=f"{name} {key}",
                example=f"/{namespace}{key[:2]}news",
            )  # fmt: skip
    catalog_cache_clear()
    search_index_invalidate()
    seconds = time.perf_counter() - started
    print(f"catalog: {Route.objects.count()} routes (seed + bench), imported in {seconds:.1f} s")


# --- counting queries on every connection ---------------------------------------------------------


class QueryCounter:
    """Counts statements on every connection of every thread, and connections opened."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statements: Counter[str] = Counter()
        self.connects = 0

    def __call__(self, execute, sql, params, many, context):
        verb = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else "?"
        with self.lock:
            self.statements[verb] += 1
        return execute(sql, params, many, context)

    def install(self, target) -> None:
        if self not in target.execute_wrappers:
            target.execute_wrappers.append(self)

    def connected(self, sender, connection, **kwargs) -> None:
        """``connection_created``: every thread's new connection is counted and wrapped."""
        with self.lock:
            self.connects += 1
        self.install(connection)

    def reset(self) -> None:
        with self.lock:
            self.statements.clear()
            self.connects = 0

    def snapshot(self) -> tuple[int, Counter, int]:
        with self.lock:
            return sum(self.statements.values()), Counter(self.statements), self.connects


# --- one run --------------------------------------------------------------------------------------


@dataclass
class Run:
    wall: float
    critical: float
    llm_calls: int
    fetch_steps: int
    steps: int
    queries: int
    verbs: Counter
    connects: int
    status: str
    claims: dict = field(default_factory=dict)  # the claims_dropped step (produced, kept, ...)
    cited_share: float = 1.0  # of the final answer's sentences, the share that cite an item
    node_extra: dict[str, float] = field(default_factory=dict)  # seconds beyond the stand-ins
    llm_client_ms: list[int] = field(default_factory=list)  # each call, as the client saw it
    fetch_client_ms: list[int] = field(default_factory=list)


def _fetch_steps(steps: list[RunStep]) -> list[list[dict]]:
    """The fetch_result payloads of each fetch step."""
    batches: list[list[dict]] = []
    for step in steps:
        if step.kind == "step_started" and step.payload["node"] == "fetch":
            batches.append([])
        elif step.kind == "fetch_result":
            batches[-1].append(step.payload)
    return batches


def critical_path(steps: list[RunStep]) -> tuple[float, int, int]:
    """LLM calls x their delay + for each fetch step, its slowest fetch (a path whose circuit
    was open sent nothing: no delay)."""
    llm_calls = sum(1 for s in steps if s.kind == "llm_usage")
    batches = _fetch_steps(steps)
    slowest = [FETCH_DELAY if any(r["http_status"] for r in batch) else 0.0 for batch in batches]
    return llm_calls * LLM_DELAY + sum(slowest), llm_calls, len(batches)


def _node_extra(steps: list[RunStep], started: float, wall: float) -> dict[str, float]:
    """Wall time beyond the stand-ins per node, from the steps' timestamps: the time up to a
    step is charged to the node running then; each LLM call and fetch step's own delay is
    taken off its node."""
    extra: dict[str, float] = defaultdict(float)
    node, previous = "claim", started
    for step in steps:
        at = step.created_at.timestamp()
        extra[node] += at - previous
        previous = at
        if step.kind == "run_started":
            node = "rewrite"
        elif step.kind == "step_started":
            node = step.payload["node"]
        elif step.kind == "router":
            node = "summarize" if step.payload["decision"] == "summarize" else "router"
        elif step.kind == "llm_usage":
            extra[step.payload["node"]] -= LLM_DELAY
    for batch in _fetch_steps(steps):
        extra["fetch"] -= FETCH_DELAY if any(r["http_status"] for r in batch) else 0.0
    extra["finish"] = started + wall - previous
    return dict(extra)


def run_once(owner, question: str, *, offline: bool, counter: QueryCounter) -> Run:
    brief = brief_create(owner=owner, question=question, offline=offline, enqueue=False)
    # Every run starts from closed circuits, so the failing route is tried each time. (Not
    # routes_health_reset: it bumps updated_at, which makes every process rebuild its search
    # index, about 1.5 s, and the bench would measure that instead.)
    Route.objects.filter(platform__namespace__in=BENCH_PLATFORMS).update(
        consecutive_failures=0, circuit=CircuitState.CLOSED, circuit_open_until=None,
        circuit_probe_at=None,
    )  # fmt: skip
    counter.reset()
    started_epoch, started = time.time(), time.perf_counter()
    run_brief(brief.pk)
    wall = time.perf_counter() - started
    queries, verbs, connects = counter.snapshot()
    brief = Brief.objects.get(pk=brief.pk)
    steps = list(RunStep.objects.filter(brief=brief).order_by("seq"))
    critical, llm_calls, fetch_steps = critical_path(steps)
    return Run(
        wall=wall, critical=critical, llm_calls=llm_calls, fetch_steps=fetch_steps,
        steps=len(steps), queries=queries, verbs=verbs, connects=connects, status=brief.status,
        claims=next((s.payload for s in steps if s.kind == "claims_dropped"), {}),
        cited_share=cited_share(brief.body),
        node_extra=_node_extra(steps, started_epoch, wall),
        llm_client_ms=[s.payload["latency_ms"] for s in steps if s.kind == "llm_usage"],
        fetch_client_ms=[s.payload["latency_ms"] for s in steps if s.kind == "fetch_result"
                         and s.payload["http_status"]],
    )  # fmt: skip


CITATION_RE = re.compile(r"\[\d{1,4}\]")
SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+|(?<=[\u3002\uff01\uff1f])")


def cited_share(body: str) -> float:
    """Of the sentences of the brief's answer (after the as-of line, before the coverage), the
    share that carry a citation; counted apart from the writer contract's own code."""
    answer = body.split("\n## Coverage", 1)[0].split("\n", 1)[-1]
    sentences = [
        s
        for line in answer.split("\n")
        if line.strip() and not line.lstrip().startswith("#")
        for s in SENTENCE_END_RE.split(line.lstrip("-* "))
        if s.strip()
    ]
    return sum(1 for s in sentences if CITATION_RE.search(s)) / len(sentences) if sentences else 1.0


# --- what the time beyond the critical path is made of -------------------------------------------


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def _timed(call, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - started)
    return _median_ms(samples)


def _fresh_connection_query() -> None:
    Brief.objects.exists()
    connections.close_all()


def unit_costs(owner, rounds: int = 40) -> dict[str, float]:
    """Median cost (ms) of the pieces every step and every LLM call pay, measured from an event
    loop under ``async_to_sync`` as the agent runs."""
    brief = brief_create(owner=owner, question="unit costs", enqueue=False)

    def noop() -> None:
        pass

    async def measure() -> dict[str, float]:
        append = sync_to_async(step_append)
        return {
            "thread-sensitive hop (sync_to_async)": await _timed(sync_to_async(noop), rounds),
            "ctx.step: hop + step_append (lock, 2 writes, commit, notify)": await _timed(
                lambda: append(brief_id=brief.pk, kind="router", payload={"decision": "x"}),
                rounds,
            ),
            "pool-thread hop, new connection, 1 query, close (was: each LLM call)": await _timed(
                sync_to_async(_fresh_connection_query, thread_sensitive=False), rounds
            ),
            "pool-thread hop alone": await _timed(
                sync_to_async(noop, thread_sensitive=False), rounds
            ),
            "event loop wake-up (asyncio.sleep(0))": await _timed(lambda: asyncio.sleep(0), rounds),
        }

    return async_to_sync(measure)()


# --- where the time goes: the agent's own pieces, timed in place ----------------------------------

PROFILED = [
    # module, attribute, label; a piece the agent no longer has is reported missing
    ("briefs.tasks", "brief_claim", "claim"),
    ("agent.runner", "context_load", "context_load"),
    ("agent.context", "steps_append", "step writes (one per write, held steps together)"),
    ("agent.platform", "search_catalog", "catalog search (platform node)"),
    ("agent.route", "routes_for_platforms", "route candidates (route node)"),
    ("agent.llm.calls", "send", "LLM: send (HTTP + settle)"),
    ("agent.llm.transport", "call_admit", "LLM: admission (breaker + budget, 1 UPDATE)"),
    ("agent.llm.admission", "breaker_admit", "LLM: breaker_admit (not closed: the long way)"),
    ("agent.llm.transport", "budget_reserve", "LLM: budget_reserve (a repair turn)"),
    ("agent.llm.transport", "budget_settle", "LLM: budget_settle"),
    ("agent.llm.calls", "breaker_record_success", "LLM: breaker_record_success"),
    ("fetching.services", "_plans_prepare", "fetch: plans (confine, feeds, circuits)"),
    ("fetching.client", "RSSHubClient.get", "fetch: HTTP (RSSHubClient.get)"),
    ("fetching.recording", "feed_parse", "fetch: parse (worker process)"),
    ("fetching.recording", "_attempts_record", "fetch: record (items, attempts, health)"),
    ("agent.summarize", "items_load", "summarize: items_load"),
    ("agent.runner", "_finish", "finish (one UPDATE)"),
]


class Timers:
    """Wall time spent inside each profiled piece (any thread), and its calls."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seconds: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()

    def add(self, label: str, seconds: float) -> None:
        with self.lock:
            self.seconds[label] += seconds
            self.calls[label] += 1

    def wrap(self, label: str, fn):
        if asyncio.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def timed_async(*args, **kwargs):
                started = time.perf_counter()
                try:
                    return await fn(*args, **kwargs)
                finally:
                    self.add(label, time.perf_counter() - started)

            return timed_async

        @functools.wraps(fn)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.add(label, time.perf_counter() - started)

        return timed


@contextmanager
def profiled(timers: Timers):
    patched, missing = [], []
    for module_name, attribute, label in PROFILED:
        owner = importlib.import_module(module_name)
        *outer, name = attribute.split(".")
        for part in outer:
            owner = getattr(owner, part)
        original = getattr(owner, name, None)
        if original is None:
            missing.append(label)
            continue
        setattr(owner, name, timers.wrap(label, original))
        patched.append((owner, name, original))
    try:
        yield missing
    finally:
        for owner, name, original in patched:
            setattr(owner, name, original)


def profile_scenario(owner, question: str, counter: QueryCounter, runs: int) -> None:
    timers = Timers()
    with profiled(timers) as missing:
        results = [run_once(owner, question, offline=False, counter=counter) for _ in range(runs)]
    wall = statistics.median(r.wall for r in results)
    critical = results[0].critical
    print(f"\nwhere the time goes ({question!r}, {runs} runs profiled; per run, ms):")
    print(f"  wall {wall * 1000:.0f} = critical path {critical * 1000:.0f} "
          f"+ {(wall - critical) * 1000:.0f} beyond it")  # fmt: skip
    for _, _, label in PROFILED:
        if label in missing:
            print(f"  {label:44} missing (renamed?)")
            continue
        calls, seconds = timers.calls[label] / runs, timers.seconds[label] / runs
        print(f"  {label:44} {seconds * 1000:7.1f} ms in {calls:4.1f} calls")


# --- scenarios ------------------------------------------------------------------------------------


SCENARIOS = [
    # label, question, offline
    ("model: 3 paths, one fetch step", "What is the latest news on Benchwire Daily?", False),
    ("model: a failing route, then another", "What is the latest news on Benchgone Times?", False),
    # Offline, a route's subject comes only from the question: it names the topic.
    (
        "offline: 1 path, one fetch step",
        "What is the latest news about chips on Benchwire Daily?",
        True,
    ),
    ("model: a careless writer", "What is the careless latest news on Benchwire Daily?", False),
]


def _configure(rsshub_url: str, llm_url: str) -> None:
    settings.RSSHUB_URL = rsshub_url
    settings.RSSHUB_ACCESS_KEY = ""
    settings.OPENAI_BASE_URL = llm_url
    settings.OPENAI_API_KEY = "sk-bench-not-a-secret"
    settings.OPENAI_ROUTER_MODEL = settings.OPENAI_WRITER_MODEL = "bench-model"
    settings.LLM_DAILY_TOKEN_BUDGET = 10**12
    # Every run fetches: a path served from an earlier run's fetch would take no time, and the
    # critical path would count a fetch that never happened.
    settings.FETCH_FRESH_SECONDS = 0


def _print_scenario(label: str, runs: list[Run]) -> None:
    if not runs[0].critical:  # nothing was fetched or asked: there is no path to compare with
        print(f"\n{label}: no fetch and no model call; outcomes {Counter(r.status for r in runs)}")
        return
    ratios = [r.wall / r.critical for r in runs]
    first = runs[0]
    statuses = Counter(r.status for r in runs)
    target = f"target <= {TARGET}" if first.llm_calls else "no target: no model call to hide in"
    print(f"\n{label}  ({len(runs)} runs, {dict(statuses)})")
    print(f"  critical path  {first.critical:.2f} s = {first.llm_calls} LLM calls x "
          f"{LLM_DELAY:.2f} s + {first.fetch_steps} fetch steps x {FETCH_DELAY:.2f} s")  # fmt: skip
    walls = [r.wall for r in runs]
    print(f"  wall           median {statistics.median(walls):.3f} s, "
          f"best {min(walls):.3f} s, worst {max(walls):.3f} s")  # fmt: skip
    print(f"  wall / critical median {statistics.median(ratios):.3f}, best {min(ratios):.3f}, "
          f"worst {max(ratios):.3f}  ({target})")  # fmt: skip
    queries = [r.queries for r in runs]
    verbs = first.verbs.most_common()
    print(f"  queries / run  median {statistics.median(queries):.0f} "
          f"(min {min(queries)}, max {max(queries)}); connections opened / run "
          f"{statistics.median(r.connects for r in runs):.0f}")  # fmt: skip
    print(f"  by statement   {', '.join(f'{v} {n}' for v, n in verbs)}")
    llm = [ms for r in runs for ms in r.llm_client_ms]
    fetch = [ms for r in runs for ms in r.fetch_client_ms]
    if llm:
        print(f"  LLM call as the client saw it: median {statistics.median(llm):.0f} ms "
              f"(stand-in delay {LLM_DELAY * 1000:.0f} ms)")  # fmt: skip
    if fetch:
        print(f"  fetch as the client saw it:    median {statistics.median(fetch):.0f} ms "
              f"(stand-in delay {FETCH_DELAY * 1000:.0f} ms)")  # fmt: skip
    print(f"  steps / run    {first.steps}")
    if first.claims:
        _print_claims(runs)
    nodes: dict[str, list[float]] = defaultdict(list)
    for run in runs:
        for node, seconds in run.node_extra.items():
            nodes[node].append(seconds)
    spans = ", ".join(f"{n} {statistics.median(v) * 1000:+.0f}" for n, v in nodes.items())
    print(f"  beyond the stand-ins, ms (median): {spans}")


def _print_claims(runs: list[Run]) -> None:
    """The writer contract's figures: sentences written, dropped by reason, share cited."""
    totals: Counter[str] = Counter()
    for run in runs:
        totals.update({k: v for k, v in run.claims.items() if isinstance(v, int)})
    produced, kept = totals.pop("produced", 0), totals.pop("kept", 0)
    dropped = ", ".join(f"{reason} {n}" for reason, n in sorted(totals.items())) or "none"
    share = statistics.mean(r.cited_share for r in runs)
    print(f"  writer         {produced} sentences produced, {kept} kept; dropped: {dropped}")
    print(f"  final briefs   {share:.0%} of their sentences cite an item (target: all)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7, help="measured runs per scenario")
    args = parser.parse_args()
    print(f"database: {connection.vendor}; python {sys.version.split()[0]}; LLM delay "
          f"{LLM_DELAY * 1000:.0f} ms, fetch delay {FETCH_DELAY * 1000:.0f} ms")  # fmt: skip
    counter = QueryCounter()
    with throwaway_database(), stand_ins() as (rsshub_url, llm_url):
        _configure(rsshub_url, llm_url)
        catalog_prepare()
        owner = get_user_model().objects.create_user("bench")
        counter.install(connection)
        connection_created.connect(counter.connected, weak=False)
        cold = run_once(owner, SCENARIOS[0][1], offline=False, counter=counter)
        print(f"cold first run (index build, connections, parse worker): {cold.wall:.3f} s, "
              f"{cold.queries} queries")  # fmt: skip
        for label, question, offline in SCENARIOS:
            runs = [run_once(owner, question, offline=offline, counter=counter)
                    for _ in range(args.runs)]  # fmt: skip
            _print_scenario(label, runs)
        profile_scenario(owner, SCENARIOS[0][1], counter, args.runs)
        connection_created.disconnect(counter.connected)
        print("\nunit costs (median of 40, ms):")
        for label, ms in unit_costs(owner).items():
            print(f"  {label:66} {ms:6.2f}")
    offline_brief_timings()


if __name__ == "__main__":
    main()
