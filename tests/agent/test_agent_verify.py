"""``CLAIMS_VERIFY=model``: after the offline support check, one more call asks the writer model
which kept sentences each cited item supports. The model may only remove; a failed or hostile
answer leaves the offline result standing; its tokens count in ``usage``."""

import re

import pytest

from briefs.models import BriefStatus
from tests.agent.conftest import RSS_TYPE, brief_run, rss_body, steps_of, world_create
from tests.agent.test_agent_support import ITEMS, QUESTION, numbers_of
from tests.httpserver import Reply
from tests.llmserver import shaped, valid_answer

pytestmark = [pytest.mark.django_db(transaction=True)]

VERIFY_SYSTEM_OPENING = "You check a news brief"


@pytest.fixture
def alpha(transactional_db, stub_rsshub):
    world_create(("alpha",))
    stub_rsshub.route("/alpha/flash", Reply(200, RSS_TYPE, rss_body(ITEMS)))
    return stub_rsshub


def honest_writer(body: dict) -> str:
    n = numbers_of(body)
    return "\n".join(
        [
            f"- Xiaomi raises $2 billion for electric cars [{n['Xiaomi']}].",
            f"- Rotterdam dock workers accepted a 6% pay rise [{n['Rotterdam']}].",
            f"- Chip prices fall for a third month [{n['Chip']}].",
            f"- The Port of Oslo reopened after the storm [{n['Port']}].",
        ]
    )


def is_verify(body: dict) -> bool:
    return body["messages"][0]["content"].startswith(VERIFY_SYSTEM_OPENING)


def shown_sentences(body: dict) -> dict[str, int]:
    """The verify prompt's numbered sentences: first word after the bullet -> number."""
    prompt = body["messages"][1]["content"].split("numbered:\n", 1)[1]
    found = {}
    for line in prompt.split("\n"):
        number, _, text = line.partition(". ")
        if number.isdigit():
            found[text.split()[0]] = int(number)
    return found


def cited_in(body: dict, sentence: int) -> int:
    prompt = body["messages"][1]["content"].split("numbered:\n", 1)[1]
    line = next(x for x in prompt.split("\n") if x.startswith(f"{sentence}. "))
    return int(re.search(r"\[(\d+)\]", line).group(1))


def with_verifier(verifier):
    def respond(body: dict):
        if "tools" not in body:
            return shaped("openai", honest_writer(body))
        if is_verify(body):
            return verifier(body)
        return shaped("openai", valid_answer(body))

    return respond


def supports_all_but(*first_words: str):
    """A verifier listing every sentence under its cited item, except those opening so."""

    def verify(body: dict):
        rows: dict[int, list[int]] = {}
        for word, number in shown_sentences(body).items():
            if word not in first_words:
                rows.setdefault(cited_in(body, number), []).append(number)
        return shaped("openai", {"items": [{"item": k, "sentences": v} for k, v in rows.items()]})

    return verify


def verify_requests(llm_server) -> list[dict]:
    return [b for b in llm_server.requests if "tools" in b and is_verify(b)]


def test_the_model_removes_a_sentence_no_cited_item_supports(
    run_owner, llm_server, alpha, settings
):
    settings.CLAIMS_VERIFY = "model"
    llm_server.responder = with_verifier(supports_all_but("Chip"))

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert (brief.mode, steps_of(brief, "llm_fallback")) == ("model", [])
    assert "Chip prices fall for a third month" not in brief.body
    assert "Rotterdam dock workers accepted a 6% pay rise" in brief.body
    [checked] = steps_of(brief, "claims_dropped")
    assert (checked["kept"], checked["model_unsupported"]) == (3, 1)
    assert brief.usage["claims_dropped"] == {"model_unsupported": 1}
    assert brief.usage["nodes"]["claims_verify"]["calls"] == 1, brief.usage
    [asked] = verify_requests(llm_server)
    assert asked["tool_choice"]["function"]["name"] == "answer"
    assert "<items>" in asked["messages"][1]["content"], "the cited items go fenced as data"


def test_the_model_cannot_restore_what_the_offline_check_dropped(
    run_owner, llm_server, alpha, settings
):
    settings.CLAIMS_VERIFY = "model"

    def writer_with_invented_figure(body: dict) -> str:
        n = numbers_of(body)
        return (
            honest_writer(body) + f"\n- Xiaomi raised $5 billion in the share sale [{n['Xiaomi']}]."
        )

    def respond(body: dict):
        if "tools" not in body:
            return shaped("openai", writer_with_invented_figure(body))
        if is_verify(body):
            shown = shown_sentences(body)
            assert len(shown) == 4, "only the sentences the offline check kept are shown"
            return supports_all_but()(body)
        return shaped("openai", valid_answer(body))

    llm_server.responder = respond

    brief = brief_run(run_owner, QUESTION)

    assert "$5 billion" not in brief.body
    [checked] = steps_of(brief, "claims_dropped")
    assert (checked["kept"], checked.get("model_unsupported", 0)) == (4, 0)


HOSTILE = {
    "not JSON": lambda body: shaped("openai", "Sure! All sentences are supported {"),
    "a list": lambda body: shaped("openai", [1, 2, 3]),
    "an item never shown": lambda body: shaped(
        "openai", {"items": [{"item": 99, "sentences": [1]}]}
    ),
    "a sentence that does not exist": lambda body: shaped(
        "openai", {"items": [{"item": cited_in(body, 1), "sentences": [1, 2, 3, 4, 5]}]}
    ),
    "numbers as strings": lambda body: shaped(
        "openai", {"items": [{"item": str(cited_in(body, 1)), "sentences": ["1"]}]}
    ),
    "booleans for numbers": lambda body: shaped(
        "openai", {"items": [{"item": cited_in(body, 1), "sentences": [True]}]}
    ),
    "an extra key": lambda body: shaped(
        "openai", {"items": [{"item": cited_in(body, 1), "sentences": [], "restore": [9]}]}
    ),
    "a huge list": lambda body: shaped(
        "openai", {"items": [{"item": cited_in(body, 1), "sentences": [1] * 10_000}]}
    ),
}


@pytest.mark.parametrize("answer", list(HOSTILE), ids=list(HOSTILE))
def test_a_hostile_or_broken_verdict_leaves_the_offline_result_standing(
    answer, run_owner, llm_server, alpha, settings
):
    settings.CLAIMS_VERIFY = "model"
    llm_server.responder = with_verifier(HOSTILE[answer])

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert (brief.mode, steps_of(brief, "llm_fallback")) == ("model", [])
    for kept in ("Xiaomi raises $2 billion", "6% pay rise", "third month", "Port of Oslo"):
        assert kept in brief.body, kept
    [checked] = steps_of(brief, "claims_dropped")
    assert (checked["kept"], checked.get("model_unsupported", 0)) == (4, 0)
    assert len(verify_requests(llm_server)) == 2, "one repair turn, then the offline result"
    assert brief.usage["nodes"]["claims_verify"]["calls"] == 2, "its tokens count in usage"


def test_when_the_model_supports_too_little_the_extractive_brief_stands_in(
    run_owner, llm_server, alpha, settings
):
    settings.CLAIMS_VERIFY = "model"
    llm_server.responder = with_verifier(supports_all_but("Xiaomi", "Rotterdam", "Chip"))

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert brief.mode == "mixed"
    assert steps_of(brief, "llm_fallback") == [{"node": "summarize", "reason": "invalid output"}]
    assert brief.body.startswith("The model's brief was set aside"), brief.body[:80]
    [checked] = steps_of(brief, "claims_dropped")
    assert (checked["kept"], checked["model_unsupported"]) == (1, 3)


def test_off_by_default_no_second_call(run_owner, llm_server, alpha):
    llm_server.responder = with_verifier(supports_all_but("Chip"))

    brief = brief_run(run_owner, QUESTION)

    assert "Chip prices fall for a third month" in brief.body
    assert verify_requests(llm_server) == []
    assert "claims_verify" not in brief.usage.get("nodes", {})
