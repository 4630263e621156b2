"""In English, no page a person reaches shows Chinese outside what people and feeds wrote (item
titles, questions, paths: marked ``translate="no"`` or with their own ``lang``), and every
brief reads in its own language whatever the page's (``tests/untranslated.py``)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.briefs.test_zh_pages import briefs_of_every_outcome, owner_pages, unfinished_briefs
from tests.untranslated import brief_in_wrong_language, chinese_in_html
from tests.watches.conftest import watch_make

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


@pytest.fixture(autouse=True)
def language_kept():
    language = translation.get_language()
    yield
    translation.activate(language)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("world", "offline")
def test_no_english_page_shows_chinese_and_every_brief_reads_in_its_own_language(
    run_owner, stub_rsshub, settings
):
    briefs = briefs_of_every_outcome(run_owner, stub_rsshub, settings)
    briefs |= unfinished_briefs(run_owner)
    watch = watch_make(run_owner)
    client = Client()
    client.force_login(run_owner)
    pages = owner_pages(briefs, watch.pk) | {"route-health": reverse("route-health")}
    problems = []
    for name, url in pages.items():
        english = client.get(url, **EN)
        assert english.status_code in (200, 403, 404), (name, english.status_code)
        problems += [f"en {name}: {t!r}" for t in chinese_in_html(english.content.decode())]
        for headers, label in ((EN, "en"), (ZH, "zh")):
            html = client.get(url, **headers).content.decode()
            problems += [f"{label} {name} brief: {f}" for f in brief_in_wrong_language(html)]
    assert not problems, "\n".join(problems)
