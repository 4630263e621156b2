"""Where the outlets of one story agree and where they differ (agent.summary.agreement)."""

from datetime import UTC, datetime

from agent.summary.agreement import figures_of, story_table
from agent.summary.draft import SourceItem

MORNING = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # a Tuesday


def item(n: int, source: str, title: str, text: str, path: str = "") -> SourceItem:
    return SourceItem(n, n, title, "", text, MORNING, path or f"/{source}/news", source)


def kinds(table) -> list[str]:
    return [d.kind for d in table.differences]


def test_it_flags_two_figures_of_one_count():
    table = story_table([
        item(1, "36kr", "Acme cuts 3,000 jobs", "Acme said it would cut 3,000 jobs."),
        item(2, "TechCrunch", "Acme cuts 5,000 jobs", "Acme will cut 5,000 jobs worldwide."),
    ])  # fmt: skip
    assert kinds(table) == ["number"], table
    said = table.differences[0].said
    assert [(s.source, s.text, s.items) for s in said] == [
        ("36kr", "3,000", (1,)),
        ("TechCrunch", "5,000", (2,)),
    ]


def test_it_agrees_on_the_same_figure_in_two_languages():
    table = story_table([
        item(1, "Reuters", "Xiaomi raises $2 billion", "Xiaomi raised $2 billion on Monday."),
        item(2, "36氪", "小米融资20亿美元", "小米完成20亿美元融资。"),
    ])  # fmt: skip
    assert table.differences == (), table
    assert [a.kind for a in table.agreements] == ["number"]
    assert table.agreements[0].items == (1, 2)


def test_it_takes_hedges_rounding_and_units_as_compatible():
    pairs = [
        ("over 3,000 people were evacuated", "3,200 people were evacuated"),
        ("it sold 3.2 million units", "it sold 3,210,000 units"),
        ("the deal is worth $1.5 billion", "the deal is worth 1,500 million dollars"),
        ("近3000人受影响", "2900人受影响"),
        ("裁员3000多人", "裁员3400人"),
    ]
    for a, b in pairs:
        table = story_table([item(1, "A", "t", a), item(2, "B", "t", b)])
        assert table.differences == (), (a, b, table)


def test_it_reads_a_weekday_as_the_date_it_falls_on():
    table = story_table([
        item(1, "A", "Launch set", "The phone goes on sale on Thursday."),
        item(2, "B", "Launch set", "The phone goes on sale on December 3."),
    ])  # fmt: skip
    assert table.differences == (), table
    other = story_table([
        item(1, "A", "Launch set", "The phone goes on sale on Thursday."),
        item(2, "B", "Launch set", "The phone goes on sale on December 4."),
    ])  # fmt: skip
    assert kinds(other) == ["date"], other


def test_it_flags_different_dates_in_chinese():
    table = story_table([
        item(1, "IT之家", "新机发布", "华为将于12月3日发布新机。"),
        item(2, "新浪科技", "新机发布", "华为将于12月5日发布新机。"),
    ])  # fmt: skip
    assert kinds(table) == ["date"], table


def test_it_flags_a_different_actor_in_one_role():
    table = story_table([
        item(1, "A", "Startup raises", "The round was led by Sequoia Capital."),
        item(2, "B", "Startup raises", "The round was led by Accel."),
    ])  # fmt: skip
    assert kinds(table) == ["actor"], table
    chinese = story_table([
        item(1, "A", "融资", "本轮融资由红杉中国领投。"),
        item(2, "B", "融资", "本轮融资由高瓴资本领投。"),
    ])  # fmt: skip
    assert kinds(chinese) == ["actor"], chinese


def test_an_extra_figure_of_one_outlet_is_no_difference():
    table = story_table([
        item(1, "A", "t", "Revenue rose 12% and profit rose 30%."),
        item(2, "B", "t", "Revenue rose 12%."),
    ])  # fmt: skip
    assert table.differences == (), table


def test_one_outlet_or_one_outlets_two_feeds_has_no_table():
    assert story_table([item(1, "A", "t", "3,000 jobs")]) is None
    twice = [
        item(1, "36kr", "t", "It cut 3,000 jobs.", path="/36kr/news"),
        item(2, "36kr", "t", "It cut 5,000 jobs.", path="/36kr/newsflashes"),
    ]
    assert story_table(twice) is None


def test_number_words_and_ordinals_are_not_facts():
    assert figures_of("two people familiar with the matter said it was the 3rd round") == []


def test_the_table_serialises_with_item_numbers():
    table = story_table([
        item(1, "A", "t", "It cut 3,000 jobs."), item(2, "B", "t", "It cut 5,000 jobs."),
    ])  # fmt: skip
    data = table.as_dict()
    assert data["items"] == [1, 2]
    assert data["differences"][0]["said"][1] == {"source": "B", "text": "5,000", "items": [2]}
