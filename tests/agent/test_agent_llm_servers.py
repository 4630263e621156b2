"""Whole briefs against each family of OpenAI-compatible servers and against a careless model.

Each run goes through the real ``openai`` client to ``LLMServer`` on 127.0.0.1 and fetches from
the stand-in RSSHub. Every test checks the same things: the run ends (succeeded), the budget
holds exactly the tokens the steps report (no reservation left unsettled), the breaker is in the
state the scenario implies, ``mode`` is right, and the brief's answer has no uncited sentence,
no citation of an item not given, and no date its cited items lack.
"""

import re
import time

import pytest

from agent.llm.breaker import breaker_key
from briefs.models import BriefStatus, LLMBreaker, TokenUsage
from tests.agent.conftest import (
    LLM_KEY,
    ROUTER_MODEL,
    WRITER_MODEL,
    brief_run,
    feed,
    steps_of,
    world_create,
)
from tests.llmserver import (
    PROFILES,
    LLMServer,
    careless_writer,
    hang,
    profile,
    server_error,
    shaped,
    valid_answer,
)

QUESTION = "Alpha Wire flash news"
CITATION = re.compile(r"\[(\d{1,4})\]")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[\u3002\uff01\uff1f])")

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def alpha_only(transactional_db, stub_rsshub):
    """One platform: the platform node has a single candidate and takes it without a call."""
    world_create(("alpha",))
    stub_rsshub.route("/alpha/flash", feed("Chip prices fall", "Port strike ends"))
    stub_rsshub.route("/alpha/stories", feed("Chip prices fall", "Port strike ends"))
    return stub_rsshub


def answer_of(body: str) -> str:
    """The model's part of a brief: after the as-of line, before the coverage."""
    return body.split("\n## Coverage", 1)[0].split("\n", 1)[1]


def assert_contract(brief) -> None:
    given = {c["n"] for c in brief.citations}
    answer = answer_of(brief.body)
    assert {int(n) for n in CITATION.findall(answer)} <= given, "a citation of no given item"
    for line in filter(str.strip, answer.split("\n")):
        for sentence in filter(str.strip, SENTENCE_END.split(line.lstrip("-* "))):
            assert CITATION.search(sentence), f"uncited sentence {sentence!r}"
    for invented in ("2019", "March 3", "evil.example", "<", "Aliens", "biggest story"):
        assert invented not in answer, f"{invented!r} reached the brief"


def assert_settled(owner, brief) -> None:
    spent = sum(u["prompt_tokens"] + u["completion_tokens"] for u in steps_of(brief, "llm_usage"))
    assert TokenUsage.objects.get(user=owner).tokens == spent, "a reservation was left unsettled"


def breaker_of(server: LLMServer, model: str) -> LLMBreaker | None:
    return LLMBreaker.objects.filter(key=breaker_key(server.url, model)).first()


@pytest.mark.parametrize("family", PROFILES)
def test_a_whole_brief_runs_against_each_server_family(family, run_owner, llm_server, alpha_only):
    llm_server.responder = profile(family)

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert (brief.mode, steps_of(brief, "llm_fallback")) == ("model", [])
    assert [u["node"] for u in steps_of(brief, "llm_usage")] == ["rewrite", "route", "summarize"]
    assert [c["method"] for c in steps_of(brief, "choice")] == ["only_candidate", "model"]
    assert_contract(brief)
    assert [c["n"] for c in brief.citations] == [1, 2]
    assert_settled(run_owner, brief)
    for model in (ROUTER_MODEL, WRITER_MODEL):
        row = breaker_of(llm_server, model)
        assert row is None or (row.consecutive_failures, row.open_until) == (0, None)


def test_a_careless_model_is_cut_to_what_its_items_back_and_then_set_aside(
    run_owner, llm_server, alpha_only, settings
):
    settings.OPENAI_TIMEOUT = 1.0
    wrong = shaped("openai", {"query": QUESTION})  # misses every other field of the schema
    llm_server.script(wrong, hang(max_seconds=5))  # the rewrite: a wrong schema, then a hang
    llm_server.responder = lambda body: shaped(
        "openai", careless_writer(body) if "tools" not in body else valid_answer(body)
    )

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert steps_of(brief, "llm_fallback") == [
        {"node": "rewrite", "reason": "timeout"},
        {"node": "summarize", "reason": "invalid output"},
    ]
    assert brief.mode == "mixed"
    [checked] = steps_of(brief, "claims_dropped")
    # One good sentence of ten: fewer than half held, twice, so the extractive brief stands.
    assert checked["kept"] == 1 and checked["produced"] > 2 * checked["kept"]
    assert checked["invalid_citation"] >= 2 and checked["uncited"] >= 2 and checked["date"] >= 1
    assert checked["markup"] >= 1 and checked["heading"] == 1 and checked["language"] == 1
    assert brief.usage["claims_dropped"]["uncited"] == checked["uncited"]
    repair = llm_server.requests[-1]["messages"][-1]["content"]
    assert "[7], [42], [99]" in repair, "the repair names the invalid numbers"
    assert brief.body.startswith("The model's brief was set aside: fewer than half")
    assert "Aliens" not in brief.body and "evil" not in brief.body
    assert_settled(run_owner, brief)
    # The wrong schema and the hang were one failed conversation; the later valid answers
    # closed the router's breaker again. The writer's answer failed twice: one failure.
    assert breaker_of(llm_server, ROUTER_MODEL).consecutive_failures == 0
    assert breaker_of(llm_server, WRITER_MODEL).consecutive_failures == 1


def test_a_writer_whose_every_sentence_fails_is_replaced_by_the_extractive_brief(
    run_owner, llm_server, alpha_only
):
    invented = "Aliens landed [7]. Nobody knows why."
    llm_server.responder = lambda body: shaped(
        "openai", invented if "tools" not in body else valid_answer(body)
    )

    brief = brief_run(run_owner, QUESTION)

    assert steps_of(brief, "llm_fallback") == [{"node": "summarize", "reason": "invalid output"}]
    assert brief.mode == "mixed"
    assert brief.body.startswith("The model's brief was set aside")
    assert "Aliens" not in brief.body
    assert breaker_of(llm_server, WRITER_MODEL).consecutive_failures == 1
    assert_settled(run_owner, brief)


def test_a_model_alternating_wrong_schema_and_hang_opens_the_breaker(
    run_owner, llm_server, stories_two_platforms, settings
):
    settings.OPENAI_TIMEOUT = 1.0
    turns = iter(range(100))
    llm_server.responder = lambda body: (
        shaped("openai", {"wrong": True}) if next(turns) % 2 == 0 else hang(max_seconds=5)
    )

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    fallbacks = [(f["node"], f["reason"]) for f in steps_of(brief, "llm_fallback")]
    assert fallbacks[:3] == [("rewrite", "timeout"), ("platform", "timeout"), ("route", "timeout")]
    # Three router conversations failed in a row: its breaker is open for the next run.
    router = breaker_of(llm_server, ROUTER_MODEL)
    assert (router.consecutive_failures, router.open_until is not None) == (3, True)
    assert brief.mode == "offline"
    assert_settled(run_owner, brief)


@pytest.fixture
def stories_two_platforms(transactional_db, stub_rsshub):
    world_create(("alpha", "beta"))
    stub_rsshub.route("/alpha/flash", feed("Chip prices fall", "Port strike ends"))
    stub_rsshub.route("/alpha/stories", feed("Chip prices fall", "Port strike ends"))
    return stub_rsshub


def test_the_next_endpoint_takes_over_when_the_first_fails(
    run_owner, llm_server, alpha_only, settings
):
    llm_server.responder = lambda body: server_error(503)
    with LLMServer(responder=profile("openai")) as backup:
        settings.OPENAI_ENDPOINTS = [
            {"name": "primary", "base_url": llm_server.url, "api_key": LLM_KEY},
            {"name": "backup", "base_url": backup.url, "api_key": LLM_KEY},
        ]
        brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert brief.mode == "model"
    assert {u["endpoint"] for u in steps_of(brief, "llm_usage")} == {"backup"}
    assert brief.usage["nodes"]["summarize"]["endpoints"] == {"backup": 1}
    assert breaker_of(llm_server, ROUTER_MODEL).consecutive_failures == 2  # rewrite, route
    assert_contract(brief)
    assert_settled(run_owner, brief)


def test_after_the_run_deadline_the_remaining_nodes_run_offline(
    run_owner, llm_server, alpha_only, settings
):
    settings.LLM_RUN_DEADLINE = 2.0
    answer = profile("openai")

    def late_after_the_rewrite(body):
        # The rewrite answers at once; the route's call outlasts the run's whole deadline, so
        # no margin between two delays decides which nodes ran on the model.
        if llm_server.count > 1:
            time.sleep(settings.LLM_RUN_DEADLINE)
        return answer(body)

    llm_server.responder = late_after_the_rewrite

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    fallbacks = steps_of(brief, "llm_fallback")
    assert fallbacks[-1] == {"node": "summarize", "reason": "model deadline passed"}
    assert brief.mode == "mixed"
    assert_settled(run_owner, brief)


def test_a_server_refusing_strict_schemas_gets_them_without_strict(
    run_owner, llm_server, alpha_only
):
    def picky(body):
        function = (body.get("tools") or [{}])[0].get("function", {})
        if function.get("strict"):
            return server_error(400, "Unrecognized request argument supplied: strict")
        return profile("openai")(body)

    llm_server.responder = picky

    brief = brief_run(run_owner, QUESTION)

    assert brief.mode == "model"
    strict = [r["tools"][0]["function"].get("strict") for r in llm_server.requests if "tools" in r]
    assert strict[0] is True and strict[-1] is None
    schema = llm_server.requests[0]["tools"][0]["function"]["parameters"]
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == set(schema["properties"])
