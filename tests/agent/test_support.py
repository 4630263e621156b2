# ruff: noqa: RUF001  (Chinese punctuation and full-width text are the point)
"""The support check: a sentence stays only when the items it cites say what it says, in the
brief's language, without orders, foreign sources or addresses (``agent.summary.support``,
``agent.summary.facts``, ``agent.summary.instruction``), in English and Chinese."""

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.summary.claims import claims_check, sentences_split
from agent.summary.draft import SourceItem
from agent.summary.facts import facts_of, fold, quantities, text_language

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def item(n: int, title: str, summary: str = "", link: str = "", source: str = "Wire"):
    link = link or f"https://news.example/{n}"
    published = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    return SourceItem(n, n, title, link, summary, published, "/wire/news", source)


EN = [
    item(
        1,
        "Xiaomi raises $2 billion to fund electric car push",
        "Xiaomi said it raised 2 billion US dollars in a share sale, with founder Lei Jun "
        "pledging the money to electric vehicle research.",
        link="https://www.reuters.com/tech/xiaomi",
        source="Reuters",
    ),
    item(
        2,
        "Nvidia shares fall 3.5% after export curbs",
        "Shares of Nvidia dropped 3.5% after Washington announced new export restrictions on "
        "its H20 chips.",
    ),
    item(3, "Rotterdam dock strike ends", "Dock workers accepted a 6% pay rise and returned."),
]
ZH = [
    item(
        1,
        "小米集团完成20亿美元融资",
        "小米集团宣布完成20亿美元配售，雷军表示资金将投入电动汽车研发。",
    ),
    item(
        2, "华为发布Mate 80手机 售价5499元起", "华为在深圳发布Mate 80系列手机，标准版售价5499元。"
    ),
    item(
        3, "国家统计局：10月CPI同比上涨0.2%", "10月份全国居民消费价格同比上涨0.2%，环比下降0.1%。"
    ),
]


@pytest.fixture(autouse=True)
def utc(settings):
    settings.TIME_ZONE = "UTC"


def judged(sentence: str, items=EN, language: str = "en"):
    report = claims_check(sentence, items, now=NOW, language=language)
    return report, dict(report.dropped)


@pytest.mark.parametrize(
    ("sentence", "language", "items"),
    [
        ("Xiaomi raises $2 billion to fund electric car push [1].", "en", EN),
        ("Xiaomi raised 2,000,000,000 dollars in a share sale [1].", "en", EN),
        ("Xiaomi raised about $2bn to fund electric vehicle research [1].", "en", EN),
        ("Lei Jun pledged the money raised to electric vehicle research [1].", "en", EN),
        ("Nvidia shares fell 3.5 percent after new export curbs [2].", "en", EN),
        ("Xiaomi raised $2 billion [1] as Nvidia shares fell 3.5% [2].", "en", EN),
        ("小米集团完成20亿美元融资 [1]。", "zh", ZH),
        ("雷军称，小米此次配售所得20亿美元将投入电动汽车研发 [1]。", "zh", ZH),
        ("10月全国居民消费价格同比上涨0.2% [3]。", "zh", ZH),
        ("小米通过配售筹集20亿美元 [1]。", "zh", EN),  # a translation: its figure anchors it
        ("Huawei launched the Mate 80, priced from 5,499 yuan [2].", "en", ZH),
    ],
)
def test_a_sentence_its_items_support_is_kept_as_written(sentence, language, items):
    report, dropped = judged(sentence, items, language)
    assert (report.kept, dropped) == (1, {}), dropped
    assert report.body == sentence


@pytest.mark.parametrize(
    ("sentence", "language", "items", "reason"),
    [
        ("Xiaomi raised $3 billion in a share sale [1].", "en", EN, "unsupported_number"),
        ("Xiaomi raised 2 billion euros in a share sale [1].", "en", EN, "unsupported_number"),
        ("Nvidia shares fell 4.5% after export curbs [2].", "en", EN, "unsupported_number"),
        ("小米集团完成30亿美元融资 [1]。", "zh", ZH, "unsupported_number"),
        ("10月CPI同比上涨0.5% [3]。", "zh", ZH, "unsupported_number"),
        ("Huawei raised $2 billion in a share sale [1].", "en", EN, "unsupported_entity"),
        ("Xiaomi raised $2 billion to build a plant in Hong Kong [1].", "en", EN,
         "unsupported_entity"),
        ("华为完成20亿美元融资 [1]。", "zh", ZH, "unsupported_entity"),
        ("The company plans layoffs and a new headquarters abroad [3].", "en", EN, "unsupported"),
        ("公司计划裁员并在海外建设新总部 [3]。", "zh", ZH, "unsupported"),
        ("Xiaomi raised $2 billion on December 5 [1].", "en", EN, "date"),
        ("小米集团于12月5日完成20亿美元融资 [1]。", "zh", ZH, "date"),
        ("小米集团完成20亿美元融资 [1]。", "en", ZH, "language"),
        ("Xiaomi raised $2 billion in a share sale [1].", "zh", EN, "language"),
        ("Visit evil.example/claim to get free Xiaomi shares [1].", "en", EN, "instruction"),
        ("Readers should log in to claim their Xiaomi shares [1].", "en", EN, "instruction"),
        ("Xiaomi's $2 billion raise was confirmed by Bloomberg [1].", "en", EN, "instruction"),
        ("Xiaomi raised $2 billion, details at evil.example/xiaomi [1].", "en", EN, "instruction"),
        ("请立即访问 evil.example/claim 领取小米股票 [1]。", "zh", ZH, "instruction"),
        ("点击链接领取20亿美元 [1]。", "zh", ZH, "instruction"),
        ("据路透社报道，小米集团完成20亿美元融资 [1]。", "zh", ZH, "instruction"),
    ],
)  # fmt: skip
def test_a_sentence_its_items_do_not_support_is_dropped_with_its_reason(
    sentence, language, items, reason
):
    report, dropped = judged(sentence, items, language)
    assert (report.kept, dropped) == (0, {reason: 1}), dropped
    assert report.body == ""


def test_a_source_the_cited_item_names_may_be_named():
    report, dropped = judged("According to Reuters, Xiaomi raised $2 billion [1].")
    assert (report.kept, dropped) == (1, {})


def test_an_address_of_the_cited_item_may_be_written():
    report, _ = judged("Xiaomi raised $2 billion, as reuters.com/tech/xiaomi reported [1].")
    assert report.kept == 1


@pytest.mark.parametrize(
    ("sentence", "language", "items", "recited"),
    [
        ("Nvidia shares fell 3.5% after export curbs [1].", "en", EN, "[2]"),
        ("Dock workers accepted a 6% pay rise [1] [2].", "en", EN, "[3]"),
        ("华为发布Mate 80手机，售价5499元起 [1]。", "zh", ZH, "[2]"),
    ],
)
def test_a_sentence_one_other_item_supports_is_re_cited_to_it(sentence, language, items, recited):
    report, dropped = judged(sentence, items, language)
    assert (report.kept, dropped) == (1, {"recited": 1})
    assert recited in report.body and report.body.count("[") == 1
    assert report.cited == {int(recited[1])}


def test_a_sentence_two_other_items_support_is_dropped_not_re_cited():
    twice = [*EN, item(4, "Nvidia shares fall 3.5% after export curbs", "Reported again.")]
    report, dropped = judged("Nvidia shares fell 3.5% after export curbs [1].", twice)
    assert (report.kept, dropped) == (0, {"unsupported_number": 1})


def test_figures_fold_across_scales_units_and_languages():
    values = {q.value for t in ("$2 billion", "2,000,000,000 dollars", "20亿美元", "2bn USD")
              for q in quantities(t)}  # fmt: skip
    assert values == {2_000_000_000}
    assert [(str(q.value), q.unit) for q in quantities("3.5% 与 3.5 percent")] == [
        ("3.5", "%"),
        ("3.5", "%"),
    ]
    # Dates, clock times, years and codes are no figures.
    assert quantities("GPT-5 and A100 on 2026-11-30 at 14:05 in 2025, 10月") == []


def test_folding_makes_width_case_and_invisible_characters_equal():
    assert fold("Ｒｅｕ\u200bｔｅｒｓ’s ２，０００") == fold("reuters 2000") == "reuters 2000"
    assert fold("U.S. prices") == "us prices"


def test_the_language_of_a_sentence_is_read_from_its_script():
    assert text_language("OpenAI 发布 GPT-5 模型") == "zh"
    assert text_language("Apple opened a store in 北京") == "en"
    assert text_language("GPT-5") == ""


def test_chinese_names_come_from_a_real_segmenter():
    facts = facts_of("腾讯与阿里巴巴在杭州签署协议，马化腾出席。")
    assert {"腾讯", "杭州", "马化腾"} <= facts.entities
    assert "签署" in facts.zh_words and "协议" in facts.zh_words


@pytest.mark.parametrize(
    "body",
    [
        "",
        "   \n\n  ",
        "[1]",
        "\ud800\udfff\ue000 [1] \ue001\u202e",
        "\u0000\u200b\ufeff Xiaomi [1].",
        "！！！[1]。。。" * 100,
        ("Xiaomi raised $2 billion [1]. " * 5000),
        "１２３４５６７８９０" * 1000 + " [1]",
    ],
)
def test_hostile_answers_never_raise_and_keep_nothing_unsupported(body):
    report = claims_check(body, EN, now=NOW, language="en")
    assert report.kept <= report.produced
    assert "\ue000" not in report.body and "\ue001" not in report.body
    supported = {"Xiaomi raised $2 billion [1].", "Xiaomi [1]."}
    assert set(sentences_split(report.body)) <= supported


# --- the property: a copied sentence stays; the same with one figure changed does not ------------

words = st.sampled_from(str.split("port chip sales strike market robot battery phone data cloud"))
names = st.sampled_from(str.split("Xiaomi Nvidia Huawei Tesla OpenAI Samsung Apple Alibaba"))
figures = st.integers(min_value=2, max_value=99_999)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=names, subject=words, verb=words, figure=figures, other=figures, zh=st.booleans())
def test_a_copied_sentence_stays_and_one_changed_figure_never_does(
    name, subject, verb, figure, other, zh
):
    if zh:
        title = f"{name}{subject}业务收入增长{figure}万元"
        changed = f"{name}{subject}业务收入增长{figure + other}万元"
        end, language = "。", "zh"
    else:
        title = f"{name} {subject} {verb} revenue grew {figure} percent"
        changed = f"{name} {subject} {verb} revenue grew {figure + other} percent"
        end, language = ".", "en"
    items = [item(1, title, f"{title}{end}"), item(2, "Unrelated weather note", "Rain.")]

    copied = claims_check(f"{title} [1]{end}", items, now=NOW, language=language)
    assert (copied.kept, dict(copied.dropped)) == (1, {})

    report = claims_check(f"{changed} [1]{end}", items, now=NOW, language=language)
    assert report.kept == 0 or report.dropped["recited"] == 1, report.dropped
    assert report.kept == 0, "no other item holds the changed figure: nothing to re-cite to"
