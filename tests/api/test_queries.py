"""Query counts: constant per request, whatever the page size or the number of briefs."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from briefs.models import Brief, BriefStatus, WebhookDelivery
from briefs.steps import step_append
from briefs.webhooks import webhook_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def many_briefs(owner, other_user):
    Brief.objects.bulk_create(
        [
            Brief(owner=owner, question=f"question {i}", status=BriefStatus.SUCCEEDED)
            for i in range(60)
        ]
        + [Brief(owner=other_user, question=f"theirs {i}") for i in range(10)]
    )


def queries_of(call) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = call()
    assert response.status_code == 200, response.content
    return len(ctx.captured_queries)


# A token request: 1 token+user, 1 COUNT, 1 page. (last_used_at is written at most every
# few minutes; the first request of each test below warms it up.)
LIST_QUERIES = 3


@pytest.mark.parametrize("page_size", [5, 50])
def test_the_brief_list_makes_constant_queries(
    api, many_briefs, page_size, django_assert_num_queries
):
    api.get("/api/v1/briefs")
    with django_assert_num_queries(LIST_QUERIES):
        response = api.get("/api/v1/briefs", {"page_size": page_size, "search": "question"})
    assert len(response.json()["results"]) == page_size


def test_the_brief_detail_makes_two_queries(api, finished_brief, django_assert_num_queries):
    api.get("/api/v1/briefs")
    with django_assert_num_queries(2):
        api.get(f"/api/v1/briefs/{finished_brief.pk}")


def test_the_steps_make_three_queries_however_many_steps(api, finished_brief):
    api.get("/api/v1/briefs")
    url = f"/api/v1/briefs/{finished_brief.pk}/steps"
    step_append(brief_id=finished_brief.pk, kind="run_started", payload={})
    few = queries_of(lambda: api.get(url))
    for _ in range(30):
        step_append(brief_id=finished_brief.pk, kind="router", payload={})
    assert queries_of(lambda: api.get(url)) == few == 3


@pytest.mark.parametrize("page_size", [5, 50])
def test_the_route_list_makes_constant_queries(api, page_size, django_assert_num_queries):
    api.get("/api/v1/briefs")
    with django_assert_num_queries(LIST_QUERIES):
        api.get("/api/v1/catalog/routes", {"page_size": page_size, "health": "unknown"})


@pytest.mark.parametrize("page_size", [5, 50])
def test_the_platform_list_makes_constant_queries(api, page_size, django_assert_num_queries):
    api.get("/api/v1/briefs")
    with django_assert_num_queries(LIST_QUERIES):
        api.get("/api/v1/catalog/platforms", {"page_size": page_size})


def test_the_delivery_log_makes_constant_queries(api, owner, settings, finished_brief):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    hook = webhook_create(owner=owner, url="http://127.0.0.1:9/hook")
    api.get("/api/v1/briefs")
    url = f"/api/v1/webhooks/{hook.pk}/deliveries"
    WebhookDelivery.objects.create(
        webhook=hook,
        brief=finished_brief,
        event="e",
        event_id="00000000-0000-0000-0000-000000000001",
        body="{}",
    )
    one = queries_of(lambda: api.get(url))
    WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(
                webhook=hook, event=f"e{i}", event_id=f"00000000-0000-0000-0000-{i:012d}", body="{}"
            )
            for i in range(2, 30)
        ]
    )
    assert queries_of(lambda: api.get(url)) == one == 4
