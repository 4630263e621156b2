"""The watches API: create, list, read, change, delete, run now; hostile bodies are 400s that
name the field; another user's watch is a 404 on every verb."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from briefs.models import Brief
from tests.api.conftest import ApiClient, error_of
from tests.watches.conftest import run_finished, watch_make
from watches.models import Watch, WatchRun

pytestmark = pytest.mark.django_db
URL = "/api/v1/watches"


def detail_url(watch_id: int) -> str:
    return f"{URL}/{watch_id}"


def create(api: ApiClient, **body):
    return api.post(URL, {"question": "new nginx tags", **body})


def test_it_creates_a_watch_and_answers_201_with_it(api, owner):
    response = create(
        api, schedule="weekly", time="07:30", weekday=1, timezone="Asia/Shanghai", offline=True
    )
    assert response.status_code == 201, response.content
    data = response.json()
    watch = Watch.objects.get(pk=data["id"], owner=owner)
    assert data["question"] == "new nginx tags"
    assert (data["schedule"], data["time"], data["weekday"]) == ("weekly", "07:30", 1)
    assert (data["timezone"], data["offline"], data["active"]) == ("Asia/Shanghai", True, True)
    assert (data["notify_email"], data["notify_only_new"], data["failing"]) == (False, True, False)
    next_run = datetime.fromisoformat(data["next_run_at"])
    assert next_run == watch.next_run_at > timezone.now()
    local = next_run.astimezone(watch.slot.zone)
    assert (local.isoweekday(), local.hour, local.minute) == (1, 7, 30)
    assert data["urls"]["self"].endswith(detail_url(watch.pk))
    assert data["urls"]["run"].endswith(f"{detail_url(watch.pk)}/run")


def test_defaults_are_a_daily_run_at_eight_utc(api):
    data = create(api).json()
    assert (data["schedule"], data["time"], data["weekday"], data["timezone"]) == (
        "daily", "08:00", None, "UTC",
    )  # fmt: skip


def test_an_hourly_watch_runs_within_the_hour(api):
    data = create(api, schedule="hourly", time="00:15").json()
    next_run = datetime.fromisoformat(data["next_run_at"])
    assert timedelta(0) < next_run - timezone.now() <= timedelta(hours=1)
    assert next_run.minute == 15


HOSTILE = [
    ({"question": ""}, "question"),
    ({"question": "   "}, "question"),
    ({"question": 42}, "question"),
    ({"question": "x" * 2001}, "question"),
    ({"question": "bad\x00byte"}, "question"),
    ({"schedule": "minutely"}, "schedule"),
    ({"schedule": ["daily"]}, "schedule"),
    ({"schedule": "every 1s"}, "schedule"),
    ({"time": "25:00"}, "time"),
    ({"time": "8:00"}, "time"),
    ({"time": 800}, "time"),
    ({"time": "08:00:00"}, "time"),
    ({"time": "08:0\n"}, "time"),
    ({"schedule": "weekly", "time": "08:00"}, "weekday"),
    ({"schedule": "weekly", "weekday": 0}, "weekday"),
    ({"schedule": "weekly", "weekday": 8}, "weekday"),
    ({"schedule": "weekly", "weekday": "1"}, "weekday"),
    ({"schedule": "weekly", "weekday": True}, "weekday"),
    ({"schedule": "daily", "weekday": 3}, "weekday"),
    ({"timezone": "Mars/Olympus"}, "timezone"),
    ({"timezone": "../../../etc/passwd"}, "timezone"),
    ({"timezone": "/etc/localtime"}, "timezone"),
    ({"timezone": ""}, "timezone"),
    ({"timezone": "x" * 500}, "timezone"),
    ({"timezone": 8}, "timezone"),
    ({"offline": "yes"}, "offline"),
    ({"notify_email": 1}, "notify_email"),
    ({"notify_only_new": None}, "notify_only_new"),
    ({"active": False}, "active"),  # not a field of creation
    ({"owner": 2}, "owner"),
    ({"next_run_at": "2020-01-01T00:00:00Z"}, "next_run_at"),
]


@pytest.mark.parametrize(("body", "field"), HOSTILE)
def test_hostile_bodies_are_400s_naming_the_field(api, body, field):
    response = api.post(URL, {"question": "new nginx tags", **body})
    assert response.status_code == 400, response.content
    assert field in error_of(response)["extra"]["fields"]
    assert Watch.objects.count() == 0


@pytest.mark.parametrize("raw", [b"[]", b'"question"', b"{", b"null", b'{"question": NaN}'])
def test_a_body_that_is_not_a_json_object_is_a_400(api, raw):
    response = api.post(URL, raw=raw)
    assert response.status_code == 400
    error_of(response)


def test_notify_email_needs_an_address(api, owner):
    owner.email = ""
    owner.save()
    response = create(api, notify_email=True)
    assert response.status_code == 400
    assert "notify_email" in error_of(response)["extra"]["fields"]


def test_the_number_of_watches_per_user_is_capped(api, api_for, other_user, settings):
    settings.WATCHES_PER_USER = 2
    assert [create(api).status_code for _ in range(2)] == [201, 201]
    refused = create(api)
    assert refused.status_code == 400
    assert "At most 2 watches per user." in error_of(refused)["message"]
    assert create(api_for(other_user)).status_code == 201  # a quota per user


def test_the_list_is_the_callers_watches_in_constant_queries(
    api, owner, other_user, django_assert_num_queries
):
    for n in range(12):
        watch_make(owner, question=f"question {n}")
    watch_make(other_user, question="theirs")
    api.get(URL)
    with django_assert_num_queries(3):  # token+user, count, page
        response = api.get(URL, {"page_size": 10})
    data = response.json()
    assert data["count"] == 12
    assert all(w["question"].startswith("question") for w in data["results"])


def test_it_reads_a_watch(api, owner):
    watch = watch_make(owner)
    data = api.get(detail_url(watch.pk)).json()
    assert (data["id"], data["question"], data["timezone"]) == (
        watch.pk,
        watch.question,
        "Asia/Shanghai",
    )


def test_patch_changes_the_schedule_and_moves_the_next_run(api, owner):
    watch = watch_make(owner, schedule="daily", time="08:00", timezone="UTC")
    response = api.generic(
        "PATCH", detail_url(watch.pk),
        b'{"schedule": "weekly", "weekday": 5, "time": "18:45", "timezone": "Europe/Berlin"}',
    )  # fmt: skip
    assert response.status_code == 200, response.content
    watch.refresh_from_db()
    local = watch.next_run_at.astimezone(watch.slot.zone)
    assert (local.isoweekday(), local.hour, local.minute) == (5, 18, 45)
    assert response.json()["next_run_at"] == watch.next_run_at.isoformat().replace("+00:00", "Z")


def test_patch_pauses_and_resumes(api, owner):
    watch = watch_make(owner)
    paused = api.generic("PATCH", detail_url(watch.pk), b'{"active": false}').json()
    assert (paused["active"], paused["next_run_at"]) == (False, None)
    Watch.objects.filter(pk=watch.pk).update(next_run_at=timezone.now() - timedelta(days=3))
    resumed = api.generic("PATCH", detail_url(watch.pk), b'{"active": true}').json()
    # A resumed watch runs at its next slot from now: the missed ones are not made up.
    assert datetime.fromisoformat(resumed["next_run_at"]) > timezone.now()


def test_patch_to_daily_drops_the_weekday(api, owner):
    watch = watch_make(owner, schedule="weekly", weekday=3)
    data = api.generic("PATCH", detail_url(watch.pk), b'{"schedule": "daily"}').json()
    assert (data["schedule"], data["weekday"]) == ("daily", None)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"schedule": "weekly"}', "weekday"),
        (b'{"question": ""}', "question"),
        (b'{"time": "noon"}', "time"),
        (b'{"active": "false"}', "active"),
        (b'{"id": 5}', "id"),
        (b'{"failing": false}', "failing"),
    ],
)
def test_hostile_patches_are_400s_and_change_nothing(api, owner, body, field):
    watch = watch_make(owner)
    response = api.generic("PATCH", detail_url(watch.pk), body)
    assert response.status_code == 400
    assert field in error_of(response)["extra"]["fields"]
    assert Watch.objects.get(pk=watch.pk).updated_at == watch.updated_at


def test_delete_removes_the_watch_and_keeps_its_briefs(api, owner):
    watch = watch_make(owner)
    run = run_finished(watch)
    assert api.delete(detail_url(watch.pk)).status_code == 204
    assert not Watch.objects.filter(pk=watch.pk).exists()
    brief = Brief.objects.get(pk=run.brief_id)
    assert brief.watch_id is None


def test_run_now_answers_202_with_a_brief_of_the_watch(api, owner):
    watch = watch_make(owner, offline=True)
    response = api.post(f"{detail_url(watch.pk)}/run")
    assert response.status_code == 202, response.content
    brief = Brief.objects.get(pk=response.json()["brief_id"])
    assert (brief.owner, brief.watch_id, brief.question, brief.offline) == (
        owner, watch.pk, watch.question, True,
    )  # fmt: skip
    run = WatchRun.objects.get(brief=brief)
    assert run.due_at is None
    # The brief is an ordinary brief: the briefs API shows it, with its watch.
    data = api.get(f"/api/v1/briefs/{brief.pk}").json()
    assert (data["watch"], data["delta"]) == (watch.pk, None)


def test_run_now_counts_against_the_daily_quota(api, owner, settings):
    settings.API_BRIEFS_PER_DAY = 1
    watch = watch_make(owner, offline=True)
    assert api.post(f"{detail_url(watch.pk)}/run").status_code == 202
    refused = api.post(f"{detail_url(watch.pk)}/run")
    assert refused.status_code == 429
    assert WatchRun.objects.count() == 1


def test_the_brief_api_gives_watch_and_delta(api, owner):
    watch = watch_make(owner)
    run = run_finished(watch, new=2, repeated=5)
    Brief.objects.filter(pk=run.brief_id).update(
        delta={"since": "2026-11-30T00:00:00+00:00", "new_items": 2, "repeated_items": 5}
    )
    detail = api.get(f"/api/v1/briefs/{run.brief_id}").json()
    assert detail["watch"] == watch.pk
    assert detail["delta"] == {
        "since": "2026-11-30T00:00:00+00:00", "new_items": 2, "repeated_items": 5,
    }  # fmt: skip
    (listed,) = api.get("/api/v1/briefs").json()["results"]
    assert (listed["watch"], listed["delta"]) == (watch.pk, detail["delta"])


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("GET", "", b""),
        ("PATCH", "", b'{"active": false}'),
        ("PATCH", "", b'{"schedule": "nonsense"}'),
        ("DELETE", "", b""),
        ("POST", "/run", b""),
    ],
)
def test_another_users_watch_is_a_404_on_every_verb(other_api, owner, method, suffix, body):
    watch = watch_make(owner)
    response = other_api.generic(method, detail_url(watch.pk) + suffix, body)
    assert response.status_code == 404
    assert error_of(response)["message"] == "No such watch."
    after = Watch.objects.get(pk=watch.pk)
    assert (after.active, after.updated_at) == (True, watch.updated_at)
    assert not WatchRun.objects.exists()


def test_another_users_watches_are_not_listed(other_api, owner):
    watch_make(owner)
    assert other_api.get(URL).json()["count"] == 0


@pytest.mark.parametrize("path", ["/api/v1/watches/0", "/api/v1/watches/-1", "/api/v1/watches/x",
                                  "/api/v1/watches/99999999999999999999"])  # fmt: skip
def test_ids_that_are_not_ids_are_404s(api, path):
    response = api.get(path)
    assert response.status_code == 404
    error_of(response)


def test_the_api_needs_a_token(anon):
    assert anon.get(URL).status_code == 401
    assert anon.post(URL, {"question": "x"}).status_code == 401
