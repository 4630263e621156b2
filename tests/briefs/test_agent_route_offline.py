"""The route node's offline method against the real catalog snapshot: it takes the subject the
question names, prefers a route that takes it, and asks (``ctx.needs``) rather than read a
route's example subject."""

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings

from briefs.agent.context import RunContext
from briefs.agent.nodes import node_platform, node_rewrite, node_route
from briefs.agent.params import example_leaks
from briefs.models import Brief
from catalog.models import Route

pytestmark = pytest.mark.django_db


def route(question: str) -> tuple[bool, RunContext]:
    ctx = RunContext(
        brief=Brief(question=question),
        owner=None,
        use_llm=False,
        budget=settings.AGENT_ROUTER_BUDGET,
        fetch_retry=settings.AGENT_FETCH_RETRY,
        memory_steps=[],
    )

    async def run() -> bool:
        ctx.rewrite = await node_rewrite(ctx)
        return await node_platform(ctx) and await node_route(ctx)

    return async_to_sync(run)(), ctx


def steps(ctx: RunContext, kind: str) -> list[dict]:
    return [payload for k, payload in ctx.memory_steps if k == kind]


def test_the_route_that_takes_the_named_pair_is_chosen_over_one_that_cannot():
    chosen, ctx = route("Open issues in the django/django GitHub repository")

    assert chosen is True
    assert ctx.paths[0][0] == "/github/issue/django/django/open"
    assert ctx.needs == []


def test_a_question_without_its_subject_asks_for_it_once_per_parameter():
    chosen, ctx = route("Latest pull requests I should review on GitHub")

    assert (chosen, ctx.paths) == (False, [])
    assert [(n["source"], n["parameter"]) for n in ctx.needs] == [
        ("GitHub", "user"),
        ("GitHub", "repo"),
    ]
    need = ctx.needs[0]
    assert need["route"].startswith("/github/") and need["description"]
    assert "DIYgod" not in need["format"] and "RSSHub" not in ctx.needs[1]["format"]
    refused = steps(ctx, "choice_rejected")
    assert refused and all(r["node"] == "route" for r in refused)
    assert any("no value for :user" in r["reason"] for r in refused)
    assert not steps(ctx, "choice")[1:], "no route was chosen"


def test_a_general_question_takes_a_route_that_needs_no_subject():
    chosen, ctx = route("少数派最近发了哪些文章")

    assert chosen is True and ctx.needs == []
    path, route_id = ctx.paths[0]
    chosen_route = Route.objects.get(pk=route_id)
    assert path.startswith("/sspai/")
    leaks = example_leaks(
        template=chosen_route.path,
        parameters=chosen_route.parameters,
        description=chosen_route.description,
        example=chosen_route.example,
        path=path,
    )
    assert leaks == [], f"{path} carries its example's subject"
