"""Fixtures for the agent's tests: a small catalog of our own, a stand-in RSSHub on 127.0.0.1
that serves RSS per path, an LLM stand-in, and helpers to run a brief the way a worker does.

Runs of the agent use ``sync_to_async`` (and a pool thread for LLM calls), so tests that run one
are transactional; Django flushes the tables after each, so ``world`` creates the few platforms
and routes a test needs instead of importing the whole catalog.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from briefs.models import Brief, RunStep
from briefs.tasks import run_brief
from catalog.models import Platform, Route
from catalog.search_index import search_index_invalidate
from fetching.paths import catalog_cache_clear
from tests.feeds import RSS_TYPE, FeedItem, rss_body
from tests.httpserver import Reply, ScriptedServer
from tests.llmserver import LLMServer

ROUTER_MODEL, WRITER_MODEL = "router-model", "writer-model"
LLM_KEY = "sk-test-agent-0123456789"

# namespace -> (name, aliases, description, [(route key, route name, example), ...])
# Offline, "Alpha Wire flash news" chooses alpha alone and ranks its routes flash, stories,
# archive; "Beta Daily" names beta; "测试源" names the real RSSHub's test namespace.
WORLD = {
    "alpha": (
        "Alpha Wire",
        ["阿尔法快讯"],
        "A wire service.",
        [
            ("/flash", "Flash news", "/alpha/flash"),
            ("/stories", "Stories", "/alpha/stories"),
            ("/archive", "Archive", "/alpha/archive"),
            ("/user/:id", "Posts of a user", ""),  # nothing can fill :id: refused, never sent
        ],
    ),
    "beta": (
        "Beta Daily",
        [],
        "Daily flash news and stories.",
        [
            ("/latest", "Latest flash news", "/beta/latest"),
            ("/opinion", "Opinion", "/beta/opinion"),
        ],
    ),
    "test": ("RSSHub Test", ["测试源"], "", [("/:id/:params?", "Test", "/test/1")]),
}


def feed(*titles: str, title: str = "Stand-in feed") -> Reply:
    """A 200 RSS answer whose items have these titles, newest first, an hour apart."""
    items = [FeedItem(t, f"About {t}.", hours_ago=n + 1) for n, t in enumerate(titles)]
    return Reply(200, RSS_TYPE, rss_body(items, title=title))


NOT_FOUND = Reply(404, {"Content-Type": "text/plain"}, b"Not Found")  # semantic
# RSSHub's answer when the source answered with its own server error: upstream_error,
# transient. (A source that gives no answer at all, ECONNRESET or ENOTFOUND, is first checked
# against RSSHub's egress: tests/agent/test_agent_egress.py.)
UPSTREAM_DOWN = Reply(
    503,
    {"Content-Type": "text/html"},
    b"<html><title>HTTPError: Response code 502 (Bad Gateway)</title></html>",
)


def world_create(namespaces=tuple(WORLD)) -> dict[str, Route]:
    """The platforms and routes of ``WORLD`` (all by default) and nothing else: the session's
    real catalog is still there for the first transactional test. Route template -> Route."""
    Platform.objects.all().delete()
    routes = {}
    for namespace in namespaces:
        name, aliases, description, entries = WORLD[namespace]
        platform = Platform.objects.create(
            namespace=namespace, name=name, aliases=aliases, description=description
        )
        for key, route_name, example in entries:
            route = Route.objects.create(
                platform=platform,
                key=key,
                path=f"/{namespace}{key}",
                name=route_name,
                example=example,
            )
            routes[route.path] = route
    search_index_invalidate()
    catalog_cache_clear()
    return routes


def delta_platform_create() -> None:
    """A platform whose only route needs a repository the question must name."""
    platform = Platform.objects.create(namespace="delta", name="Delta Code", aliases=[])
    Route.objects.create(
        platform=platform, key="/issues/:user/:repo", path="/delta/issues/:user/:repo",
        name="Repo issues", example="/delta/issues/octo/cat",
        parameters={"user": "User name", "repo": "Repo name"},
    )  # fmt: skip
    search_index_invalidate()
    catalog_cache_clear()


@pytest.fixture
def world(transactional_db):
    routes = world_create()
    yield routes
    search_index_invalidate()
    catalog_cache_clear()


@pytest.fixture
def run_owner(transactional_db):
    return get_user_model().objects.create_user("runner", password="runner-pass-1234")


@pytest.fixture
def stub_rsshub(settings):
    """A stand-in RSSHub (404 for any path not scripted) that the agent fetches from."""
    with ScriptedServer(default=NOT_FOUND) as server:
        settings.RSSHUB_URL = server.url
        settings.RSSHUB_ACCESS_KEY = ""
        settings.RSSHUB_TIMEOUT = 3.0
        settings.RSSHUB_CONNECT_TIMEOUT = 1.0
        yield server


@pytest.fixture
def offline(settings):
    settings.OPENAI_API_KEY = ""
    settings.AGENT_FETCH_RETRY = 2
    settings.AGENT_ROUTER_BUDGET = 8


@pytest.fixture
def llm_server(settings):
    """An OpenAI-compatible stand-in the agent's model nodes talk to through the openai client."""
    with LLMServer() as server:
        settings.OPENAI_BASE_URL = server.url
        settings.OPENAI_API_KEY = LLM_KEY
        settings.OPENAI_ROUTER_MODEL = ROUTER_MODEL
        settings.OPENAI_WRITER_MODEL = WRITER_MODEL
        settings.OPENAI_TIMEOUT = 5.0
        settings.LLM_DAILY_TOKEN_BUDGET = 1_000_000
        settings.AGENT_FETCH_RETRY = 2
        settings.AGENT_ROUTER_BUDGET = 8
        yield server


def brief_run(owner, question: str, **fields) -> Brief:
    """Create a brief and run it to its end as the worker task does; the brief as stored."""
    brief = Brief.objects.create(owner=owner, question=question, **fields)
    run_brief(brief.pk)
    brief.refresh_from_db()
    return brief


def steps_of(brief: Brief, kind: str | None = None) -> list[dict]:
    """The payloads of a brief's steps (of one kind), in order."""
    rows = RunStep.objects.filter(brief=brief).order_by("seq")
    if kind is not None:
        rows = rows.filter(kind=kind)
    return [row.payload for row in rows]


def kinds_of(brief: Brief) -> list[str]:
    return list(RunStep.objects.filter(brief=brief).order_by("seq").values_list("kind", flat=True))


def fetched(server: ScriptedServer) -> list[str]:
    """The paths the stand-in RSSHub was asked for, in order."""
    return [request.path for request in server.requests]


def decisions(brief: Brief) -> list[str]:
    return [p["decision"] for p in steps_of(brief, "router")]
