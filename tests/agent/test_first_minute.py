"""A newcomer's first minute on the project's own local RSSHub, on a machine without internet.

The real RSSHub (``tests/rsshub_server.py``) answers its ``/test/...`` routes and fails every real
route with ``getaddrinfo ENOTFOUND``, as it does on a fresh machine without a way out. A fresh
database with the real catalog snapshot; three questions in a row through ``manage.py ask``, the
first about GitHub (the namespace of a default canary). Each ends no_data/unreachable after one
fetch, in the question's language; no route is counted failing, no circuit opens, and from the
second question on, ``ask`` says before the run that RSSHub has no internet.
"""

import json

import pytest
from django.core.management import call_command

from catalog.models import CircuitChange, Route
from catalog.search_index import search_index_invalidate
from fetching.egress import egress_outage
from fetching.models import FetchAttempt, RSSHubEgress
from fetching.paths import catalog_cache_clear
from tests.conftest import catalog_seed_import

pytestmark = [
    pytest.mark.rsshub,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("offline"),
]

QUESTIONS = ("torvalds 最近的 GitHub 动态", "36氪今天有什么快讯", "少数派最新文章")
NOTICE = "RSSHub 无法访问互联网"


@pytest.fixture
def fresh_catalog():
    """The real snapshot in a database of its own (a transactional test starts it empty)."""
    catalog_seed_import()
    search_index_invalidate()
    catalog_cache_clear()
    yield
    search_index_invalidate()
    catalog_cache_clear()


@pytest.fixture
def real_rsshub(settings, rsshub):
    settings.RSSHUB_URL = rsshub.url
    settings.RSSHUB_URLS = []
    settings.RSSHUB_ACCESS_KEY = ""
    settings.RSSHUB_TIMEOUT = 10.0
    return rsshub


def ask(question: str, capsys) -> tuple[dict, str]:
    call_command("ask", question, "--json", "--offline")
    out, err = capsys.readouterr()
    return json.loads(out), err


@pytest.mark.usefixtures("fresh_catalog")
def test_the_first_questions_without_internet_say_so_and_blame_no_route(real_rsshub, capsys):
    answers = [ask(question, capsys) for question in QUESTIONS]

    for (brief, _), question in zip(answers, QUESTIONS, strict=True):
        assert (brief["status"], brief["outcome"], brief["reason"]) == (
            "succeeded", "no_data", "unreachable",
        ), question  # fmt: skip
        fetches = [s for s in brief["steps"] if s["kind"] == "fetch_result"]
        assert [s["outcome"] for s in fetches] == ["rsshub_unavailable"], "retried or rerouted"
        assert [s["decision"] for s in brief["steps"] if s["kind"] == "router"] == ["summarize"]
        assert "RSSHub 无法访问互联网" in brief["body"].splitlines()[0], brief["body"]
    failing = Route.objects.filter(consecutive_failures__gt=0).values_list("path", flat=True)
    assert list(failing) == [], "a route was counted failing"
    assert not Route.objects.filter(attempts__gt=0).exists()
    assert not CircuitChange.objects.exists(), "a circuit moved"
    assert egress_outage() is not None
    # One check (the first question's, whose GitHub path did not keep the GitHub canary out).
    row = RSSHubEgress.objects.get()
    assert row.last_check_ok is False and "ENOTFOUND" in row.last_check_message
    assert FetchAttempt.objects.count() == 3
    # Before the run, from the second question on: the flag is known, in the question's language.
    assert [NOTICE in err for _, err in answers] == [False, True, True]
