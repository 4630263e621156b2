import pytest

from tests.mcp_server.stack import mcp_stack


@pytest.fixture(scope="session")
def stack(tmp_path_factory):
    """Daphne, a worker and a stand-in RSSHub on a database of their own, for the session."""
    with mcp_stack(tmp_path_factory.mktemp("mcp-stack")) as running:
        yield running
