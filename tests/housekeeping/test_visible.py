"""What people see of housekeeping: the command's report, the schedule, the status API (staff
only) and the route health page."""

import io

import pytest
from django.core.management import call_command
from django_q.models import Schedule

from fetching.models import FetchAttempt
from housekeeping.models import HousekeepingRun
from tests.api.conftest import ApiClient
from tests.housekeeping.rows import attempt_at

pytestmark = pytest.mark.django_db


def housekeep(*args: str) -> str:
    out = io.StringIO()
    call_command("housekeep", *args, stdout=out)
    return out.getvalue()


def test_the_dry_run_prints_what_would_go_per_table_and_removes_nothing():
    for _ in range(3):
        attempt_at(days=40)
    text = housekeep("--dry-run")
    assert "fetching_fetchattempt          would remove          3" in text
    assert "briefs_runstep" in text and "total" in text and " s" in text
    assert FetchAttempt.objects.count() == 3


def test_the_command_prints_what_it_removed_per_table():
    attempt_at(days=40)
    text = housekeep()
    assert "fetching_fetchattempt          removed          1" in text
    assert "finished" in text.splitlines()[-1]
    assert not FetchAttempt.objects.exists()


def test_housekeeping_is_scheduled_daily():
    schedule = Schedule.objects.get(name="housekeeping-daily")
    assert (schedule.func, schedule.schedule_type, schedule.repeats) == (
        "housekeeping.tasks.housekeep",
        Schedule.DAILY,
        -1,
    )
    assert (schedule.next_run.hour, schedule.next_run.minute) == (3, 30)


def test_the_task_runs_housekeeping():
    from housekeeping.tasks import housekeep as task

    attempt_at(days=40)
    assert task()["fetching_fetchattempt"] == 1
    assert HousekeepingRun.objects.get().status == "finished"


def test_staff_see_table_sizes_and_the_last_run_on_the_status_api(staff, owner, settings):
    from briefs.tokens.service import token_issue

    settings.RSSHUB_URL = "http://127.0.0.1:9"  # closed port: RSSHub is just reported down
    attempt_at(days=40)
    housekeep()
    as_staff = ApiClient(token_issue(user=staff, name="t").secret).get("/api/v1/status").json()
    tables = {t["table"]: t for t in as_staff["housekeeping"]["tables"]}
    assert {"fetching_fetchattempt", "briefs_runstep", "fetching_item", "briefs_brief"} <= set(
        tables
    )
    assert all(isinstance(t["rows"], int) for t in tables.values())
    run = as_staff["housekeeping"]["last_run"]
    assert run["status"] == "finished" and run["removed"]["fetching_fetchattempt"] == 1
    as_owner = ApiClient(token_issue(user=owner, name="t").secret).get("/api/v1/status").json()
    assert as_owner["housekeeping"] is None, "a non-staff user saw the table sizes"


def test_the_route_health_page_shows_the_last_run_and_table_sizes(staff, client):
    attempt_at(days=40)
    housekeep()
    client.force_login(staff)
    html = client.get("/health/routes/").content.decode()
    assert 'id="housekeeping"' in html and "Last run" in html
    assert "<code>fetching_fetchattempt</code>" in html


def test_the_route_health_page_says_when_housekeeping_never_ran(staff, client):
    client.force_login(staff)
    assert "Housekeeping has not run yet." in client.get("/health/routes/").content.decode()
