"""The admin in Chinese shows no English of the project's catalog (``tests/untranslated.py``):
for every model it lists, its change list (with rows, so its columns, filters and actions
show), its add page and the change page of a row; and in English, no Chinese of ours."""

from __future__ import annotations

import re

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation

from briefs.tokens.service import token_issue
from sharing.services import brief_share_create
from tests.agent.conftest import brief_run, feed
from tests.untranslated import untranslated_in_html, visible_texts
from tests.watches.conftest import watch_make

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
OURS = ("agent", "briefs", "catalog", "fetching", "housekeeping", "sharing", "watches")
CJK_RE = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def language_kept():
    language = translation.get_language()
    yield
    translation.activate(language)


def admin_pages() -> dict[str, str]:
    """Every page of every model of ours the admin registers: change list, add, one change."""
    pages = {}
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        if meta.app_label not in OURS:
            continue
        name = f"{meta.app_label}_{meta.model_name}"
        pages[f"{name} list"] = reverse(f"admin:{name}_changelist")
        request = _request()
        if model_admin.has_add_permission(request):
            pages[f"{name} add"] = reverse(f"admin:{name}_add")
        row = model_admin.get_queryset(request).first()
        if row is not None:
            pages[f"{name} change"] = reverse(f"admin:{name}_change", args=[row.pk])
    return pages


def _request():
    request = RequestFactory().get("/")
    request.user = get_user_model().objects.filter(is_superuser=True).first()
    return request


def a_row_of_everything(owner, stub_rsshub) -> None:
    stub_rsshub.route("/alpha/flash", feed("Chip prices fall", "Port strike ends"))
    brief = brief_run(owner, "Alpha Wire flash news")
    brief_share_create(owner=owner, brief_id=brief.pk)
    token_issue(user=owner, name="bot")
    watch_make(owner)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("world", "offline")
def test_no_admin_page_shows_catalog_english_in_chinese_nor_chinese_in_english(
    run_owner, stub_rsshub
):
    staff = get_user_model().objects.create_user(
        "sam", password="sam-pass-1234", is_staff=True, is_superuser=True
    )
    a_row_of_everything(run_owner, stub_rsshub)
    client = Client()
    client.force_login(staff)
    pages = {"index": reverse("admin:index"), **admin_pages()}
    assert sum(" list" in name for name in pages) >= 10, sorted(pages)
    english, chinese = [], []
    for name, url in pages.items():
        response = client.get(url, **ZH)
        assert response.status_code == 200, (name, url, response.status_code)
        english += [f"{name}: {f}" for f in untranslated_in_html(response.content.decode())]
        html = client.get(url, **EN).content.decode()
        chinese += [f"{name}: {t!r}" for t in visible_texts(html) if CJK_RE.search(t)]
    assert not english, "\n".join(english)
    assert not chinese, "\n".join(chinese)
