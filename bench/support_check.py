"""Time of the support check (``agent.summary.claims.claims_check`` with the brief's language):
a 30-sentence brief over 30 items, Chinese and English (target: under 50 ms at the median), and
how long the Chinese segmenter's dictionary takes to load once per process.

The items are made up but shaped like real feeds: titles and summaries of a few hundred
characters with figures, names and dates. The brief mixes what a model writes: sentences copied
or paraphrased from their item, some citing the wrong item (re-cited or dropped), some with an
invented figure or name, an order to the reader, and a sentence in the other language.

    SECRET_KEY=x .venv/bin/python bench/support_check.py
"""

from __future__ import annotations

import os
import random
import re
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rsshub_agent.settings")

import django

django.setup()

from agent.summary.claims import claims_check  # noqa: E402
from agent.summary.draft import SourceItem  # noqa: E402
from catalog.segment import segmenter_warm  # noqa: E402

AS_OF = datetime(2026, 12, 1, 14, 30, tzinfo=UTC)
ROUNDS = 30
SENTENCES = ITEMS = 30
EN_NAMES = str.split("Xiaomi Nvidia Huawei Tesla OpenAI Samsung Apple Alibaba Tencent BYD")
ZH_NAMES = str.split("小米 英伟达 华为 特斯拉 阿里巴巴 腾讯 比亚迪 字节跳动 百度 京东")
EN_WORDS = str.split("chip prices model data market users growth funding robot battery phone")
ZH_WORDS = str.split("芯片 价格 模型 数据 市场 用户 增长 融资 机器人 电池 手机 出口")


def _item(n: int, rng: random.Random, zh: bool) -> SourceItem:
    names, words = (ZH_NAMES, ZH_WORDS) if zh else (EN_NAMES, EN_WORDS)
    name, figure = rng.choice(names), rng.randint(2, 900)
    picked = rng.sample(words, 4)
    if zh:
        title = f"{name}{picked[0]}{picked[1]}增长{figure}亿元"
        body = f"{name}周二表示\uff0c{picked[2]}和{picked[3]}同比上涨{figure / 10:.1f}%。" * 6
    else:
        title = f"{name} {picked[0]} {picked[1]} up {figure} million dollars"
        body = (
            f"{name} said its {picked[2]} and {picked[3]} grew {figure / 10:.1f}% on Tuesday. " * 5
        )
    published = AS_OF - timedelta(hours=n)
    return SourceItem(n, n, title, f"https://news.example/{n}", body, published, "/b", "Bench")


def _sentence(k: int, items: list[SourceItem], rng: random.Random, zh: bool) -> str:
    item = items[k % len(items)]
    end = "。" if zh else "."
    kind = k % 6
    if kind == 0:  # copied from its item
        return f"{item.title} [{item.n}]{end}"
    if kind == 1:  # paraphrased
        return f"{item.summary.split(end)[0]} [{item.n}]{end}"
    if kind == 2:  # the wrong item cited
        return f"{item.title} [{items[(k + 7) % len(items)].n}]{end}"
    if kind == 3:  # an invented figure
        invented = re.sub(r"\d+", str(rng.randint(1000, 9999)), item.title, count=1)
        return f"{invented} [{item.n}]{end}"
    if kind == 4:  # an order to the reader
        order = "请立即访问 evil.example/claim 领取" if zh else "Visit evil.example/claim now"
        return f"{order} [{item.n}]{end}"
    return "Shares rose on the news [1]." if zh else "股价随之上涨 [1]。"  # other language


def _brief(zh: bool, rng: random.Random) -> tuple[str, list[SourceItem]]:
    items = [_item(n, rng, zh) for n in range(1, ITEMS + 1)]
    body = "\n".join(f"- {_sentence(k, items, rng, zh)}" for k in range(SENTENCES))
    return body, items


def _median_ms(zh: bool) -> tuple[float, dict]:
    rng = random.Random(28)
    body, items = _brief(zh, rng)
    language = "zh" if zh else "en"
    times, report = [], None
    for _ in range(ROUNDS):
        started = time.perf_counter()
        report = claims_check(body, items, now=AS_OF, language=language)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), report.as_payload()


def main() -> None:
    started = time.perf_counter()
    segmenter_warm()
    print(f"segmenter dictionary load, once per process: {time.perf_counter() - started:.2f} s")
    print(f"\nsupport check, {SENTENCES} sentences over {ITEMS} items (median of {ROUNDS}, ms;")
    print("target under 50):")
    for zh in (False, True):
        median, payload = _median_ms(zh)
        print(f"  {'zh' if zh else 'en'}: {median:7.2f} ms   {payload}")


if __name__ == "__main__":
    main()
