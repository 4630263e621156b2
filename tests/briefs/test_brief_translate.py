"""The translate action (``briefs.translation``, ``agent.retell``): a finished brief told again in
another language from its stored items, coverage and time, without asking RSSHub anything;
one retelling per brief and language; from the page's button and from the API."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import translation

from briefs.models import Brief, BriefStatus
from briefs.tasks import run_brief
from briefs.tokens.service import token_issue
from tests.agent.conftest import brief_run, feed
from tests.agent.conftest import llm_server as llm_server  # a fixture
from tests.api.conftest import ApiClient
from tests.llmserver import node_of, profile
from tests.untranslated import brief_in_wrong_language, untranslated_in_html

WIRE = ("Chip prices fall again", "Port strike ends today")
BODY_RE = re.compile(
    r'<section class="card brief-body" id="brief-body" lang="([^"]*)">(.*?)</section>', re.S
)
CHINESE_DATE_RE = re.compile(r"\d{4}年\d{1,2}月\d{1,2}日")
ZH_PAGE = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world")]


@pytest.fixture(autouse=True)
def language_kept():
    language = translation.get_language()
    yield
    translation.activate(language)


@pytest.fixture
def english_brief(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed(*WIRE))
    return brief_run(run_owner, "Alpha Wire flash news", language="en")


def api_of(user) -> ApiClient:
    return ApiClient(token_issue(user=user, name="test").secret)


def translate(user, brief: Brief, language: str):
    return api_of(user).post(f"/api/v1/briefs/{brief.pk}/translate", {"language": language})


def retold(response) -> Brief:
    """The retelling a 202 names, run to its end as a worker would."""
    assert response.status_code == 202, response.content
    run_brief(response.json()["id"])
    return Brief.objects.get(pk=response.json()["id"])


@pytest.mark.usefixtures("offline")
def test_offline_a_brief_is_retold_in_chinese_from_its_stored_items_without_fetching(
    run_owner, stub_rsshub, english_brief
):
    asked = len(stub_rsshub.requests)
    brief = retold(translate(run_owner, english_brief, "zh-hans"))
    assert len(stub_rsshub.requests) == asked, "the retelling asked RSSHub again"
    assert brief.status == BriefStatus.SUCCEEDED and brief.language == "zh-hans"
    assert brief.translation_of_id == english_brief.pk
    assert brief.as_of == english_brief.as_of, "the items are as of the original's time"
    assert [c["item_id"] for c in brief.citations] == [
        c["item_id"] for c in english_brief.citations
    ]
    assert brief.coverage["tried"] == english_brief.coverage["tried"]
    client = Client()
    client.force_login(run_owner)
    html = client.get(brief.get_absolute_url(), **ZH_PAGE).content.decode()
    lang, body = BODY_RE.search(html).groups()
    assert lang == "zh-Hans" and "截至" in body and CHINESE_DATE_RE.search(body), body[:400]
    assert "As of" not in body and "Coverage" not in body
    assert untranslated_in_html(html) == []
    assert 'id="brief-original">' in html
    from_english = client.get(brief.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en")
    assert brief_in_wrong_language(from_english.content.decode()) == []


@pytest.mark.usefixtures("offline")
def test_offline_a_chinese_brief_is_retold_in_english_with_no_chinese_but_its_titles(
    run_owner, stub_rsshub
):
    stub_rsshub.route("/alpha/flash", feed("芯片价格再度下跌", "港口罢工今天结束"))
    chinese = brief_run(run_owner, "阿尔法快讯 的消息", language="zh-hans")
    brief = retold(translate(run_owner, chinese, "en"))
    assert brief.language == "en" and brief.status == BriefStatus.SUCCEEDED
    client = Client()
    client.force_login(run_owner)
    html = client.get(brief.get_absolute_url(), **ZH_PAGE).content.decode()
    lang, body = BODY_RE.search(html).groups()
    assert lang == "en" and "As of" in body and "截至" not in body, body[:400]
    assert html.count('lang="zh-Hans">') >= 2, "the Chinese titles say their language"
    assert brief_in_wrong_language(html) == []


@pytest.mark.usefixtures("offline")
def test_a_second_request_gets_the_same_retelling_and_the_own_language_the_brief(
    run_owner, english_brief
):
    first = translate(run_owner, english_brief, "zh-hans").json()["id"]
    again = translate(run_owner, english_brief, "zh-hans").json()["id"]
    assert first == again
    assert Brief.objects.filter(translation_of=english_brief).count() == 1
    same = translate(run_owner, english_brief, "en").json()["id"]
    assert same == english_brief.pk, "a brief already in that language is given back"
    run_brief(first)
    back = translate(run_owner, Brief.objects.get(pk=first), "en").json()["id"]
    assert back == english_brief.pk, "a retelling's retelling is the original"


@pytest.mark.usefixtures("offline")
def test_the_translate_action_refuses_what_it_cannot_do(run_owner, english_brief):
    other = get_user_model().objects.create_user("other", password="other-pass-1234")
    assert translate(other, english_brief, "zh-hans").status_code == 404
    assert translate(run_owner, english_brief, "fr").status_code == 400
    queued = Brief.objects.create(owner=run_owner, question="Alpha Wire stories")
    response = translate(run_owner, queued, "zh-hans")
    assert response.status_code == 400 and "brief" in response.json()["extra"]["fields"]
    assert not Brief.objects.filter(translation_of__isnull=False).exists()


@pytest.mark.usefixtures("offline")
def test_the_page_button_asks_for_the_other_language(run_owner, english_brief):
    client = Client()
    client.force_login(run_owner)
    page = client.get(english_brief.get_absolute_url(), **ZH_PAGE).content.decode()
    assert 'name="language" value="zh-hans"' in page and "用中文阅读" in page
    response = client.post(
        reverse("brief-translate", args=[english_brief.pk]), {"language": "zh-hans"}
    )
    made = Brief.objects.get(translation_of=english_brief)
    assert response.status_code == 302 and response["Location"] == made.get_absolute_url()


def test_with_a_model_the_retelling_is_written_in_chinese_and_a_second_reader_costs_nothing(
    run_owner, stub_rsshub, llm_server
):
    llm_server.responder = profile("openai")
    stub_rsshub.route("/alpha/flash", feed(*WIRE))
    stub_rsshub.route("/alpha/stories", feed(*WIRE))
    original = brief_run(run_owner, "Alpha Wire flash news", language="en")
    before, fetched = llm_server.count, len(stub_rsshub.requests)
    brief = retold(translate(run_owner, original, "zh-hans"))
    asked = [node_of(body) for body in llm_server.requests[before:]]
    assert "summarize" in asked and asked.count("translate") == 1, asked
    assert not {"rewrite", "platform", "route"} & set(asked), "nothing is routed again"
    assert len(stub_rsshub.requests) == fetched
    assert all(c.get("title_translated") for c in brief.citations), brief.citations
    assert brief.usage["nodes"]["translate"]["calls"] == 1
    calls = llm_server.count
    assert translate(run_owner, original, "zh-hans").json()["id"] == brief.pk
    assert llm_server.count == calls, "a second reader made a model call"
