"""Daily quotas (atomic in the database) and request-rate throttles: 429 with Retry-After."""

import threading
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test import Client

from briefs.models import Brief, BriefQuotaDay, TokenUsage
from briefs.quotas import quota_day
from briefs.tokens.service import token_issue
from tests.api.conftest import ApiClient, error_of

BRIEFS = "/api/v1/briefs"


def assert_429(response, quota: str | None = None) -> dict:
    assert response.status_code == 429, response.content
    retry_after = response["Retry-After"]
    assert retry_after.isdigit() and int(retry_after) >= 1, retry_after
    body = error_of(response)
    assert body["extra"]["retry_after"] == int(retry_after)
    if quota:
        assert body["extra"]["quota"] == quota, body
    return body


# --- Briefs per day -------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_refuses_briefs_past_the_daily_quota(api, settings):
    settings.API_BRIEFS_PER_DAY = 2
    for _ in range(2):
        assert api.post(BRIEFS, {"question": "news"}).status_code == 202
    body = assert_429(api.post(BRIEFS, {"question": "news"}), "briefs_per_day")
    midnight = datetime.fromisoformat(body["extra"]["resets_at"])
    assert midnight.astimezone(UTC).time().isoformat() == "00:00:00"
    assert Brief.objects.count() == 2


@pytest.mark.django_db
def test_reruns_count_against_the_quota(api, settings, finished_brief):
    settings.API_BRIEFS_PER_DAY = 1
    assert api.post(f"{BRIEFS}/{finished_brief.pk}/rerun").status_code == 202
    assert_429(api.post(f"{BRIEFS}/{finished_brief.pk}/rerun"), "briefs_per_day")


@pytest.mark.django_db
def test_a_refused_question_gives_its_quota_slot_back(api, owner, settings):
    settings.API_BRIEFS_PER_DAY = 1
    assert api.post(BRIEFS, {"question": "  "}).status_code == 400
    assert not BriefQuotaDay.objects.filter(user=owner, count__gt=0).exists()
    assert api.post(BRIEFS, {"question": "news"}).status_code == 202


@pytest.mark.django_db
def test_the_quota_is_per_user(api, other_api, settings):
    settings.API_BRIEFS_PER_DAY = 1
    assert api.post(BRIEFS, {"question": "news"}).status_code == 202
    assert other_api.post(BRIEFS, {"question": "news"}).status_code == 202


@pytest.mark.django_db
def test_it_reports_the_quota(api, owner, settings):
    settings.API_BRIEFS_PER_DAY = 5
    settings.LLM_DAILY_TOKEN_BUDGET = 9000
    TokenUsage.objects.create(user=owner, day=quota_day(), tokens=1200)
    api.post(BRIEFS, {"question": "news"})
    body = api.get("/api/v1/quota").json()
    assert (body["briefs_used"], body["briefs_limit"]) == (1, 5)
    assert (body["llm_tokens_used"], body["llm_tokens_limit"]) == (1200, 9000)


# --- LLM tokens per day -----------------------------------------------------------------------


@pytest.mark.django_db
def test_it_refuses_model_briefs_once_the_days_tokens_are_spent(api, owner, settings):
    settings.OPENAI_API_KEY = "sk-test-not-used"
    settings.LLM_DAILY_TOKEN_BUDGET = 1000
    TokenUsage.objects.create(user=owner, day=quota_day(), tokens=1000)
    body = assert_429(api.post(BRIEFS, {"question": "news"}), "llm_tokens_per_day")
    assert "offline" in body["message"]
    assert api.post(BRIEFS, {"question": "news", "offline": True}).status_code == 202


@pytest.mark.django_db
def test_it_accepts_model_briefs_while_tokens_are_left(api, owner, settings):
    settings.OPENAI_API_KEY = "sk-test-not-used"
    settings.LLM_DAILY_TOKEN_BUDGET = 1000
    TokenUsage.objects.create(user=owner, day=quota_day(), tokens=999)
    assert api.post(BRIEFS, {"question": "news"}).status_code == 202


# --- The edge of the quota under concurrency (real transactions, real PostgreSQL) -----------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_burst_at_the_quota_edge_accepts_exactly_the_quota(owner, settings):
    assert connection.vendor == "postgresql", "this test is about PostgreSQL's row locks"
    settings.API_BRIEFS_PER_DAY = 5
    BriefQuotaDay.objects.create(user=owner, day=quota_day(), count=2)  # 3 slots left
    secret = token_issue(user=owner, name="burst").secret
    threads_n = 12
    barrier = threading.Barrier(threads_n)
    statuses: list[int] = []
    lock = threading.Lock()

    def ask() -> None:
        client = ApiClient(secret, Client())
        try:
            barrier.wait(timeout=10)
            status = client.post(BRIEFS, {"question": "burst", "offline": True}).status_code
            with lock:
                statuses.append(status)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(threads_n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(statuses) == [202] * 3 + [429] * 9, statuses
    assert Brief.objects.filter(owner=owner).count() == 3
    assert BriefQuotaDay.objects.get(user=owner).count == 5


# --- Request-rate throttles -------------------------------------------------------------------


@pytest.mark.django_db
def test_it_throttles_requests_per_user(api, other_api, settings):
    settings.API_THROTTLE_RATE = "3/minute"
    for _ in range(3):
        assert api.get(BRIEFS).status_code == 200
    assert_429(api.get(BRIEFS))
    assert other_api.get(BRIEFS).status_code == 200, "one user's traffic throttled another"


@pytest.mark.django_db
def test_it_throttles_brief_creation_separately(api, settings):
    settings.API_CREATE_THROTTLE_RATE = "2/minute"
    for _ in range(2):
        assert api.post(BRIEFS, {"question": "news"}).status_code == 202
    assert_429(api.post(BRIEFS, {"question": "news"}))
    assert api.get(BRIEFS).status_code == 200, "reads were throttled by the creation rate"
