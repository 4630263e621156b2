"""One language per brief: decided once when it is asked (the reader's choice, else the
question's, else the interface's), and everything the brief says is in it, dates included,
on its page and its share link, whatever the language of the page around it."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from briefs.errors import FieldInvalid
from briefs.language import brief_language_decide, language_clean
from briefs.models import Brief
from briefs.services import BriefInvalid, brief_create
from sharing.services import brief_share_create
from tests.agent.conftest import brief_run, feed

EN_PAGE = {"HTTP_ACCEPT_LANGUAGE": "en"}
ZH_PAGE = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
WIRE = ("Chip prices fall again", "Port strike ends today")
BODY_RE = re.compile(
    r'<section class="card brief-body" id="brief-body" lang="([^"]*)">(.*?)</section>', re.S
)
ENGLISH_DATE_RE = re.compile(r"\b(?:Jan|Feb|March|April|May|June|July|Aug|Sept|Oct|Nov|Dec)\b")
CHINESE_DATE_RE = re.compile(r"\d{4}年\d{1,2}月\d{1,2}日")


@pytest.fixture(autouse=True)
def language_kept():
    """A Chinese request leaves its language active in this thread: the next module's tests
    start in the language this one started in."""
    language = translation.get_language()
    yield
    translation.activate(language)


@pytest.mark.parametrize(
    ("chosen", "question", "interface", "decided"),
    [
        ("", "36kr 今天有什么", "en", "zh-hans"),
        ("", "what is new on 36kr", "zh-hans", "en"),
        ("en", "36kr 今天有什么", "zh-hans", "en"),
        ("zh-hans", "what is new on 36kr", "en", "zh-hans"),
        ("", "https://36kr.com/ 2026", "zh-hans", "zh-hans"),
        ("", "12345", "en", "en"),
        ("", "12345", None, "en"),
    ],
)
def test_it_decides_by_choice_then_question_then_interface(chosen, question, interface, decided):
    assert brief_language_decide(chosen=chosen, question=question, interface=interface) == decided


@pytest.mark.parametrize("value", ["fr", "zh", "zh-hant", 1, ["en"], True])
def test_it_refuses_a_language_it_does_not_write(value):
    with pytest.raises(FieldInvalid, match="en, zh-hans"):
        language_clean(value)


@pytest.mark.django_db
def test_a_brief_asked_with_a_bad_language_is_refused_naming_the_field(owner):
    with pytest.raises(BriefInvalid) as refused:
        brief_create(owner=owner, question="news", language="klingon", enqueue=False)
    assert refused.value.field == "language"
    assert not Brief.objects.exists()


@pytest.mark.django_db
def test_the_ask_form_stores_the_readers_choice(owner):
    client = Client()
    client.force_login(owner)
    response = client.post(
        reverse("home"), {"question": "36kr 今天有什么新闻", "language": "en"}, **ZH_PAGE
    )
    assert response.status_code == 302, response.content
    assert Brief.objects.get().language == "en"


@pytest.mark.django_db
def test_the_ask_form_takes_the_interface_when_the_question_shows_no_language(owner):
    client = Client()
    client.force_login(owner)
    client.post(reverse("home"), {"question": "12306 2026"}, **ZH_PAGE)
    assert Brief.objects.get().language == "zh-hans"


def _body(html: str) -> tuple[str, str]:
    match = BODY_RE.search(html)
    assert match, "the page has no brief body"
    return match.group(1), match.group(2)


def _pages(brief: Brief, owner, headers: dict) -> dict[str, str]:
    client = Client()
    client.force_login(owner)
    share, _made = brief_share_create(owner=owner, brief_id=brief.pk)
    return {
        "page": client.get(brief.get_absolute_url(), **headers).content.decode(),
        "share": Client()
        .get(reverse("shared-brief", args=[share.secret]), **headers)
        .content.decode(),
    }


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("world", "offline")
def test_a_chinese_question_from_an_english_page_reads_chinese_throughout(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed(*WIRE))
    brief = brief_run(run_owner, "阿尔法快讯 的消息", language="zh-hans")
    for name, html in _pages(brief, run_owner, EN_PAGE).items():
        assert '<html lang="en"' in html, f"{name}: the page around the brief stays English"
        lang, body = _body(html)
        assert lang == "zh-Hans", f"{name}: the brief element says its language"
        assert "截至" in body and CHINESE_DATE_RE.search(body), f"{name}: {body[:400]}"
        assert "As of" not in body and not ENGLISH_DATE_RE.search(body), f"{name}: {body[:400]}"
        marks = re.findall(r'id="cite-\d+-language">([^<]*)<', html)
        assert marks and set(marks) == {"英文"}, f"{name}: English items are marked: {marks}"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("world", "offline")
def test_an_english_question_from_a_chinese_page_reads_english_throughout(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed(*WIRE))
    brief = brief_run(run_owner, "Alpha Wire flash news", language="en")
    for name, html in _pages(brief, run_owner, ZH_PAGE).items():
        assert '<html lang="zh-hans"' in html, f"{name}: the page around the brief stays Chinese"
        lang, body = _body(html)
        assert lang == "en", f"{name}: the brief element says its language"
        assert "As of" in body and ENGLISH_DATE_RE.search(body), f"{name}: {body[:400]}"
        assert "截至" not in body and not CHINESE_DATE_RE.search(body), f"{name}: {body[:400]}"
        assert '-language"' not in html, f"{name}: an item in the brief's language is not marked"
