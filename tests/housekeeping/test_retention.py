"""Rows on each side of every age limit: only the old ones go; briefs and cited items stay."""

from datetime import timedelta

import pytest
from django.utils import timezone

from briefs.models import (
    Brief,
    BriefQuotaDay,
    BriefStatus,
    DeliveryStatus,
    RunStep,
    TokenUsage,
    Webhook,
    WebhookDelivery,
)
from catalog.models import CircuitChange, Route
from fetching.models import Feed, FetchAttempt, Item
from housekeeping.models import HousekeepingRun, RunStatus
from housekeeping.services import housekeep_run
from tests.housekeeping.rows import (
    ago,
    attempt_at,
    brief_finished,
    circuit_change_at,
    feed_at,
    item_at,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def ages(settings):
    settings.HOUSEKEEP_ATTEMPT_DAYS = 30
    settings.HOUSEKEEP_STEP_DAYS = 14
    settings.HOUSEKEEP_CIRCUIT_CHANGE_DAYS = 90
    settings.HOUSEKEEP_DELIVERY_DAYS = 30
    settings.HOUSEKEEP_USAGE_DAYS = 90
    settings.HOUSEKEEP_ITEM_BODY_DAYS = 30
    settings.HOUSEKEEP_ITEM_ROW_DAYS = 90
    settings.HOUSEKEEP_BATCH_SIZE = 2000


def test_it_removes_attempts_past_their_age_only(route):
    old, new = attempt_at(days=31, route=route), attempt_at(days=29, route=route)
    report = housekeep_run()
    assert list(FetchAttempt.objects.values_list("pk", flat=True)) == [new.pk]
    assert report.removed["fetching_fetchattempt"] == 1, old


def test_route_counters_are_unaffected_by_pruning_attempts(route):
    for _ in range(3):
        attempt_at(days=40, route=route)
    housekeep_run()
    route.refresh_from_db()
    assert (route.attempts, route.successes, route.consecutive_failures) == (7, 5, 2)
    assert not FetchAttempt.objects.exists()


def test_it_removes_circuit_changes_past_their_age_only(route):
    circuit_change_at(route, days=91)
    kept = circuit_change_at(route, days=89)
    housekeep_run()
    assert list(CircuitChange.objects.values_list("pk", flat=True)) == [kept.pk]


def test_it_prunes_the_steps_of_briefs_finished_past_the_step_age_only(owner):
    old = brief_finished(owner, days=15, steps=8)
    recent = brief_finished(owner, days=13, steps=8)
    report = housekeep_run()
    assert not RunStep.objects.filter(brief=old).exists()
    assert RunStep.objects.filter(brief=recent).count() == 8
    assert report.removed["briefs_runstep"] == 8
    old.refresh_from_db()
    recent.refresh_from_db()
    assert old.steps_pruned_at is not None and recent.steps_pruned_at is None


def test_a_pruned_brief_keeps_a_summary_of_its_steps(owner):
    brief = brief_finished(owner, days=15, steps=8)
    housekeep_run()
    brief.refresh_from_db()
    summary = brief.steps_summary
    assert summary["steps"] == 8
    assert summary["kinds"] == {"run_started": 2, "fetch_result": 4, "brief_ready": 2}
    assert summary["fetch_outcomes"] == {"ok": 4}
    assert summary["first_at"] and summary["last_at"]


def test_it_keeps_the_steps_of_an_unfinished_brief_however_old(owner):
    brief = brief_finished(owner, days=60, steps=3)
    Brief.objects.filter(pk=brief.pk).update(status=BriefStatus.RUNNING, finished_at=None)
    housekeep_run()
    assert RunStep.objects.filter(brief=brief).count() == 3


def test_an_old_brief_keeps_its_body_citations_and_page(owner, client):
    feed = feed_at("/test/old", fetched_days=400)
    cited = item_at(feed, "cited", seen_days=400)
    brief = brief_finished(owner, days=400, steps=4, citations=[cited])
    before = Brief.objects.values("body", "citations", "coverage").get(pk=brief.pk)
    housekeep_run()
    after = Brief.objects.values("body", "citations", "coverage").get(pk=brief.pk)
    assert after == before
    client.force_login(owner)
    page = client.get(brief.get_absolute_url())
    assert page.status_code == 200
    html = page.content.decode()
    assert "Something happened" in html and cited.link in html, "the body or its source is gone"
    assert 'id="steps-expired"' in html and "The step log has expired" in html


def test_it_removes_ended_webhook_deliveries_past_their_age_only(owner):
    hook = Webhook.objects.create(owner=owner, url="https://example.com/h", secret="s")

    def delivery(days: float, status: str) -> WebhookDelivery:
        import uuid

        return WebhookDelivery.objects.create(
            webhook=hook, event="brief.finished", event_id=uuid.uuid4(), body="{}",
            status=status, created_at=ago(days),
        )  # fmt: skip

    delivery(31, DeliveryStatus.SUCCEEDED)
    delivery(31, DeliveryStatus.FAILED)
    pending = delivery(31, DeliveryStatus.PENDING)
    recent = delivery(29, DeliveryStatus.SUCCEEDED)
    housekeep_run()
    assert set(WebhookDelivery.objects.values_list("pk", flat=True)) == {pending.pk, recent.pk}
    assert Webhook.objects.filter(pk=hook.pk).exists()


@pytest.mark.parametrize("model", [TokenUsage, BriefQuotaDay])
def test_it_removes_usage_days_past_their_age_only(owner, model):
    today = timezone.now().date()
    model.objects.create(user=owner, day=today - timedelta(days=91))
    kept = {
        model.objects.create(user=owner, day=today - timedelta(days=89)).pk,
        model.objects.create(user=owner, day=today).pk,
    }
    housekeep_run()
    assert set(model.objects.values_list("pk", flat=True)) == kept


def test_it_clears_the_text_of_old_uncited_items_only(owner):
    feed = feed_at("/test/texts", fetched_days=0)
    old = item_at(feed, "old", seen_days=31)
    item_at(feed, "recent", seen_days=29)
    cited = item_at(feed, "cited", seen_days=31)
    brief_finished(owner, days=31, citations=[cited])
    report = housekeep_run()
    texts = dict(Item.objects.values_list("guid", "summary"))
    assert texts == {"old": "", "recent": "the item's text", "cited": "the item's text"}
    assert report.removed["fetching_item (text cleared)"] == 1, old


def test_an_items_text_goes_at_the_next_run_once_its_citing_brief_is_deleted(owner):
    feed = feed_at("/test/texts", fetched_days=0)
    cited = item_at(feed, "cited", seen_days=31)
    brief = brief_finished(owner, days=31, citations=[cited])
    housekeep_run()
    assert Item.objects.get(pk=cited.pk).summary
    brief.delete()
    housekeep_run()
    assert Item.objects.get(pk=cited.pk).summary == ""


def test_item_keys_stay_while_their_feed_is_fetched(owner):
    fetched = feed_at("/test/fetched", fetched_days=89)
    key = item_at(fetched, "kept-key", seen_days=300)
    housekeep_run()
    item = Item.objects.get(pk=key.pk)
    assert (item.guid_hash, item.summary) == (key.guid_hash, "")


def test_items_of_a_feed_no_longer_fetched_go_unless_cited(owner):
    stale = feed_at("/test/stale", fetched_days=91)
    item_at(stale, "gone", seen_days=300)
    cited = item_at(stale, "cited", seen_days=300)
    brief_finished(owner, days=300, citations=[cited])
    report = housekeep_run()
    assert list(Item.objects.values_list("guid", flat=True)) == ["cited"]
    assert report.removed["fetching_item"] == 1
    assert Feed.objects.filter(pk=stale.pk).exists(), "a feed with a cited item went"


def test_a_feed_no_longer_fetched_goes_once_its_items_are_gone():
    empty = feed_at("/test/empty", fetched_days=91)
    item_at(empty, "gone", seen_days=300)
    never = feed_at("/test/never", fetched_days=None)
    fresh = feed_at("/test/fresh", fetched_days=1)
    report = housekeep_run()
    assert list(Feed.objects.values_list("pk", flat=True)) == [fresh.pk]
    assert report.removed["fetching_feed"] == 2, (empty, never)


def test_a_dry_run_counts_what_a_run_removes_and_changes_nothing(owner, route):
    attempt_at(days=31, route=route)
    circuit_change_at(route, days=91)
    brief_finished(owner, days=15, steps=5)
    feed = feed_at("/test/dry", fetched_days=91)
    item_at(feed, "a", seen_days=31)
    counts = {
        "attempts": FetchAttempt.objects.count(),
        "steps": RunStep.objects.count(),
        "items": Item.objects.count(),
        "feeds": Feed.objects.count(),
    }
    dry = housekeep_run(dry_run=True)
    assert counts == {
        "attempts": FetchAttempt.objects.count(),
        "steps": RunStep.objects.count(),
        "items": Item.objects.count(),
        "feeds": Feed.objects.count(),
    }
    assert not HousekeepingRun.objects.exists(), "a dry run was recorded"
    real = housekeep_run()
    # The dry run counts a feed whose items are still there as kept; the run removes both.
    assert {**dry.removed, "fetching_feed": 1} == real.removed


def test_it_deletes_in_batches_of_the_configured_size(settings, route):
    settings.HOUSEKEEP_BATCH_SIZE = 3
    for _ in range(10):
        attempt_at(days=31, route=route)
    deletes = []
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        housekeep_run()
    table = FetchAttempt._meta.db_table
    deletes = [q["sql"] for q in queries if q["sql"].startswith(f'DELETE FROM "{table}"')]
    assert len(deletes) == 4, "10 rows in batches of 3 take four statements"
    assert not FetchAttempt.objects.exists()


def test_a_run_past_its_time_limit_stops_between_batches_and_says_so(settings, route):
    settings.HOUSEKEEP_BATCH_SIZE = 3
    for _ in range(10):
        attempt_at(days=31, route=route)
    report = housekeep_run(max_seconds=1e-9)
    assert report.status == RunStatus.STOPPED
    assert FetchAttempt.objects.count() == 7, "more than one batch ran past the limit"
    run = HousekeepingRun.objects.get()
    assert (run.status, run.removed) == (RunStatus.STOPPED, {"fetching_fetchattempt": 3})
    assert housekeep_run().status == RunStatus.FINISHED
    assert not FetchAttempt.objects.exists()


def test_a_run_is_recorded_with_what_it_removed(route):
    attempt_at(days=31, route=route)
    housekeep_run()
    run = HousekeepingRun.objects.get()
    assert run.status == RunStatus.FINISHED and run.finished_at is not None
    assert run.removed["fetching_fetchattempt"] == 1
    assert Route.objects.filter(pk=route.pk).exists()
