import sys

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AgentConfig(AppConfig):
    """The agent: no models of its own (its runs are ``briefs`` rows); an app for its commands,
    and for what it hands down to briefs when Django starts."""

    name = "agent"
    verbose_name = _("Agent")

    def ready(self) -> None:
        from agent.llm import llm_configured, llm_mode_label
        from agent.runner import agent_run
        from agent.summary.facts import text_language
        from briefs.agent_hooks import AgentHooks, agent_hooks_provide

        # What briefs calls in the agent, handed down (briefs/agent_hooks.py).
        agent_hooks_provide(
            AgentHooks(
                run=agent_run,
                llm_configured=llm_configured,
                llm_mode_label=llm_mode_label,
                text_language=text_language,
            )
        )
        # Runs happen in the task worker: it loads the Chinese segmenter's dictionary (about a
        # second, bench/support_check.py) before it forks its workers, so no brief waits for it.
        # Any other process loads it on first use.
        if "qcluster" in sys.argv[1:2]:
            from catalog.segment import segmenter_warm

            segmenter_warm()
