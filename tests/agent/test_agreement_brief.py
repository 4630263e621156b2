"""The offline brief says under a story where its outlets agree and where they differ, in the
brief's language, each side cited; the stored table follows the same items."""
# ruff: noqa: RUF001  (Chinese punctuation in the item texts is the point)

from datetime import UTC, datetime, timedelta

from django.utils import translation

from agent.question import TimeWindow
from agent.summary.agreement_text import writer_table_text
from agent.summary.claims import claims_check
from agent.summary.digest import brief_extractive
from agent.summary.draft import SourceItem, renumbered
from briefs.agreements import tables_read

AS_OF = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def item(title: str, text: str, source: str, path: str, hours: float = 1) -> SourceItem:
    return SourceItem(
        0, 0, title, "https://e.x/", text, AS_OF - timedelta(hours=hours), path, source
    )


def brief(items: list[SourceItem], language: str = "en"):
    with translation.override({"zh": "zh-hans"}.get(language, "en")):
        return brief_extractive(
            renumbered(items), attempted=[], window=TimeWindow("latest"), in_window=True,
            as_of=AS_OF,
        )  # fmt: skip


ACME_3000 = item(
    "Acme to cut 3,000 jobs in restructuring",
    "Acme said it would cut 3,000 jobs in a restructuring announced on Tuesday.",
    "36kr", "/36kr/newsflashes",
)  # fmt: skip
ACME_5000 = item(
    "Acme to cut 5,000 jobs in restructuring",
    "Acme said it would cut 5,000 jobs in a restructuring announced on Tuesday.",
    "IT之家", "/ithome/it", 2,
)  # fmt: skip


def test_it_says_the_difference_with_both_citations():
    draft = brief([ACME_3000, ACME_5000])
    assert "Sources differ: 36kr says 3,000 [1]; IT之家 says 5,000 [2]" in draft.body, draft.body
    assert draft.agreements[0]["differences"][0]["said"][1]["items"] == [2]


def test_it_says_agreement_and_no_difference_for_one_figure():
    same = item(ACME_3000.title, ACME_3000.summary.replace("Acme", "The firm"), "IT之家", "/it")
    draft = brief([ACME_3000, same])
    assert "Sources agree: 3,000 [1] [2]" in draft.body, draft.body
    assert "Sources differ" not in draft.body
    assert draft.agreements[0]["differences"] == []


def test_one_outlets_two_feeds_say_neither():
    twice = item(ACME_5000.title, ACME_5000.summary, "36kr", "/36kr/news")
    draft = brief([ACME_3000, twice])
    assert "Sources agree" not in draft.body and "Sources differ" not in draft.body, draft.body
    assert draft.agreements == []


def test_a_chinese_brief_says_it_in_chinese():
    a = item(
        "某公司宣布裁员3000人", "某公司周二宣布裁员3000人，涉及多个部门。", "36氪", "/36kr/news"
    )
    b = item(
        "某公司宣布裁员5000人", "某公司周二宣布裁员5000人，涉及多个部门。", "IT之家", "/ithome"
    )
    draft = brief([a, b], "zh")
    assert "各来源说法不一：36氪 称 3000 [1]；IT之家 称 5000 [2]" in draft.body, draft.body


def test_stored_tables_are_read_in_one_shape_whatever_the_row_holds():
    assert tables_read("x") == []
    assert tables_read([1, {"items": [1, "2", True], "differences": [{"said": [None]}]}]) == [
        {"items": [1], "agreements": [],
         "differences": [{"kind": "", "said": [{"source": "", "text": "", "items": []}]}]}
    ]  # fmt: skip


def test_the_writer_is_told_each_difference_and_its_form_passes_the_support_check():
    items = renumbered([ACME_3000, ACME_5000])
    told = writer_table_text(items)
    assert "items [1] [2] differ on a number: 36kr says 3,000 [1]; IT之家 says 5,000 [2]" in told
    written = "Acme would cut jobs in a restructuring: 36kr says 3,000 [1]; IT之家 says 5,000 [2]."
    report = claims_check(written, items, now=AS_OF, language="en")
    assert (report.kept, dict(report.dropped)) == (1, {}), "the asked-for form must be kept"
    assert writer_table_text(renumbered([ACME_3000])) == ""
