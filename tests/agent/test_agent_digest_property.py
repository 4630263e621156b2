"""Property: the offline brief invents nothing. Every line is the lead template filled with the
numbers the items give, a key term every item it cites holds, or an entry whose title and
sentence are an item's own text; no citation points outside the items."""

# ruff: noqa: RUF001  (Chinese punctuation in the item texts is the point)

import re
import unicodedata
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from agent.question import TimeWindow
from agent.summary.digest import brief_extractive
from agent.summary.draft import SourceItem, items_select

AS_OF = datetime(2026, 3, 11, 15, 30, tzinfo=UTC)
LATEST = TimeWindow("latest")
WORDS = [
    "chip", "prices", "fell", "sharply", "Nvidia", "port", "strike", "ends", "workers",
    "小米", "发布", "新车", "售价", "关税", "影响", "出口", "芯片", "价格", "下跌",
    "Read more", "点击查看原文", "本文来自36氪", "[1]", "*bold*", "<b>", "#", "(x)",
]  # fmt: skip
ENDS = [".", "。", "!", "！", "?", "，", ",", " ", ""]
SOURCES = [("Alpha Wire", "/alpha/flash"), ("Beta Daily", "/beta/tech"), ("36氪", "/36kr/news")]
ENTRY_RE = re.compile(
    r"^- \*\*(?P<title>.*)\*\* · (?P<sources>.*) · (?P<time>.*?) (?P<cites>(?:\[\d+\] ?)+)$"
)
LEAD_RE = re.compile(
    r"^As of 2026-03-11 15:30 UTC: (?P<items>\d+) items? from (?P<sources>\d+) sources?"
    r"(?: in the last (?P<span>\d+) (?P<unit>hours?|days?); newest (?P<newest>.+)\.|"
    r", none of them dated\.)$"
)

phrase = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from(ENDS)), min_size=0, max_size=14
).map(lambda parts: " ".join(w + e for w, e in parts))
an_item = st.builds(
    lambda title, summary, hours, source, pk: SourceItem(
        0, pk, title, f"https://e.x/{pk}", summary,
        None if hours is None else AS_OF - timedelta(hours=hours), source[1], source[0],
    ),
    phrase, phrase, st.one_of(st.none(), st.floats(0, 200)), st.sampled_from(SOURCES),
    st.integers(1, 10**6),
)  # fmt: skip


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def flat(text: str) -> str:
    return " ".join(text.split())


def folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def check_lead(line: str, items: list[SourceItem]) -> None:
    match = LEAD_RE.match(line)
    assert match, line
    assert int(match["items"]) == len(items)
    assert int(match["sources"]) == len({i.path for i in items})
    dated = [i.published_at for i in items if i.published_at]
    assert bool(match["span"]) == bool(dated)
    if dated:
        assert max(dated).strftime("%H:%M UTC") in match["newest"]
        hours = (AS_OF - min(dated)).total_seconds() / 3600
        span = int(match["span"]) * (24 if match["unit"].startswith("day") else 1)
        assert hours <= span < hours + 24 + 1


DAY_RE = re.compile(r"^(?:\d{4}-)?\d{2}-\d{2}$")  # a day, as the agreement lines write one


def check_agreement(line: str, entry: list[SourceItem]) -> None:
    """Each fact of an agreement line is in an item it cites (a day may be written as a date),
    and cites only the entry's items; each side of a difference is its item's source."""
    by_n = {i.n: i for i in entry}
    head, facts = line.split(": ", 1)
    for fact in facts.split("; "):
        said = re.match(
            r"^(?:(?P<source>.+?) says )?(?P<value>.+?) (?P<cites>(?:\[\d+\] ?)+)$", fact
        )
        assert said, line
        cited = [int(n) for n in re.findall(r"\d+", said["cites"])]
        assert set(cited) <= set(by_n), line
        value = unescape(said["value"])
        if head == "Sources differ":
            assert {by_n[n].source for n in cited} == {unescape(said["source"])}, line
        texts = [folded(f"{by_n[n].title} {by_n[n].summary}") for n in cited]
        for part in value.split(", "):
            assert DAY_RE.match(part) or any(folded(part) in t for t in texts), line


@settings(max_examples=150, deadline=None)
@given(st.lists(an_item, min_size=1, max_size=40, unique_by=lambda i: i.item_id))
def test_every_line_of_the_offline_brief_comes_from_the_items_or_the_measured_numbers(items):
    chosen, in_window = items_select(items, window=LATEST, keywords=["chip", "小米"])
    draft = brief_extractive(chosen, attempted=[], window=LATEST, in_window=in_window, as_of=AS_OF)
    by_n = {i.n: i for i in chosen}

    lines = draft.body.split("\n## ")[0].splitlines()
    check_lead(lines[0], chosen)
    entry: list[SourceItem] = []
    for line in lines[1:]:
        bare = re.sub(r"\\.", "", line)
        numbers = [int(n) for n in re.findall(r"\[(\d+)\]", bare)]
        assert set(numbers) <= set(by_n), line
        if not line:
            continue
        if line.startswith("Key terms: "):
            for term, cites in re.findall(r"(\S+) ((?:\[\d+\] ?)+)", line[len("Key terms: ") :]):
                for n in map(int, re.findall(r"\d+", cites)):
                    assert folded(unescape(term)) in folded(f"{by_n[n].title} {by_n[n].summary}")
        elif line.startswith("- "):
            match = ENTRY_RE.match(line.removesuffix("\\"))
            assert match, line
            entry = [by_n[int(n)] for n in re.findall(r"\d+", match["cites"])]
            title = unescape(match["title"])
            assert title == "(untitled)" or any(title == flat(i.title) for i in entry), line
        elif line.startswith(("  Sources agree: ", "  Sources differ: ")):
            check_agreement(line.removesuffix("\\").strip(), entry)
        else:
            assert line.startswith("  ") and entry, line
            # A sentence followed by agreement lines ends in a markdown line break.
            sentence = unescape(line.strip().removesuffix("\\")).removesuffix("…")
            assert any(sentence in flat(i.summary) for i in entry), line
