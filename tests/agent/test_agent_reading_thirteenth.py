"""The thirteenth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.slots import route_slots
from agent.routes.tables import table_blocks, value_columns
from tests.agent.test_agent_route_offline import first_path

pytestmark = pytest.mark.django_db

LANGUAGES_ACROSS = """| Language | 한국어 | English | 日本語 |
| -------- | ------ | ------- | ------ |
| `:lang`  | `ko`   | `en`    | `jp`   |

For a full list of channels, please refer to the page of the corresponding language

| RSS Feed Page                      |
| ---------------------------------- |
| [한국어](https://example.org/ko)   |
| [English](https://example.org/en)  |
| [日本語](https://example.org/jp)   |"""


def test_a_column_of_links_to_pages_lists_no_values():
    assert table_blocks(LANGUAGES_ACROSS) == [
        [("Language", ":lang"), ("한국어", "ko"), ("English", "en"), ("日本語", "jp")]
    ]


def test_a_row_header_naming_the_parameter_labels_no_value_column():
    assert value_columns(LANGUAGES_ACROSS) == []


def test_a_parameter_pointed_at_a_list_of_pages_takes_none_of_their_labels():
    slots = route_slots(
        "/:lang?/:channel?",
        {"lang": "Language, see below", "channel": "RSS Feed Channel, see below"},
        LANGUAGES_ACROSS,
        "/en/national",
    )

    assert [(slot.name, slot.choices) for slot in slots] == [
        ("lang", [("한국어", "ko"), ("English", "en"), ("日本語", "jp")]),
        ("channel", []),
    ]


def test_a_language_named_in_english_reads_its_native_label():
    assert first_path("Yonhap news in Japanese") == "/yna/jp"


def test_a_value_given_two_ways_in_a_cell_is_read_as_the_first():
    said = """| 新闻栏目 | 武大资讯         | 学术动态    |
| -------- | ---------------- | ----------- |
| 参数     | 0 或 `wdzx/wdyw` | 1 或 `kydt` |"""

    assert table_blocks(said) == [[("新闻栏目", "参数"), ("武大资讯", "0"), ("学术动态", "1")]]
