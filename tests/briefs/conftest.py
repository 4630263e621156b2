"""The briefs tests run briefs through the agent: they share its small world of platforms and
routes and its stand-in RSSHub (``tests/agent/conftest.py``)."""

from tests.agent.conftest import offline, run_owner, stub_rsshub, world  # noqa: F401
