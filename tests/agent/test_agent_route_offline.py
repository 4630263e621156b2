"""The route node's offline method against the real catalog snapshot: it takes the subject the
question names, prefers a route that takes it, and asks (``ctx.needs``) rather than read a
route's example subject."""

from urllib.parse import unquote

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings

from agent.context import RunContext
from agent.platform import node_platform
from agent.rewrite import node_rewrite
from agent.route import node_route
from agent.routes.params import example_leaks
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


def first_path(question: str) -> str:
    """The first path the run reads for ``question``, percent-decoded; fails saying what the
    run asked for or waits on when it reads none."""
    chosen, ctx = route(question)
    assert chosen is True and ctx.paths, (
        f"{question!r} read nothing (needs {ctx.needs}, setup {ctx.setup_needed})"
    )
    return unquote(ctx.paths[0][0])


def steps(ctx: RunContext, kind: str) -> list[dict]:
    return [payload for k, payload in ctx.memory_steps if k == kind]


def test_the_route_that_takes_the_named_pair_is_chosen_over_one_that_cannot():
    chosen, ctx = route("Open issues in the django/django GitHub repository")

    assert chosen is True
    assert ctx.paths[0][0] == "/github/issue/django/django"
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


@pytest.mark.parametrize(
    ("question", "path"),
    [
        # The shape of the value: a UC... id is a channel's, a PL... id a playlist's.
        (
            "Videos on the YouTube channel UC_x5XG1OV2P6uZZ5FSM9Ttw",
            "/youtube/channel/UC_x5XG1OV2P6uZZ5FSM9Ttw",
        ),
        (
            "YouTube playlist PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf",
            "/youtube/playlist/PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf",
        ),
        # The kind of subject the question names: an organization, a wiki, a user's stars.
        ("Events in the golang organization on GitHub", "/github/org_event/golang"),
        ("Wiki changes in the neovim/neovim repository", "/github/wiki/neovim/neovim"),
        ("Repositories sindresorhus starred on GitHub", "/github/starred_repos/sindresorhus"),
        # 用户 says whose feed it is; 动态 what is asked of it.
        ("B站用户 946974 的动态", "/bilibili/user/dynamic/946974"),
        # A value the question names among a parameter's listed ones.
        ("Show HN posts on Hacker News", "/hackernews/show"),
        ("New releases of the helm/helm repo", "/github/repo_event/helm/helm/release"),
    ],
)
def test_the_route_suited_to_the_named_subject_is_chosen(question, path):
    chosen, ctx = route(question)

    assert chosen is True, ctx.needs
    assert ctx.paths[0][0] == path


def test_a_repository_named_as_owner_name_reads_the_platform_asked_not_one_its_words_name():
    chosen, ctx = route("Latest commits in the tokio-rs/tokio repository")

    assert chosen is True
    assert ctx.platforms[0] == "github", "rs or tokio name no platform here"
    assert ctx.paths[0][0].startswith("/github/") and "tokio-rs/tokio" in ctx.paths[0][0]


def test_a_name_in_the_subjects_place_is_not_read_as_a_route_example():
    _chosen, ctx = route("What did karpathy post on Twitter this week")

    assert "1650844643997646852" not in " ".join(p for p, _ in ctx.paths), (
        "a tweet id is a subject: the example's never fills it"
    )
    for path, route_id in ctx.paths:
        chosen_route = Route.objects.get(pk=route_id)
        assert not example_leaks(
            template=chosen_route.path,
            parameters=chosen_route.parameters,
            description=chosen_route.description,
            example=chosen_route.example,
            path=path,
        )


def test_the_user_timeline_takes_a_name_in_the_subjects_place_once_enabled(settings):
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 0  # the search sees the change at once
    Route.objects.filter(path="/twitter/user/:id/:routeParams?").update(enabled=True)

    chosen, ctx = route("What has sama been tweeting lately")

    assert chosen is True
    assert ctx.paths[0][0] == "/twitter/user/sama"
