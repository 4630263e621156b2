"""Runs driven by a model: a real OpenAI-compatible server on 127.0.0.1 (``LLMServer``) with
scripted answers, reached through the real ``openai`` client, and the stand-in RSSHub.

A run asks, in order: rewrite, platform, route (the router model), then summarize (the writer).
"""

import pytest

from agent.llm import ITEMS_ARE_DATA
from agent.routes.choice import subject_given
from briefs.models import BriefOutcome, BriefStatus, TokenUsage
from tests.agent.conftest import (
    ROUTER_MODEL,
    WRITER_MODEL,
    brief_run,
    feed,
    fetched,
    steps_of,
)
from tests.llmserver import server_error, text, tool_call, usage

QUESTION = "Alpha Wire flash news"
REWRITE = {"query": QUESTION, "language": "en", "keywords": ["flash"], "window": "latest"}
PLATFORM = {"chosen": ["alpha"], "reason": "the question names Alpha Wire"}
STORIES = {"routes": [{"route": "/alpha/stories", "params": {}}], "reason": "stories answer it"}
BRIEF = "Alpha Wire reports that chip prices fell [1]."

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world")]


def script(server, *, rewrite=REWRITE, platform=(PLATFORM,), route=(STORIES,), writer=(BRIEF,)):
    """Queue one run's answers; a tuple holds the answers to a node's first and repair calls."""
    server.script(tool_call(rewrite))
    server.script(*(tool_call(answer) for answer in platform))
    server.script(*(tool_call(answer) for answer in route))
    server.script(*(text(answer) if isinstance(answer, str) else answer for answer in writer))


def choices(brief, node):
    return [(p["chosen"], p["method"]) for p in steps_of(brief, "choice") if p["node"] == node]


def user_message(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


def user_message_last(request: dict) -> str:
    return [m["content"] for m in request["messages"] if m["role"] in ("user", "tool")][-1]


@pytest.fixture
def stories(stub_rsshub):
    stub_rsshub.route("/alpha/stories", feed("Chip prices fall", "Port strike ends"))
    stub_rsshub.route("/alpha/flash", feed("Flash item"))
    return stub_rsshub


def test_the_model_chooses_among_the_offered_and_every_call_is_accounted(
    run_owner, llm_server, stories
):
    script(llm_server, writer=(text(BRIEF, tokens=usage(500, 40, cached=100)),))

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert brief.mode == "model"
    assert llm_server.pending == 0
    assert choices(brief, "platform") == [(["alpha"], "model")]
    assert choices(brief, "route") == [(["/alpha/stories"], "model")]
    assert fetched(stories) == ["/alpha/stories"]
    assert [u["node"] for u in steps_of(brief, "llm_usage")] == [
        "rewrite",
        "platform",
        "route",
        "summarize",
    ]
    assert brief.usage["llm_calls"] == 4
    assert brief.usage["fallbacks"] == []
    assert brief.usage["nodes"]["summarize"] == {
        "calls": 1,
        "prompt_tokens": 500,
        "completion_tokens": 40,
        "cached_tokens": 100,
        "endpoints": {"127.0.0.1": 1},
    }
    assert brief.usage["nodes"]["platform"]["prompt_tokens"] == 120  # LLMServer's default
    assert TokenUsage.objects.get(user=run_owner).tokens == 3 * 150 + 540


def test_routing_uses_the_router_model_at_temperature_zero_and_writing_the_writer(
    run_owner, llm_server, stories
):
    script(llm_server)

    brief_run(run_owner, QUESTION)

    models = [(r["model"], r["temperature"]) for r in llm_server.requests]
    assert models[:3] == [(ROUTER_MODEL, 0.0)] * 3
    assert models[3][0] == WRITER_MODEL
    offered = llm_server.requests[1]["tools"][0]["function"]["parameters"]
    assert offered["properties"]["chosen"]["items"]["enum"] == ["alpha", "beta"]


def test_an_invalid_choice_is_repaired_once_then_the_offline_method_answers(
    run_owner, llm_server, stories
):
    unknown = {"chosen": ["gamma"], "reason": "made up"}
    script(llm_server, platform=(unknown, unknown))

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED
    assert steps_of(brief, "llm_fallback") == [{"node": "platform", "reason": "invalid output"}]
    assert choices(brief, "platform") == [(["alpha"], "offline")]
    assert brief.usage["fallbacks"] == ["platform"]
    assert brief.usage["nodes"]["platform"]["calls"] == 2
    repair = llm_server.requests[2]["messages"][-1]
    assert repair["role"] == "tool"
    assert "not offered: ['gamma']" in repair["content"]


def test_the_api_lists_which_nodes_fell_back_and_why(run_owner, llm_server, stories):
    from django.test import Client

    from briefs.tokens.service import token_issue

    unknown = {"chosen": ["gamma"], "reason": "made up"}
    script(llm_server, platform=(unknown, unknown))
    brief = brief_run(run_owner, QUESTION)
    secret = token_issue(user=run_owner, name="test").secret

    response = Client().get(f"/api/v1/briefs/{brief.pk}", HTTP_AUTHORIZATION=f"Bearer {secret}")

    body = response.json()

    assert body["mode"] == "mixed"
    assert body["fallbacks"] == [{"node": "platform", "reason": "invalid output"}]
    assert body["usage"]["claims_dropped"] == {}


def test_a_route_outside_the_offer_is_refused_and_the_repaired_choice_used(
    run_owner, llm_server, stories
):
    outside = {"routes": [{"route": "/rsshub/transform/html/:url/:routeParams", "params": {}}]}
    script(llm_server, route=({**outside, "reason": "x"}, STORIES))

    brief = brief_run(run_owner, QUESTION)

    assert choices(brief, "route") == [(["/alpha/stories"], "model")]
    assert steps_of(brief, "llm_fallback") == []
    assert brief.usage["nodes"]["route"]["calls"] == 2
    assert fetched(stories) == ["/alpha/stories"]


def test_parameters_that_fail_confinement_are_never_sent(run_owner, llm_server, stories):
    question = "Alpha Wire posts of user ../../rsshub/transform"
    climbing = {
        "routes": [{"route": "/alpha/user/:id", "params": {"id": "../../rsshub/transform"}}],
        "reason": "x",
    }
    script(llm_server, rewrite={**REWRITE, "query": question}, route=(climbing, climbing))

    brief = brief_run(run_owner, question)

    assert steps_of(brief, "llm_fallback")[0] == {"node": "route", "reason": "invalid output"}
    assert [r["value"] for r in steps_of(brief, "choice_rejected")][:2] == ["/alpha/user/:id"] * 2
    # offline, the climbing words are no user's name either: the run asks for one
    assert steps_of(brief, "choice_rejected")[2]["reason"].startswith("missing_subject")
    assert brief.outcome == BriefOutcome.NEEDS_INPUT
    assert not [p for p in fetched(stories) if p.startswith("/rsshub") or ".." in p]


def test_a_citation_of_an_item_not_given_is_named_in_the_repair_and_removed(
    run_owner, llm_server, stories
):
    # Supported by item 1, with a citation of an item that was never given (the sentence's
    # content must hold: the support check drops what no item says).
    careless = "Chip prices fell [1][99]."
    script(llm_server, writer=(careless, careless))

    brief = brief_run(run_owner, QUESTION)

    assert "which are not items" in user_message_last(llm_server.requests[-1])
    assert "[99]" in user_message_last(llm_server.requests[-1])
    assert "Chip prices fell [1]." in brief.body
    assert "[99]" not in brief.body
    assert [c["n"] for c in brief.citations] == [1]
    assert brief.citations[0]["title"] == "Chip prices fall"
    assert brief.mode == "model"


def test_a_model_brief_citing_nothing_falls_back_to_the_extractive_brief(
    run_owner, llm_server, stories
):
    uncited = "Chip prices fell sharply this morning, says the wire."
    script(llm_server, writer=(uncited, uncited))

    brief = brief_run(run_owner, QUESTION)

    assert steps_of(brief, "llm_fallback") == [{"node": "summarize", "reason": "invalid output"}]
    assert uncited not in brief.body
    assert "- **Chip prices fall** · Alpha Wire · " in brief.body
    assert [c["title"] for c in brief.citations] == ["Chip prices fall", "Port strike ends"]


def test_the_writer_gets_the_items_fenced_and_the_items_are_data_rule(
    run_owner, llm_server, stories
):
    script(llm_server)

    brief_run(run_owner, QUESTION)

    writer = llm_server.requests[3]
    system = writer["messages"][0]["content"]
    assert ITEMS_ARE_DATA in system
    prompt = user_message(writer)
    assert '<item n="1" source="/alpha/stories"' in prompt
    assert "Chip prices fall" in prompt.split("<items>")[1].split("</items>")[0]
    assert "tell the same story" not in prompt, "two different stories are not folded"


def test_the_writer_is_told_which_items_tell_one_story_and_opens_with_the_lead_line(
    run_owner, llm_server, stub_rsshub
):
    stub_rsshub.route(
        "/alpha/stories",
        feed("Chip prices fall sharply today", "Chip prices fall sharply today, wire says"),
    )
    stub_rsshub.route("/alpha/flash", feed("Flash item"))
    script(llm_server)

    brief = brief_run(run_owner, QUESTION)

    prompt = user_message(llm_server.requests[3])
    assert "\nItems [1] [2] tell the same story: write it once, citing all." in prompt
    assert brief.mode == "model"
    # the older item is two hours and some seconds old: the span rounds up
    assert (
        brief.body.startswith("As of ")
        and ": 2 items from 1 source in the last 3 hours" in brief.body
    )


def test_an_unreachable_model_leaves_every_node_to_its_offline_method(
    run_owner, llm_server, stories
):
    llm_server.responder = lambda body: server_error(500)

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED
    assert [f["node"] for f in steps_of(brief, "llm_fallback")] == [
        "rewrite",
        "platform",
        "route",
        "summarize",
    ]
    assert {f["reason"] for f in steps_of(brief, "llm_fallback")} <= {
        "server error",
        "breaker open",
    }
    assert fetched(stories) == ["/alpha/flash"]  # the offline route
    assert brief.citations[0]["title"] == "Flash item"


def test_an_offline_brief_makes_no_model_call(run_owner, llm_server, stories):
    brief = brief_run(run_owner, QUESTION, offline=True)

    assert brief.mode == "offline"
    assert llm_server.count == 0
    assert brief.usage["llm_calls"] == 0


# --- the route node with a model: subjects come from the question -------------------------------


def route_node(owner, question: str):
    """The route node alone, on the alpha platform, as a run reaches it: (result, ctx)."""
    from asgiref.sync import async_to_sync

    from agent.question import rewrite_offline
    from agent.route import node_route
    from agent.runner import context_load
    from briefs.models import Brief

    brief = Brief.objects.create(owner=owner, question=question)
    ctx = context_load(brief.pk)
    ctx.rewrite, ctx.platforms = rewrite_offline(question), ["alpha"]
    return async_to_sync(node_route)(ctx), ctx


def user_route(world, example: str = ""):
    route = world["/alpha/user/:id"]
    route.example, route.parameters = example, {"id": "User id"}
    route.save()
    return route


def pick_user(value):
    return {"routes": [{"route": "/alpha/user/:id", "params": {"id": value}}],
            "needs_input": [], "reason": "x"}  # fmt: skip


NEED_ID = {
    "parameter": "id",
    "description": "User id",
    "route": "/alpha/user/:id",
    "source": "Alpha Wire",
}


def test_a_subject_the_question_gives_is_accepted_after_folding(run_owner, llm_server, world):
    user_route(world)
    llm_server.script(tool_call(pick_user("Torvalds")))

    full_width = "".join(chr(ord(c) + 0xFEE0) for c in "torvalds")
    ok, ctx = route_node(run_owner, f"Alpha Wire posts of user {full_width}")

    assert ok and ctx.paths == [("/alpha/user/Torvalds", world["/alpha/user/:id"].pk)]
    assert ctx.needs == []


@pytest.mark.parametrize(
    ("example", "value"),
    [("", "torvalds"), ("/alpha/user/diygod", "diygod")],
    ids=["invented", "copied from the example"],
)
def test_a_subject_not_in_the_question_is_rejected_then_the_run_needs_input(
    run_owner, llm_server, world, example, value
):
    user_route(world, example)
    llm_server.script(tool_call(pick_user(value)), tool_call(pick_user(f"<b>{value}</b>")))

    ok, ctx = route_node(run_owner, "Alpha Wire posts of a user")

    assert ok is False and ctx.paths == []
    rejected = [p for kind, p in steps_in(ctx) if kind == "choice_rejected"]
    assert [r["value"] for r in rejected] == [value, f"&lt;b&gt;{value}&lt;/b&gt;"]
    assert all("names a subject the question does not give" in r["reason"] for r in rejected)
    assert (
        "names a subject the question does not give"
        in llm_server.requests[1]["messages"][-1]["content"]
    )
    assert [{k: n[k] for k in NEED_ID} for n in ctx.needs] == [NEED_ID]
    assert value not in ctx.needs[0]["format"]  # a format hint, never the example's value


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Alpha Wire posts of user torvalds", "gaearon"),  # a swap
        ("Alpha Wire posts of user torvalds", "Alpha"),  # the platform's own name
        ("Alpha Wire posts of user torvalds", "torv"),  # a fragment of a word
    ],
)
def test_a_refused_subject_falls_back_to_the_questions_one_subject(
    run_owner, llm_server, world, question, value
):
    user_route(world)
    llm_server.script(tool_call(pick_user(value)), tool_call(pick_user(value)))

    ok, ctx = route_node(run_owner, question)

    assert ok is True and ctx.needs == []
    assert ctx.paths == [("/alpha/user/torvalds", world["/alpha/user/:id"].pk)]
    rejected = [p["value"] for kind, p in steps_in(ctx) if kind == "choice_rejected"]
    assert rejected == [value, value]


def test_a_subject_must_be_a_whole_token_of_the_question():
    full_width = "".join(chr(ord(c) + 0xFEE0) for c in "torvalds")
    assert subject_given("Torvalds", f"posts of user {full_width}")
    assert subject_given("SH600519", "雪球 sh 600519 的公告")
    assert subject_given("Gargron@mastodon.social", "toots of Gargron@mastodon.social")
    assert subject_given("小米汽车", "36氪关于小米汽车的快讯")
    assert not subject_given("git", "torvalds on GitHub")
    assert not subject_given("torv", "posts of torvalds")
    assert not subject_given("GitHub", "torvalds on GitHub", names=("github", "GitHub"))
    assert not subject_given("my", "the repo of my team")
    assert not subject_given("某个", "某个用户的动态")
    assert not subject_given("", "anything")
    assert not subject_given("channel", "videos of the channel I like")
    assert not subject_given("仓库", "我们团队的仓库")
    assert not subject_given("releases", "releases of the repo we maintain")
    assert not subject_given("lab", "models by the lab I follow"), "it heads the asker's clause"
    assert subject_given("lab", "models by lab, the one I follow"), "a name, then a clause"


def test_the_model_may_answer_that_the_question_needs_input(run_owner, llm_server, world):
    user_route(world)
    needs = {"routes": [], "needs_input": [{"route": "/alpha/user/:id", "parameter": "id"}],
             "reason": "no user named"}  # fmt: skip
    llm_server.script(tool_call(needs))

    ok, ctx = route_node(run_owner, "Alpha Wire posts of a user")

    assert ok is False and llm_server.count == 1
    assert [{k: n[k] for k in NEED_ID} for n in ctx.needs] == [NEED_ID]


def test_the_route_prompt_shows_parameters_dates_and_the_window(run_owner, llm_server, world):
    user_route(world, "/alpha/user/diygod")
    llm_server.script(tool_call({"routes": [{"route": "/alpha/flash", "params": {}}],
                                 "needs_input": [], "reason": "x"}))  # fmt: skip

    route_node(run_owner, "Alpha Wire flash news today")

    request = llm_server.requests[0]
    prompt = user_message(request)
    assert "Current date and time:" in prompt and "time zone" in prompt
    assert "Time window asked: today, from " in prompt
    assert ":id (required, subject: only a value the question gives) User id" in prompt
    assert 'format like "diygod" (not a value)' in prompt
    schema = request["tools"][0]["function"]["parameters"]
    items = schema["properties"]["routes"]["items"]["anyOf"]
    user = next(i for i in items if i["properties"]["route"]["enum"] == ["/alpha/user/:id"])
    assert user["properties"]["params"]["required"] == ["id"]
    assert request["tools"][0]["function"]["strict"] is True


def steps_in(ctx) -> list[tuple[str, dict]]:
    from briefs.models import RunStep

    rows = RunStep.objects.filter(brief_id=ctx.brief_id).order_by("seq")
    return [(row.kind, row.payload) for row in rows]
