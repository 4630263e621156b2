"""What briefs calls in the agent, which stands above it (README: How it fits together).

The store, its pages and its worker task need four things of the agent: to run a brief, whether
a model is configured and its name, and the language a text is written in. They reach the agent
only through here, and the agent hands its own functions in when its app is ready
(``agent.apps.AgentConfig.ready``): briefs imports no module of the agent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured


@dataclass(frozen=True)
class AgentHooks:
    run: Callable[[int], Awaitable[None]]  # a claimed brief's run (agent.runner.agent_run)
    llm_configured: Callable[[], bool]  # a model endpoint with a key is set (agent.llm)
    llm_mode_label: Callable[[], str]  # "offline", or the model names (agent.llm)
    text_language: Callable[[str], str]  # "zh", "en" or "" (agent.summary.facts)


_provided: list[AgentHooks] = []


def agent_hooks_provide(hooks: AgentHooks) -> None:
    """Called once by the agent's app as Django starts."""
    _provided[:] = [hooks]


def agent_hooks() -> AgentHooks:
    if not _provided:
        raise ImproperlyConfigured("briefs needs the agent app: add 'agent' to INSTALLED_APPS")
    return _provided[0]
