"""What a needs_input brief asks for reads in the brief's language: the agent stores a value's
format in English whatever language its run has active, and the brief, written in Chinese for a
Chinese question, must not say "digits" inside a Chinese sentence (nor an English page 数字)."""

import pytest
from django.utils import translation

from agent.routes.slots import Slot, value_format
from agent.summary.honest import need_markdown
from briefs.reasons import need_format

NEED = {
    "parameter": "id",
    "description": "",
    "format": "digits",
    "source": "RSSHub Test",
    "route": "/test/:id",
}


def test_a_stored_format_reads_in_chinese_in_a_chinese_brief():
    with translation.override("zh-hans"):
        [ask, where] = need_markdown(NEED)
    assert ask == "**哪个 RSSHub Test ID？** 请按 数字 的格式给出。"  # noqa: RUF001
    assert "digits" not in ask
    assert where == "- 读取自：RSSHub Test，/test/:id"  # noqa: RUF001


def test_a_shape_is_kept_as_it_is_and_markdown_in_it_is_escaped():
    with translation.override("zh-hans"):
        [ask, _where] = need_markdown({**NEED, "format": "BV##########*"})
    assert "BV\\#\\#\\#\\#\\#\\#\\#\\#\\#\\#\\*" in ask


@pytest.mark.parametrize("stored", [None, "", 3, ["digits"]])
def test_a_missing_or_malformed_format_asks_without_one(stored):
    assert need_format(stored) == ""
    with translation.override("en"):
        [ask, _where] = need_markdown({**NEED, "format": stored})
    assert ask == "**Which RSSHub Test ID?**"


def test_a_format_is_stored_in_english_whatever_language_the_run_has_active():
    slot = Slot(
        name="id", regex="", optional=False, description="", choices=[],
        example="1642634100", default=None, subject=True,
    )  # fmt: skip
    with translation.override("zh-hans"):
        stored = value_format(slot)
    assert stored == "digits"
    with translation.override("en"):
        assert need_format(stored) == "digits"
    with translation.override("zh-hans"):
        assert need_format(stored) == "数字"
