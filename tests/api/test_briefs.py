"""Briefs through the API: create, list, read, steps, cancel, rerun, delete; isolation between
users; hostile input at every boundary; the one error shape."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.models import OrmQ

from briefs.models import Brief, BriefStatus
from briefs.steps import step_append
from tests.api.conftest import error_of
from tests.brief_examples import ITEM_URL

pytestmark = pytest.mark.django_db

BRIEFS = "/api/v1/briefs"


def fields_of(response) -> dict:
    assert response.status_code == 400, response.content
    return error_of(response)["extra"]["fields"]


# --- Create ---------------------------------------------------------------------------------


def test_it_creates_a_queued_brief(api, owner):
    response = api.post(BRIEFS, {"question": "  what is new on 36kr today?  "})
    assert response.status_code == 202, response.content
    body = response.json()
    brief = Brief.objects.get(pk=body["id"])
    assert brief.owner == owner and brief.status == BriefStatus.QUEUED
    assert brief.question == "what is new on 36kr today?"
    assert body["status"] == "queued"
    assert body["urls"] == {
        "self": f"http://testserver/api/v1/briefs/{brief.pk}",
        "steps": f"http://testserver/api/v1/briefs/{brief.pk}/steps",
        "websocket": f"ws://testserver/ws/briefs/{brief.pk}/",
    }
    [step] = body["steps"]
    assert (step["seq"], step["kind"]) == (1, "brief_queued"), "a first step before any worker"
    assert step["payload"] == {"offline": False, "follow_up_of": None}


def test_it_enqueues_the_run_when_the_brief_is_committed(api, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(BRIEFS, {"question": "news about the kirin 9050", "offline": True})
    assert response.status_code == 202
    task = OrmQ.objects.get()
    assert task.task["args"] == (response.json()["id"],), "the run of this brief was not queued"


@pytest.mark.parametrize(
    ("body", "language"),
    [
        ({"question": "36kr 今天有什么新闻"}, "zh-hans"),
        ({"question": "what is new on 36kr?"}, "en"),
        ({"question": "36kr 今天有什么新闻", "language": "en"}, "en"),
        ({"question": "what is new on 36kr?", "language": "zh-hans"}, "zh-hans"),
    ],
)
def test_it_decides_the_briefs_language_once(api, body, language):
    response = api.post(BRIEFS, body)
    assert response.status_code == 202, response.content
    assert Brief.objects.get(pk=response.json()["id"]).language == language


def test_it_creates_a_follow_up(api, finished_brief):
    response = api.post(BRIEFS, {"question": "and yesterday?", "follow_up_of": finished_brief.pk})
    assert response.status_code == 202, response.content
    assert Brief.objects.get(pk=response.json()["id"]).follow_up_of == finished_brief


def test_it_refuses_to_follow_up_another_users_brief(other_api, finished_brief):
    response = other_api.post(BRIEFS, {"question": "more?", "follow_up_of": finished_brief.pk})
    assert fields_of(response) == {"follow_up_of": ["No such brief to follow up."]}


@pytest.mark.parametrize(
    ("body", "field", "fragment"),
    [
        ({}, "question", "required"),
        ({"question": ""}, "question", "empty"),
        ({"question": "   \n  "}, "question", "empty"),
        ({"question": "x" * 2001}, "question", "2000"),
        ({"question": 42}, "question", "valid string"),
        ({"question": ["news"]}, "question", "valid string"),
        ({"question": None}, "question", "null"),
        ({"question": "news\u0000today"}, "question", "null characters"),
        ({"question": "news\u0007today"}, "question", "control characters"),
        ({"question": "news", "offline": "true"}, "offline", "true or false"),
        ({"question": "news", "offline": 1}, "offline", "true or false"),
        ({"question": "news", "follow_up_of": "12"}, "follow_up_of", "valid integer"),
        ({"question": "news", "follow_up_of": 1.5}, "follow_up_of", "valid integer"),
        ({"question": "news", "follow_up_of": True}, "follow_up_of", "valid integer"),
        ({"question": "news", "follow_up_of": -3}, "follow_up_of", "greater than or equal"),
        ({"question": "news", "follow_up_of": 2**70}, "follow_up_of", "less than or equal"),
        ({"question": "news", "language": "fr"}, "language", "not a valid choice"),
        ({"question": "news", "language": "zh"}, "language", "not a valid choice"),
        ({"question": "news", "language": "ZH-HANS"}, "language", "not a valid choice"),
        ({"question": "news", "language": 1}, "language", "not a valid choice"),
        ({"question": "news", "language": ["en"]}, "language", "not a valid choice"),
        ({"question": "news", "owner": 2}, "owner", "Unknown field"),
        ({"question": "news", "status": "succeeded"}, "status", "Unknown field"),
    ],
)
def test_it_refuses_bad_fields_naming_them(api, body, field, fragment):
    fields = fields_of(api.post(BRIEFS, body))
    assert field in fields, f"{field} not named in {fields}"
    assert fragment.lower() in " ".join(fields[field]).lower(), fields
    assert not Brief.objects.exists()


@pytest.mark.parametrize(
    ("raw", "field", "fragment"),
    [
        (b'{"question": "news"', "body", "not valid json"),
        (b"", "question", "required"),
        (b"null", "body", "no data"),
        (b'["news"]', "body", "expected a dictionary"),
        (b'"news"', "body", "expected a dictionary"),
        (b'{"question": NaN}', "body", "not valid json"),
        (b'{"question": "caf\xe9 news"}', "question", "utf-8"),
        (b'{"question": "\\ud800 news"}', "question", "utf-8"),
        (b'{"qu\xffestion": "news"}', "qu\ufffdestion", "utf-8"),
        (b"\xef\xbb\xbf" + b'{"question": "news"}', "body", "not valid json"),
    ],
)
def test_it_refuses_bad_bodies_naming_the_field(api, raw, field, fragment):
    fields = fields_of(api.post(BRIEFS, raw=raw))
    assert field in fields, f"{field} not named in {fields}"
    assert fragment in " ".join(fields[field]).lower(), fields


def test_it_refuses_deeply_nested_json(api, settings):
    settings.API_MAX_BODY_BYTES = 1_000_000
    fields = fields_of(api.post(BRIEFS, raw=b"[" * 100_000 + b"]" * 100_000))
    assert "body" in fields


def test_it_refuses_a_body_over_the_limit(api, settings):
    settings.API_MAX_BODY_BYTES = 1024
    response = api.post(BRIEFS, {"question": "x" * 2000})
    assert response.status_code == 413, response.content
    assert "1024 bytes" in error_of(response)["message"]


def test_it_refuses_a_body_that_is_not_json(api):
    response = api.post(BRIEFS, raw=b"question=news", content_type="text/plain")
    assert response.status_code == 415, response.content
    error_of(response)


# --- List -----------------------------------------------------------------------------------


def test_it_lists_only_the_callers_briefs(api, other_api, owner, other_user, make_brief):
    mine = make_brief(owner, "my question")
    make_brief(other_user, "their question")
    results = api.get(BRIEFS).json()["results"]
    assert [b["id"] for b in results] == [mine.pk]
    theirs = other_api.get(BRIEFS, {"search": "my question"}).json()
    assert theirs["count"] == 0, "another user's brief matched a search"


def test_it_paginates_newest_first(api, owner, make_brief):
    now = timezone.now()
    ids = [make_brief(owner, f"q{i}", created_at=now - timedelta(minutes=i)).pk for i in range(5)]
    first = api.get(BRIEFS, {"page_size": 2}).json()
    assert first["count"] == 5
    assert [b["id"] for b in first["results"]] == ids[:2]
    second = api.get(first["next"]).json()
    assert [b["id"] for b in second["results"]] == ids[2:4]


def test_it_filters_by_status_time_and_text(api, owner, other_user, make_brief):
    now = timezone.now()
    old = make_brief(owner, "old kirin question", created_at=now - timedelta(days=3))
    new = make_brief(owner, "new 36kr question", status=BriefStatus.SUCCEEDED)
    make_brief(other_user, "their kirin", status=BriefStatus.SUCCEEDED)

    def ids(**params):
        return [b["id"] for b in api.get(BRIEFS, params).json()["results"]]

    assert ids(status="succeeded") == [new.pk]
    assert ids(created_before=(now - timedelta(days=1)).isoformat()) == [old.pk]
    assert ids(created_after=(now - timedelta(days=1)).isoformat()) == [new.pk]
    assert ids(search="KIRIN") == [old.pk]


@pytest.mark.parametrize(
    "search", ["' OR 1=1 --", "%", "_", "\\", "'; DROP TABLE briefs_brief; --", "%' AND '1'='1"]
)
def test_it_treats_sql_ish_search_as_text(api, owner, make_brief, search):
    make_brief(owner, "a plain question")
    response = api.get(BRIEFS, {"search": search})
    assert response.status_code == 200, response.content
    assert response.json()["count"] == 0, f"{search!r} matched a brief that does not contain it"


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"status": "done"}, "status"),
        ({"created_after": "yesterday"}, "created_after"),
        ({"page": "0"}, "page"),
        ({"page": "-1"}, "page"),
        ({"page": "abc"}, "page"),
        ({"page_size": "1000"}, "page_size"),
        ({"search": "x" * 201}, "search"),
        ({"search": "news\x00"}, "search"),
    ],
)
def test_it_refuses_bad_query_parameters_naming_them(api, params, field):
    fields = fields_of(api.get(BRIEFS, params))
    assert field in fields, fields


def test_it_answers_404_past_the_last_page(api, owner, make_brief):
    make_brief(owner)
    response = api.get(BRIEFS, {"page": 2})
    assert response.status_code == 404
    assert error_of(response)["message"] == "No such page."


# --- Detail, steps ----------------------------------------------------------------------------


def test_it_shows_a_brief_with_structured_citations(api, finished_brief):
    body = api.get(f"{BRIEFS}/{finished_brief.pk}").json()
    assert body["status"] == "succeeded" and body["mode"] == "offline"
    assert body["question"] == finished_brief.question and body["query"] == "rsshub test feed"
    assert body["body"] == finished_brief.body
    assert body["citations"] == [
        {
            "n": 1,
            "title": "Title one",
            "link": ITEM_URL,
            "path": "/test/1",
            "source": "RSSHub Test",
            "published_at": "2026-11-01T08:30:00+00:00",
            "item_id": 1,
            "title_translated": "",
        }
    ]
    assert body["coverage"]["succeeded"][0]["items"] == 5
    assert body["usage"]["steps"] == 3 and body["timings"] == {"total_ms": 1234}


def test_it_shows_a_queued_brief_with_empty_parts(api, owner, make_brief):
    body = api.get(f"{BRIEFS}/{make_brief(owner).pk}").json()
    assert body["coverage"] == {"tried": [], "succeeded": [], "failed": []}
    assert body["usage"]["llm_calls"] == 0 and body["citations"] == []


def test_it_lists_steps_after_a_seq(api, finished_brief):
    for kind in ("run_started", "query_rewritten", "brief_ready"):
        step_append(brief_id=finished_brief.pk, kind=kind, payload={"k": kind})
    body = api.get(f"{BRIEFS}/{finished_brief.pk}/steps", {"after": 1}).json()
    assert [s["seq"] for s in body["steps"]] == [2, 3]
    assert body["steps"][0]["payload"] == {"k": "query_rewritten"}
    assert body["next_after"] == 3 and body["finished"] is True
    empty = api.get(f"{BRIEFS}/{finished_brief.pk}/steps", {"after": 3}).json()
    assert empty["steps"] == [] and empty["next_after"] == 3


def test_it_says_a_running_brief_is_not_finished(api, owner, make_brief):
    brief = make_brief(owner, status=BriefStatus.RUNNING)
    step_append(brief_id=brief.pk, kind="run_started", payload={})
    body = api.get(f"{BRIEFS}/{brief.pk}/steps").json()
    assert body["finished"] is False and body["brief_status"] == "running"


@pytest.mark.parametrize("after", ["-1", "abc", "1.5", str(2**40), ""])
def test_it_refuses_bad_after_values(api, finished_brief, after):
    fields = fields_of(api.get(f"{BRIEFS}/{finished_brief.pk}/steps", {"after": after}))
    assert "after" in fields, fields


# --- Cancel, rerun, delete ------------------------------------------------------------------


def test_it_cancels_a_queued_brief(api, owner, make_brief):
    brief = make_brief(owner)
    response = api.post(f"{BRIEFS}/{brief.pk}/cancel")
    assert response.status_code == 200, response.content
    assert response.json() == {"id": brief.pk, "status": "cancelled", "cancel_requested": True}


def test_it_reruns_a_brief_as_a_new_one(api, finished_brief):
    response = api.post(f"{BRIEFS}/{finished_brief.pk}/rerun")
    assert response.status_code == 202, response.content
    rerun = Brief.objects.get(pk=response.json()["id"])
    assert rerun.pk != finished_brief.pk and rerun.question == finished_brief.question


def test_it_deletes_a_brief(api, finished_brief):
    assert api.delete(f"{BRIEFS}/{finished_brief.pk}").status_code == 204
    assert not Brief.objects.filter(pk=finished_brief.pk).exists()
    assert api.get(f"{BRIEFS}/{finished_brief.pk}").status_code == 404


# --- Another user's brief: 404 on every verb --------------------------------------------------


@pytest.mark.parametrize(
    ("method", "suffix"),
    [
        ("get", ""),
        ("delete", ""),
        ("get", "/steps"),
        ("post", "/cancel"),
        ("post", "/rerun"),
    ],
)
def test_another_users_brief_is_a_404(other_api, finished_brief, method, suffix):
    response = getattr(other_api, method)(f"{BRIEFS}/{finished_brief.pk}{suffix}")
    assert response.status_code == 404, response.content
    assert error_of(response)["message"] == "No such brief."
    finished_brief.refresh_from_db()
    assert finished_brief.status == BriefStatus.SUCCEEDED
    assert Brief.objects.count() == 1, "another user's verb created or removed a brief"


@pytest.mark.parametrize(
    "path",
    [
        f"{BRIEFS}/0",
        f"{BRIEFS}/-1",
        f"{BRIEFS}/abc",
        f"{BRIEFS}/1e3",
        f"{BRIEFS}/99999999999999999999999",
        f"{BRIEFS}/999999999999999999",
        f"{BRIEFS}/",
        f"{BRIEFS}/1/steps/",
        "/api/v1/nothing",
        "/api/v1/catalog/routes/%0A/prefer",
        "/api/v2/briefs",
    ],
)
def test_it_answers_404_in_the_error_shape_for_any_other_path(api, path):
    response = api.get(path)
    assert response.status_code == 404, response.content
    assert response["Content-Type"] == "application/json"
    error_of(response)


def test_it_answers_405_for_a_method_not_allowed(api):
    response = api.generic("PUT", BRIEFS, b"{}")
    assert response.status_code == 405, response.content
    assert "PUT" in error_of(response)["message"]
    assert response["Allow"] == "GET, POST, HEAD"


def test_it_hides_the_traceback_of_an_unexpected_error(api, finished_brief, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals at /srv/app.py line 3")

    monkeypatch.setattr("briefs.api.briefs.brief_detail_data", broken)
    response = api.get(f"{BRIEFS}/{finished_brief.pk}")
    assert response.status_code == 500
    assert response.json() == {"message": "Internal server error.", "extra": {}}
    assert b"secret internals" not in response.content


@pytest.mark.parametrize("search", ["kirin\x0b", "\x0bkirin", "kirin\x85"])
def test_it_refuses_control_characters_at_the_edges_of_a_search(api, search):
    assert "search" in fields_of(api.get(BRIEFS, {"search": search}))


def test_it_refuses_an_unknown_query_parameter(api, owner, make_brief):
    make_brief(owner)
    fields = fields_of(api.get(BRIEFS, {"stauts": "queued"}))
    assert fields == {"stauts": ["Unknown parameter."]}


def test_it_refuses_a_repeated_query_parameter(api):
    response = api.client.get(f"{BRIEFS}?status=queued&status=failed", headers=api._headers(None))
    assert fields_of(response) == {"status": ["Give this parameter once."]}
