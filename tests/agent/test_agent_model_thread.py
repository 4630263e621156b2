"""A run's model calls share one thread and one database connection (for each call's breaker and
budget), opened by the first call and closed when the run is done with the model."""

import threading

import pytest
from django.db.backends.signals import connection_created

from briefs.models import BriefStatus
from tests.agent.conftest import brief_run, feed
from tests.agent.test_agent_llm import BRIEF, PLATFORM, QUESTION, STORIES, script
from tests.llmserver import server_error, text, tool_call

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world")]


@pytest.fixture
def model_connections():
    """Each connection opened in a model-call thread: (thread name, the connection)."""
    opened: list = []

    def record(sender, connection, **kwargs):
        name = threading.current_thread().name
        if name.startswith("run-model-calls"):
            opened.append((name, connection))

    connection_created.connect(record, weak=False)
    yield opened
    connection_created.disconnect(record)


def test_the_model_calls_of_a_run_share_one_connection(
    run_owner, stub_rsshub, llm_server, model_connections
):
    stub_rsshub.route("/alpha/stories", feed("Chip prices fall"))
    script(llm_server)

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert brief.usage["llm_calls"] == 4
    assert len(model_connections) == 1, "one connection for the run's four calls"
    [(_, connection)] = model_connections
    assert connection.connection is None, "closed once the run was done with the model"


def test_a_failed_call_closes_the_connection_the_next_reopens(
    run_owner, stub_rsshub, llm_server, settings, model_connections
):
    stub_rsshub.route("/alpha/stories", feed("Chip prices fall"))
    llm_server.script(server_error(), server_error())  # the rewrite fails (and its one retry)
    llm_server.script(tool_call(PLATFORM), tool_call(STORIES), text(BRIEF))

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert brief.usage["fallbacks"] == ["rewrite"]
    assert len(model_connections) == 2, "the failed call's connection was not reused"
