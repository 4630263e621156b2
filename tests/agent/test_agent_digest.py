"""The offline brief on fixed item sets (English, Chinese, mixed): the lead line, the ranking,
the folding of one story told by two outlets, the sentence under each entry and the key terms."""

# ruff: noqa: RUF001  (Chinese punctuation in the item texts is the point)

import re
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import translation

from agent.question import TimeWindow
from agent.summary.answer import background_load
from agent.summary.digest import brief_extractive, sentence_pick
from agent.summary.draft import SourceItem, items_select
from agent.summary.folding import same_story, stories_fold
from agent.summary.terms import background_counts
from fetching.models import Feed, Item

AS_OF = datetime(2026, 3, 11, 15, 30, tzinfo=UTC)
LATEST = TimeWindow("latest")


def item(title, summary="", hours_ago=1.0, *, source="Alpha Wire", path="/alpha/flash", pk=0):
    published = AS_OF - timedelta(hours=hours_ago) if hours_ago is not None else None
    pk = pk or abs(hash((title, path))) % 10**6
    return SourceItem(0, pk, title, f"https://e.x/{pk}", summary, published, path, source)


NVIDIA_A = item(
    "Nvidia tops forecasts as data-center sales jump",
    "Nvidia reported quarterly revenue of 39.3 billion dollars on Wednesday, beating analyst "
    "forecasts as data-center sales jumped 93 percent. Read more",
    2,
)
NVIDIA_B = item(
    "Strong AI demand lifts Nvidia's quarter",
    "Read more at our site. Nvidia reported quarterly revenue of 39.3 billion dollars on "
    "Wednesday, beating analyst forecasts, as data-center sales jumped 93 percent.",
    1,
    source="Beta Daily",
    path="/beta/tech",
)
PORT = item(
    "Port strike ends",
    "Port strike ends. Dockworkers in Rotterdam returned to work after a wage deal was signed "
    "overnight. Ships are queuing outside.",
    0.5,
    source="Beta Daily",
    path="/beta/world",
)
CHIP_TEXT = item(
    "Markets close higher",
    "Shares of Nvidia and other chip makers rose as investors bet on steady demand for servers.",
    0.25,
    source="Gamma News",
    path="/gamma/markets",
)

XIAOMI_A = item(
    "小米发布SU7 Ultra，售价52.99万元",
    "点击查看原文。36氪获悉，小米汽车今晚正式发布SU7 Ultra量产版，售价52.99万元，"
    "预订量突破一万台。本文来自36氪。",
    1,
    source="36氪",
    path="/36kr/newsflashes",
)
XIAOMI_B = item(
    "SU7 Ultra正式上市 小米汽车定价公布",
    "小米汽车今晚正式发布SU7 Ultra量产版，售价52.99万元，预订量突破一万台！"
    "雷军表示交付将于下月开始。",
    2,
    source="IT之家",
    path="/ithome/ranking",
)
WEATHER = item(
    "北方迎来降温",
    "中央气象台发布寒潮预警，北方大部地区气温将下降八到十度，局地伴有大风。",
    3,
    source="IT之家",
    path="/ithome/ranking",
)


def brief(items, *, keywords=(), background=(Counter(), 0), note=""):
    chosen, in_window = items_select(list(items), window=LATEST, keywords=list(keywords))
    draft = brief_extractive(
        chosen,
        attempted=[],
        window=LATEST,
        in_window=in_window,
        as_of=AS_OF,
        note=note,
        background=background,
    )
    return chosen, draft


def test_the_english_lead_line_counts_items_sources_span_and_newest():
    _, draft = brief([NVIDIA_A, NVIDIA_B, PORT, CHIP_TEXT])

    assert draft.body.splitlines()[0] == (
        "As of 2026-03-11 15:30 UTC: 4 items from 4 sources in the last 2 hours; newest 15:15 UTC."
    )


def test_the_chinese_lead_line_says_the_same_in_chinese():
    with translation.override("zh-hans"):
        _, draft = brief([XIAOMI_A, XIAOMI_B, WEATHER])

    assert draft.body.splitlines()[0] == (
        "截至 2026-03-11 15:30 UTC：过去 3 小时内共有来自 2 个来源的 3 条内容，"
        "最新一条发布于 14:30 UTC。"
    )


def test_a_lead_over_more_than_two_days_counts_days_and_dates_the_newest():
    old = [item("Old chip story one", hours_ago=30), item("Old port story two", hours_ago=60)]

    _, draft = brief(old)

    assert draft.body.splitlines()[0] == (
        "As of 2026-03-11 15:30 UTC: 2 items from 1 source in the last 3 days; "
        "newest 2026-03-10 09:30 UTC."
    )


def test_a_lead_over_more_than_a_month_gives_the_oldest_date():
    _, draft = brief([item("Archive piece", hours_ago=24 * 400), item("Fresh piece")])

    assert ": 2 items from 1 source since 2025-02-04; newest 14:30 UTC." in draft.body


def test_a_keyword_in_the_title_ranks_above_one_only_in_the_text_then_newest():
    chosen, _ = brief([CHIP_TEXT, PORT, NVIDIA_A], keywords=["nvidia"])

    assert [i.title for i in chosen] == [NVIDIA_A.title, CHIP_TEXT.title, PORT.title]


def test_two_outlets_with_different_titles_for_one_story_fold_into_one_entry():
    assert same_story(NVIDIA_A, NVIDIA_B)
    assert not same_story(NVIDIA_A, CHIP_TEXT)

    chosen, draft = brief([NVIDIA_A, PORT, NVIDIA_B, CHIP_TEXT], keywords=["nvidia"])

    titles = [i.title for i in chosen]
    assert titles[:2] == [NVIDIA_B.title, NVIDIA_A.title], "the newer telling leads the story"
    entries = [line for line in draft.body.splitlines() if line.startswith("- ")]
    assert len(entries) == 3
    assert entries[0] == (
        "- **Strong AI demand lifts Nvidia's quarter** · Beta Daily, Alpha Wire · "
        "2026-03-11 14:30 UTC [1] [2]\\"
    )


def test_the_same_chinese_story_from_two_outlets_folds_and_a_different_one_does_not():
    stories = stories_fold([XIAOMI_A, WEATHER, XIAOMI_B])

    assert [[i.source for i in s.items] for s in stories] == [["36氪", "IT之家"], ["IT之家"]]


def test_folding_does_not_depend_on_the_order_of_the_items():
    forward = stories_fold([NVIDIA_A, PORT, NVIDIA_B])
    backward = stories_fold([NVIDIA_B, PORT, NVIDIA_A])

    assert sorted(sorted(i.title for i in s.items) for s in forward) == sorted(
        sorted(i.title for i in s.items) for s in backward
    )


def test_the_sentence_skips_boilerplate_and_the_title_repeated():
    assert sentence_pick(NVIDIA_B.title, NVIDIA_B.summary) == (
        "Nvidia reported quarterly revenue of 39.3 billion dollars on Wednesday, beating analyst "
        "forecasts, as data-center sales jumped 93 percent."
    )
    assert sentence_pick(PORT.title, PORT.summary) == (
        "Dockworkers in Rotterdam returned to work after a wage deal was signed overnight."
    )


def test_the_chinese_sentence_ends_at_a_chinese_sentence_mark_past_the_boilerplate():
    assert sentence_pick(XIAOMI_A.title, XIAOMI_A.summary) == (
        "36氪获悉，小米汽车今晚正式发布SU7 Ultra量产版，售价52.99万元，预订量突破一万台。"
    )
    assert sentence_pick(XIAOMI_B.title, XIAOMI_B.summary).endswith("预订量突破一万台！")


def test_a_long_sentence_is_cut_at_a_clause_mark_and_says_so():
    long = "The council met, " + "and then it talked about the budget at length, " * 8 + "end."

    picked = sentence_pick("Council", long)

    assert picked.endswith("…") and len(picked) <= 201
    assert long.startswith(picked[:-1])
    assert picked[-2] != ","


def test_no_sentence_is_shown_when_the_text_has_nothing_but_the_title_and_boilerplate():
    assert sentence_pick("Port strike ends", "Port strike ends. Read more") == ""

    _, draft = brief([item("Port strike ends", "Port strike ends. Read more")])

    assert draft.body.splitlines()[2].endswith("[1]"), "no hard break without a sentence"


def test_the_entry_shows_the_picked_sentence_under_its_title_in_a_mixed_set():
    with translation.override("zh-hans"):
        _, draft = brief([XIAOMI_A, PORT, XIAOMI_B, NVIDIA_A])

    assert draft.body.splitlines()[0].startswith(
        "截至 2026-03-11 15:30 UTC：过去 2 小时内共有来自 4 个来源的 4 条内容"
    )
    assert (
        "- **小米发布SU7 Ultra，售价52.99万元** · 36氪、IT之家 · 2026-03-11 14:30 UTC ["
        in draft.body
    )
    assert (
        "  Dockworkers in Rotterdam returned to work after a wage deal was signed overnight."
        in draft.body
    )
    assert (
        "  36氪获悉，小米汽车今晚正式发布SU7 Ultra量产版，售价52.99万元，预订量突破一万台。"
        in draft.body
    )


def tariff_set():
    """Ten items, four about tariffs (关税), all saying "report" as the background also does."""
    texts = [
        ("美国宣布对进口钢铁加征关税", "商务部回应称将采取必要措施，report 显示钢铁进口下降。"),
        ("欧盟讨论关税反制清单", "欧盟委员会本周讨论反制清单，report 指出涉及农产品。"),
        ("关税影响汽车出口", "多家车企表示关税将推高成本，report 预计出口减少。"),
        ("港口吞吐量因关税下滑", "上海港吞吐量环比下降，report 称与关税有关。"),
        ("新款手机开售", "某品牌新款手机今日开售，report 称首批售罄。"),
        ("北方迎来降温", "中央气象台发布寒潮预警，report 提醒注意保暖。"),
        ("电影票房创新高", "春节档电影票房创新高，report 显示观影人次增长。"),
        ("地铁新线开通", "地铁新线今日开通运营，report 称日均客流可观。"),
        ("高校发布招生计划", "多所高校公布招生计划，report 显示名额增加。"),
        ("机器人马拉松举行", "首届机器人马拉松在京举行，report 称多队完赛。"),
    ]
    items = [
        item(t, s, hours_ago=n + 1, source=f"源{n % 3}", path=f"/p{n % 3}/x", pk=n + 1)
        for n, (t, s) in enumerate(texts)
    ]
    background = background_counts(f"report 第{n}篇 其他新闻内容" for n in range(40))
    return items, background


def test_key_terms_name_what_recurs_here_but_not_in_the_background_with_their_items():
    items, background = tariff_set()

    with translation.override("zh-hans"):
        chosen, draft = brief(items, background=background)

    line = next(line for line in draft.body.splitlines() if line.startswith("关键词："))
    carriers = [i.n for i in chosen if "关税" in i.title + i.summary]
    assert line.startswith("关键词：关税 " + " ".join(f"[{n}]" for n in carriers))
    assert "report" not in line, "a word every background item has is not a key term"
    assert len(re.findall(r" · ", line)) <= 5


def test_a_brief_of_eight_items_or_fewer_has_no_key_terms_line():
    items, background = tariff_set()

    _, draft = brief(items[:8], background=background)

    assert "Key terms" not in draft.body


@pytest.mark.django_db
def test_the_background_is_the_catalogs_other_items_not_the_ones_being_briefed():
    feed = Feed.objects.create(path="/alpha/flash")
    for n in range(3):
        Item.objects.create(feed=feed, guid_hash=f"b{n}", title=f"Daily report {n}", summary="关税")
    briefed = Item.objects.create(feed=feed, guid_hash="c", title="Zephyrcorp report")
    candidate = item("Zephyrcorp report", pk=briefed.pk)

    counts, total = background_load([candidate])

    assert total == 3
    assert (counts["report"], counts["daily"], counts["关税"]) == (3, 3, 3)
    assert counts["zephyrcorp"] == 0, "the items being briefed are not their own background"
