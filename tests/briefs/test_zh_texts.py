"""Chinese text reads as Chinese: the catalog's translations take full-width punctuation, and a
route's description of a value the reader must give is shown only in the page's language."""

from __future__ import annotations

import html
import re

import pytest
from django.utils import translation

from briefs.forms import NeedsAnswerForm
from tests.untranslated import CATALOGS, po_entries

CJK_RE = re.compile(r"[\u4e00-\u9fff]")
PLACEHOLDER_RE = re.compile(r"%\([a-z_]+\)[sd]|\{[a-z_0-9]*\}|%[sd]")
# ASCII parentheses anywhere, or an ASCII comma or colon right after Chinese or a value.
HALF_WIDTH_RE = re.compile(r"[()]|[\u4e00-\u9fffX]: |[\u4e00-\u9fff],")


@pytest.fixture(autouse=True)
def language_kept():
    language = translation.get_language()
    yield
    translation.activate(language)


def test_every_chinese_translation_takes_full_width_punctuation():
    found = [
        f"{path.name}:{entry.line}: {text!r}"
        for path in CATALOGS
        for entry in po_entries(path)
        for text in entry.msgstrs
        if CJK_RE.search(text) and HALF_WIDTH_RE.search(PLACEHOLDER_RE.sub("X", text))
    ]
    assert not found, "\n".join(found)


def help_of(description: str, language: str) -> str:
    with translation.override(language):
        form = NeedsAnswerForm(needs=[{"parameter": "user", "description": description}])
        return html.unescape(str(form.fields["value_0"].help_text))


@pytest.mark.parametrize(
    ("description", "language", "shown"),
    [
        ("GitHub user name", "en", "GitHub user name."),
        ("GitHub user name", "zh-hans", "路由地址中 :user 的值。"),
        ("用户名，可在个人主页找到", "zh-hans", "用户名，可在个人主页找到。"),  # noqa: RUF001
        ("用户名，可在个人主页找到", "en", "The value of :user in the route's address."),  # noqa: RUF001
        ("", "zh-hans", ""),
        ("42", "zh-hans", "42"),  # no language to tell: as it is
    ],
)
def test_a_parameters_description_is_shown_only_in_the_pages_language(description, language, shown):
    assert help_of(description, language) == shown


@pytest.mark.django_db
def test_a_refusal_reads_in_the_readers_language_and_stays_english_for_the_api(owner):
    from briefs.services import BriefInvalid, brief_create

    with pytest.raises(BriefInvalid) as refused:
        brief_create(owner=owner, question="   ", enqueue=False)
    assert refused.value.message == "The question is empty.", "the API's words"
    with translation.override("zh-hans"):
        assert refused.value.reader_message() == "问题为空。"


def test_a_brief_is_read_against_its_own_language_not_the_pages():
    from tests.untranslated import brief_in_wrong_language

    english = '<section class="card brief-body" id="brief-body" lang="en"><p>{}</p></section>'
    chinese = english.replace('lang="en"', 'lang="zh-Hans"')
    assert brief_in_wrong_language(english.format("As of noon: 芯片价格下跌 [1]")) == []
    assert brief_in_wrong_language(english.format("没有可追问的这份简报。"))
    assert brief_in_wrong_language(chinese.format("截至中午，芯片价格下跌 [1]")) == []  # noqa: RUF001
    assert brief_in_wrong_language(chinese.format("Copy link"))
