"""One admission for every way a brief starts: the same cases against each way in (dashboard ask,
follow-up, rerun and needs_input answer; a watch run now from the dashboard, the API, or by its
schedule; the API's create and rerun; the MCP tools ask and follow_up).

Each way returns the refusal its caller sees ('' when admitted) after checking that the refusal
has the way's own shape (the API's 429 with Retry-After, the dashboard's 429 or message, the
MCP tool error, the watch page's note). The prerequisites (a brief to rerun, a watch) are rows
made an hour ago, outside any limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import anyio
import pytest
from django.contrib.auth.models import Group
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from mcp import Client as McpClient

from briefs.models import Brief, BriefOutcome, BriefQuotaDay, TokenUsage, UsageLimits
from briefs.quotas import quota_day
from briefs.tokens.service import token_issue
from mcp_server.caller import Caller
from mcp_server.server import build_server
from tests.brief_examples import finished_brief
from watches.dispatch import watches_dispatch
from watches.services import watch_create

pytestmark = pytest.mark.django_db(transaction=True)

MARKERS = {
    "briefs_per_day": "briefs a day",
    "briefs_per_minute": "briefs a minute",
    "llm_tokens_per_day": "tokens",
}
NEED = {"name": "repo", "label": "repository", "example": "django/django", "route": "/gh/:repo"}


@dataclass
class World:
    owner: object
    client: Client  # signed in as the owner
    secret: str  # the owner's API token
    earlier: Brief  # a finished brief of the owner, an hour old
    watch: object


@pytest.fixture
def world(owner, settings) -> World:
    settings.RSSHUB_URL = "http://127.0.0.1:9"  # nothing listens: the home page's probe fails
    settings.API_THROTTLE_RATE = "100000/minute"
    settings.API_CREATE_THROTTLE_RATE = "100000/minute"
    settings.API_BRIEFS_PER_DAY = 1000
    settings.OPENAI_API_KEY = ""
    settings.WATCHES_PER_USER = 20
    hour_ago = timezone.now() - timedelta(hours=1)
    earlier = finished_brief(
        owner, question="Open issues on GitHub", offline=False, created_at=hour_ago,
        outcome=BriefOutcome.NEEDS_INPUT, needs=[NEED],
    )  # fmt: skip
    watch = watch_create(owner=owner, question="Alpha Wire flash news", schedule="hourly")
    client = Client()
    client.force_login(owner)
    return World(owner, client, token_issue(user=owner, name="t").secret, earlier, watch)


def _form_errors(response) -> str:
    found = re.findall(r'<ul class="errorlist[^"]*">(.*?)</ul>', response.content.decode(), re.S)
    return re.sub(r"<[^>]+>", " ", " ".join(found))


def _messages(response) -> str:
    return " ".join(str(m) for m in get_messages(response.wsgi_request))


def dashboard_ask(w: World) -> str:
    response = w.client.post("/", {"question": "What is new on Alpha Wire?"})
    if response.status_code == 302:
        return ""
    assert response.status_code == 429, response.status_code
    return _form_errors(response)


def dashboard_follow_up(w: World) -> str:
    response = w.client.post("/", {"question": "and yesterday?", "follow_up_of": w.earlier.pk})
    if response.status_code == 302:
        return ""
    assert response.status_code == 429, response.status_code
    return _form_errors(response)


def _redirected(w: World, url: str, *, back: str) -> str:
    response = w.client.post(url, {"value_0": "django/django"})
    assert response.status_code == 302
    if response["Location"] == back:
        return _messages(response) or "refused without a word"
    return ""


def dashboard_rerun(w: World) -> str:
    back = w.earlier.get_absolute_url()
    return _redirected(w, reverse("brief-rerun", args=[w.earlier.pk]), back=back)


def dashboard_answer(w: World) -> str:
    back = w.earlier.get_absolute_url()
    return _redirected(w, reverse("brief-answer", args=[w.earlier.pk]), back=back)


def dashboard_watch_run(w: World) -> str:
    """ "Run now" stays on the watch either way: a refusal is the message it carries."""
    response = w.client.post(reverse("watch-run", args=[w.watch.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("watch-detail", args=[w.watch.pk]) + "#runs"
    return _messages(response)


def watch_schedule(w: World) -> str:
    type(w.watch).objects.filter(pk=w.watch.pk).update(
        next_run_at=timezone.now() - timedelta(minutes=1)
    )
    watches_dispatch(seconds=5)
    w.watch.refresh_from_db()
    if not w.watch.skip_reason:
        return ""
    page = w.client.get(reverse("watch-detail", args=[w.watch.pk])).content.decode()
    [note] = re.findall(r'<p class="error-box" id="watch-skipped">(.*?)</p>', page, re.S)
    return note


def _api(w: World, path: str, body: dict | None = None) -> str:
    response = w.client.post(
        path, body or {}, content_type="application/json",
        headers={"Authorization": f"Bearer {w.secret}"},
    )  # fmt: skip
    if response.status_code == 202:
        return ""
    assert response.status_code == 429, response.content
    assert int(response["Retry-After"]) >= 1
    return response.json()["message"]


def api_ask(w: World) -> str:
    return _api(w, "/api/v1/briefs", {"question": "What is new on Alpha Wire?"})


def api_rerun(w: World) -> str:
    return _api(w, f"/api/v1/briefs/{w.earlier.pk}/rerun")


def api_watch_run(w: World) -> str:
    return _api(w, f"/api/v1/watches/{w.watch.pk}/run")


def _mcp(w: World, name: str, arguments: dict) -> str:
    async def go():
        server = build_server(caller=Caller(user=w.owner, site_url="http://t"))
        async with McpClient(server, cache=None) as client:
            return await client.call_tool(name, {**arguments, "wait_seconds": 0})

    result = anyio.run(go)
    if not result.is_error:
        return ""
    assert result.structured_content["extra"]["retry_after"] >= 1
    return result.content[0].text


def mcp_ask(w: World) -> str:
    return _mcp(w, "ask", {"question": "What is new on Alpha Wire?"})


def mcp_follow_up(w: World) -> str:
    return _mcp(w, "follow_up", {"id": w.earlier.pk, "question": "and yesterday?"})


WAYS: list[Callable[[World], str]] = [
    dashboard_ask, dashboard_follow_up, dashboard_rerun, dashboard_answer, dashboard_watch_run,
    watch_schedule, api_ask, api_rerun, api_watch_run, mcp_ask, mcp_follow_up,
]  # fmt: skip
way = pytest.mark.parametrize("way", WAYS, ids=[f.__name__ for f in WAYS])


def briefs_started(w: World) -> int:
    return Brief.objects.filter(owner=w.owner).exclude(pk=w.earlier.pk).count()


@way
def test_it_starts_a_brief_within_the_limits(world, way):
    assert way(world) == ""
    assert briefs_started(world) == 1
    assert BriefQuotaDay.objects.get(user=world.owner).count == 1, "the brief took no slot"


@way
def test_a_spent_daily_quota_starts_nothing(world, way, settings):
    settings.API_BRIEFS_PER_DAY = 3
    BriefQuotaDay.objects.create(user=world.owner, day=quota_day(), count=3)
    refusal = way(world)
    assert MARKERS["briefs_per_day"] in refusal, refusal
    assert briefs_started(world) == 0


@way
def test_the_per_minute_throttle_starts_nothing(world, way, settings):
    settings.API_CREATE_THROTTLE_RATE = "2/minute"
    for n in range(2):
        Brief.objects.create(owner=world.owner, question=f"just now {n}")
    refusal = way(world)
    assert MARKERS["briefs_per_minute"] in refusal, refusal
    assert briefs_started(world) == 2
    assert not BriefQuotaDay.objects.filter(user=world.owner, count__gt=0).exists(), (
        "a refused brief kept its slot of the day"
    )


@way
def test_spent_model_tokens_start_no_model_brief(world, way, settings):
    settings.OPENAI_API_KEY = "sk-test-not-used"
    settings.LLM_DAILY_TOKEN_BUDGET = 1000
    TokenUsage.objects.create(user=world.owner, day=quota_day(), tokens=1000)
    refusal = way(world)
    assert MARKERS["llm_tokens_per_day"] in refusal, refusal
    assert briefs_started(world) == 0


@way
def test_staff_limits_for_the_user_hold(world, way):
    UsageLimits.objects.create(user=world.owner, briefs_per_day=0)
    refusal = way(world)
    assert MARKERS["briefs_per_day"] in refusal, refusal
    assert briefs_started(world) == 0


@way
def test_a_groups_limits_raise_the_setting(world, way, settings):
    settings.API_BRIEFS_PER_DAY = 0
    group = Group.objects.create(name="newsroom")
    world.owner.groups.add(group)
    UsageLimits.objects.create(group=group, briefs_per_day=5)
    assert way(world) == ""
    assert briefs_started(world) == 1


# --- Forced refreshes: a budget of their own --------------------------------------------------


def test_forced_refreshes_past_the_hourly_budget_run_from_the_window_and_say_so(world, settings):
    settings.FORCED_REFRESHES_PER_HOUR = 2
    asked = [
        api_ask_refresh(world) for _ in range(3)
    ]  # every one is admitted: only the forced refresh is refused
    briefs = Brief.objects.filter(pk__in=asked).order_by("pk")
    assert [b.refresh for b in briefs] == [True, True, False]
    first_step = briefs[2].steps.get(seq=1)
    assert first_step.payload.get("refresh_limited") is True
    page = world.client.get(briefs[2].get_absolute_url()).content.decode()
    assert "forced refresh refused" in page


def test_reruns_of_a_forced_refresh_brief_share_the_budget(world, settings):
    settings.FORCED_REFRESHES_PER_HOUR = 1
    Brief.objects.filter(pk=world.earlier.pk).update(refresh=True)
    for _ in range(3):
        assert dashboard_rerun(world) == ""
    reruns = Brief.objects.filter(owner=world.owner).exclude(pk=world.earlier.pk).order_by("pk")
    assert [b.refresh for b in reruns] == [True, False, False]


def api_ask_refresh(w: World) -> int:
    response = w.client.post(
        "/api/v1/briefs", {"question": "What is new on Alpha Wire?", "refresh": True},
        content_type="application/json", headers={"Authorization": f"Bearer {w.secret}"},
    )  # fmt: skip
    assert response.status_code == 202, response.content
    return response.json()["id"]
