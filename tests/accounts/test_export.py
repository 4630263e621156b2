"""Export my data: a zip of the person's briefs (with their citations) and watches, as JSON in
the API's shape and as markdown; nothing of another person's; by POST with the CSRF token; in a
number of queries that does not grow with the briefs."""

import io
import json
import zipfile

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.accounts.conftest import account_world
from tests.brief_examples import ITEM_URL, finished_brief

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

EXPORT = reverse("account-export")
THEIRS = "Mallory's secret plan?"


def unzipped(response) -> dict[str, str]:
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {name: archive.read(name).decode() for name in archive.namelist()}


def test_it_holds_the_briefs_with_citations_and_the_watches(owner, owner_client, other_user):
    owned = account_world(owner)
    account_world(other_user, question=THEIRS)
    response = owner_client.post(EXPORT)
    assert 'filename="rsshub-agent-alice.zip"' in response["Content-Disposition"]
    files = unzipped(response)
    assert set(files) == {
        "briefs.json",
        "watches.json",
        "watches.md",
        *(f"briefs/{pk}.md" for pk in owned.briefs),
    }
    briefs = json.loads(files["briefs.json"])
    assert [b["id"] for b in briefs] == owned.briefs
    assert briefs[0]["citations"][0]["link"] == ITEM_URL
    assert briefs[1]["follow_up_of"] == owned.briefs[0]
    markdown = files[f"briefs/{owned.briefs[0]}.md"]
    assert markdown.startswith("# What is new on RSSHub test?") and ITEM_URL in markdown
    watches = json.loads(files["watches.json"])
    assert [w["question"] for w in watches] == ["What is new on RSSHub test? (watched)"]
    assert "(watched)" in files["watches.md"]


def test_nothing_of_anyone_else_is_in_it(owner, owner_client, other_user):
    account_world(owner)
    account_world(other_user, question=THEIRS)
    files = unzipped(owner_client.post(EXPORT))
    for name, text in files.items():
        assert "Mallory" not in text and "mallory" not in text, name


def test_an_account_with_nothing_exports_empty_lists(owner_client):
    files = unzipped(owner_client.post(EXPORT))
    assert json.loads(files["briefs.json"]) == [] and json.loads(files["watches.json"]) == []


def test_its_queries_do_not_grow_with_the_briefs(owner, owner_client):
    finished_brief(owner)
    with CaptureQueriesContext(connection) as few:
        owner_client.post(EXPORT)
    for n in range(5):
        finished_brief(owner, question=f"Question {n}?")
    with CaptureQueriesContext(connection) as many:
        files = unzipped(owner_client.post(EXPORT))
    assert len(json.loads(files["briefs.json"])) == 6
    assert len(many) == len(few)


def test_it_is_a_post_with_the_csrf_token(owner, owner_client):
    assert owner_client.get(EXPORT).status_code == 405
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.post(EXPORT).status_code == 403


def test_it_requires_login(client):
    response = client.post(EXPORT)
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
