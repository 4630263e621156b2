"""Question reading benchmark: catalog search and the reading of the question, per question.

    .venv/bin/python bench/reading.py [--reps N]

On a throwaway database (as ``bench/catalog.py``: a temporary SQLite file, or a scratch
database on the PostgreSQL server ``DATABASE_URL`` names) holding the seed catalog, every
question of the eval sets (``eval/routing-dev.jsonl``, ``subject-intent-dev.jsonl``,
``reading-dev.jsonl``, ``reading-fresh.jsonl``, ``reading-fresh2.jsonl``,
``reading-sixteenth.jsonl``) goes through what the
agent does with a question before any fetch:

- search: ``catalog.search.search_catalog`` (platforms and routes);
- reading: the offline rewrite (``agent.question.rewrite_offline``) and the run's one reading
  of it (``agent.reading``): its subjects for the first platform found and the topic the topic
  check would look for, and the routes a page address in it maps to (``fetching.radar``; a
  database query only when it gives one). Chinese goes through jieba, its dictionary loaded
  before the rounds (a worker loads it once, before it forks).

It prints p50 and p99 in milliseconds, wall and thread CPU time, for each and for both together
(the aim: under 10 ms p50 per question).
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # as in bench/catalog.py: the project root, not this folder
SETS = (
    "routing-dev.jsonl",
    "subject-intent-dev.jsonl",
    "reading-dev.jsonl",
    "reading-fresh.jsonl",
    "reading-fresh2.jsonl",
    "reading-sixteenth.jsonl",  # two of its questions give a page's address
)


def questions_read() -> list[str]:
    out = []
    for name in SETS:
        for line in (ROOT / "eval" / name).read_text().splitlines():
            if line.strip():
                out.append(json.loads(line)["question"])
    return out


def question_search(question: str):
    from catalog.search import search_catalog

    return search_catalog(question)


def question_reading(question: str, platform: tuple[str, ...]):
    from agent.question import rewrite_offline
    from agent.reading import question_reading
    from fetching.radar import radar_hits

    reading = question_reading(question, rewrite_offline(question))
    asked = reading.subjects(platform)
    subject = reading.topic({w.casefold() for w in platform})
    return asked, subject, radar_hits(question)


def timed(call, cpu: list[float]) -> float:
    started, started_cpu = time.perf_counter_ns(), time.thread_time_ns()
    call()
    cpu.append((time.thread_time_ns() - started_cpu) / 1e6)
    return (time.perf_counter_ns() - started) / 1e6


def measure(questions: list[str], reps: int) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and CPU milliseconds of search, reading and both, per question, ``reps`` rounds."""
    out = {k: ([], []) for k in ("search", "reading", "both")}
    for _ in range(reps):
        for question in questions:
            found: list = []
            wall_s = timed(
                lambda q=question, f=found: f.append(question_search(q)), out["search"][1]
            )
            hits = found[0].platforms
            platform = (hits[0].namespace, hits[0].name) if hits else ()
            wall_r = timed(lambda q=question, p=platform: question_reading(q, p), out["reading"][1])
            out["search"][0].append(wall_s)
            out["reading"][0].append(wall_r)
            out["both"][0].append(wall_s + wall_r)
            out["both"][1].append(out["search"][1][-1] + out["reading"][1][-1])
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20, help="rounds over the questions")
    args = parser.parse_args()
    questions = questions_read()
    from bench.catalog import django_setup, django_teardown

    with tempfile.TemporaryDirectory(prefix="rsshub-bench-") as workdir:
        database = django_setup(workdir)
        try:
            from catalog.importer import catalog_import, catalog_read_file
            from catalog.seed import SEED_PATH

            catalog_import(catalog_read_file(SEED_PATH))
            from catalog.segment import segmenter_warm

            segmenter_warm()  # once per process, as the worker does before it forks
            measure(questions[:5], 1)  # warm: the search index, the regexes, imports
            results = measure(questions, args.reps)
        finally:
            django_teardown(database)
    print(f"{len(questions)} questions x {args.reps} rounds on {database}")
    print(f"{'':<8} {'p50 ms':>8} {'p99 ms':>8} {'p50 cpu':>8} {'p99 cpu':>8}")
    for label, (wall, cpu) in results.items():
        cells = (percentile(wall, 0.5), percentile(wall, 0.99))
        cells += (percentile(cpu, 0.5), percentile(cpu, 0.99))
        print(f"{label:<8} " + " ".join(f"{c:>8.2f}" for c in cells))


if __name__ == "__main__":
    main()
