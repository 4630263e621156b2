"""Briefs across two stand-in RSSHub instances: when the first fails on its own, the brief is
answered by the second within the same step, the step says so, and no route is blamed."""

import pytest
from django.utils.html import strip_tags

from briefs.models import BriefStatus, RunStep
from briefs.templatetags.steps import step_text
from catalog.models import Route
from tests.agent.conftest import brief_run, decisions, feed, steps_of
from tests.fetching.instance_standins import OWN_ERROR, InstancePair, failing_on_its_own, hang
from tests.rsshub_replies import dns_failure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world", "offline")]

QUESTION = "Alpha Wire flash news"
PATH = "/alpha/flash"


@pytest.fixture
def pair(settings):
    instances = InstancePair(settings)
    instances.b_server.route(PATH, feed("Kirin 9050 ships", "Rates unchanged"))
    yield instances
    instances.stop()


def route_health() -> tuple:
    route = Route.objects.get(path=PATH)
    return (route.attempts, route.successes, route.consecutive_failures, route.circuit)


@pytest.mark.parametrize("failure", ["refused", "hang", "own 503", "no internet"])
def test_the_brief_comes_from_the_second_instance(run_owner, pair, failure):
    if failure == "refused":
        pair.a_server.stop()
    elif failure == "hang":
        failing_on_its_own(pair.a_server, hang)
    elif failure == "own 503":
        failing_on_its_own(pair.a_server, OWN_ERROR)
    else:  # every source fails on a, its canary too, while its /healthz says it is fine
        pair.a_server.route_default(dns_failure())

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert brief.outcome == "answered"
    assert decisions(brief) == ["summarize"], "answered in the first fetch step"
    [step] = steps_of(brief, "fetch_result")
    assert (step["outcome"], step["instance"], step["failed_over"]) == (
        "ok", pair.b.label, [pair.a.label],
    )  # fmt: skip
    assert route_health() == (1, 1, 0, "closed"), "the first instance's failure is no route's"
    line = strip_tags(step_text(RunStep.objects.get(brief=brief, kind="fetch_result")))
    assert f"via {pair.b.label} (after {pair.a.label} failed)" in line
