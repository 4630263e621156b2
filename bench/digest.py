"""Time to build the offline brief (no model, no database): the selection, folding, sentences,
key terms and markdown, for 30 and 300 fetched items (targets: under 20 ms and under 150 ms).

The items are made up but shaped like real feeds: Chinese and English titles, summaries of a few
hundred characters with boilerplate, one story in three told again by another outlet, and a
background of 500 other items for the key terms. Two figures per size: the brief as a run builds
it (the selection keeps ``MAX_ITEMS``), and the brief over every item, uncapped.

    SECRET_KEY=x .venv/bin/python bench/digest.py
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rsshub_agent.settings")

import django

django.setup()

from django.utils import translation  # noqa: E402

from agent.question import TimeWindow  # noqa: E402
from agent.summary.digest import Background, brief_extractive  # noqa: E402
from agent.summary.draft import SourceItem, items_select, renumbered  # noqa: E402
from agent.summary.terms import background_counts  # noqa: E402

AS_OF = datetime(2026, 12, 1, 14, 30, tzinfo=UTC)
ZH = str.split("小米 汽车 发布 芯片 价格 关税 出口 模型 数据 市场 用户 增长 融资 机器人 电池 手机")
EN = str.split("chip prices model data market users growth funding robot battery phone platform")
SOURCES = [("36氪", "/36kr/newsflashes"), ("IT之家", "/ithome/ranking"), ("HN", "/hn/best")]
ROUNDS = 30


def _text(rng: random.Random, words: int) -> str:
    zh = rng.random() < 0.6
    pool, join, end = (ZH, "", "。") if zh else (EN, " ", ". ")
    sentences = [join.join(rng.choices(pool, k=rng.randint(6, 14))) for _ in range(words // 8)]
    return end.join(sentences) + end + ("点击查看原文" if zh else "Read more")


def items_made(n: int, seed: int = 7) -> list[SourceItem]:
    rng = random.Random(seed)
    items = []
    for k in range(n):
        source, path = SOURCES[k % len(SOURCES)]
        if k % 3 == 2:  # the previous story, told again by another outlet
            prev = items[-1]
            title, summary = f"{prev.title[:6]} {_text(rng, 8)[:12]}", prev.summary
        else:
            title, summary = _text(rng, 8)[:30], _text(rng, 48)
        when = AS_OF - timedelta(minutes=rng.randint(1, 24 * 60))
        items.append(SourceItem(0, k + 1, title, f"https://e.x/{k}", summary, when, path, source))
    return items


def _median_ms(call) -> float:
    samples = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def offline_brief_ms(n: int, background: Background, *, capped: bool) -> float:
    candidates = items_made(n)
    window = TimeWindow("latest")

    def build() -> None:
        if capped:
            chosen, in_window = items_select(candidates, window=window, keywords=["小米", "chip"])
        else:
            chosen, in_window = renumbered(candidates), True
        brief_extractive(
            chosen,
            attempted=[],
            window=window,
            in_window=in_window,
            as_of=AS_OF,
            background=background,
        )

    with translation.override("zh-hans"):
        return _median_ms(build)


def offline_brief_timings() -> None:
    """Print the median build time of the offline brief for 30 and 300 fetched items."""
    other = items_made(500, seed=11)
    background = background_counts(f"{i.title} {i.summary}" for i in other)
    print(f"\noffline brief build (median of {ROUNDS}, ms; targets: 30 < 20, 300 < 150):")
    for n in (30, 300):
        as_run = offline_brief_ms(n, background, capped=True)
        every = offline_brief_ms(n, background, capped=False)
        print(f"  {n:4d} items: as a run builds it {as_run:7.2f}   every item {every:7.2f}")


if __name__ == "__main__":
    offline_brief_timings()
