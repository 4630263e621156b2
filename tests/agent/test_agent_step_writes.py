"""Steps that come together are written together: an offline run's candidates with its choice,
a fetch batch's results with the router's decision that follows. The log reads the same, step
by step, as if each had been written alone. With a model, the candidates go out on their own
before it is asked: a watcher sees them while it thinks."""

import pytest

import agent.context
from briefs.models import BriefStatus
from tests.agent.conftest import brief_run, feed, kinds_of
from tests.agent.test_agent_llm import QUESTION, script

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world")]


@pytest.fixture
def writes(monkeypatch):
    """The kinds of each write of steps, in order."""
    batches: list[list[str]] = []
    write = agent.context.steps_append

    def recording(*, brief_id, steps):
        batches.append([kind for kind, _ in steps])
        return write(brief_id=brief_id, steps=steps)

    monkeypatch.setattr(agent.context, "steps_append", recording)
    return batches


def test_an_offline_run_writes_what_comes_together_at_once(run_owner, stub_rsshub, offline, writes):
    stub_rsshub.route("/alpha/flash", feed("Chip prices fall", "Port strike ends"))

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    # Platform, then route (with the routes it refused, e.g. /alpha/user/:id, in between).
    together = [batch for batch in writes if batch[0] == "candidates" and batch[-1] == "choice"]
    assert len(together) == 2, writes
    assert ["fetch_result", "router"] in writes
    assert [kind for batch in writes for kind in batch] == kinds_of(brief), "the same log"
    assert len(writes) < len(kinds_of(brief))


def test_with_a_model_the_candidates_go_out_before_it_is_asked(
    run_owner, stub_rsshub, llm_server, writes
):
    stub_rsshub.route("/alpha/stories", feed("Chip prices fall"))
    script(llm_server)

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert brief.mode == "model"
    assert ["candidates"] in writes, writes
    assert ["candidates", "choice"] not in writes
    assert [kind for batch in writes for kind in batch] == kinds_of(brief)
