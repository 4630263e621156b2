import sys

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AgentConfig(AppConfig):
    """The agent: no models of its own (its runs are ``briefs`` rows); an app for its command."""

    name = "agent"
    verbose_name = _("Agent")

    def ready(self) -> None:
        # Runs happen in the task worker: it loads the Chinese segmenter's dictionary (about a
        # second, bench/support_check.py) before it forks its workers, so no brief waits for it.
        # Any other process loads it on first use.
        if "qcluster" in sys.argv[1:2]:
            from agent.segment import segmenter_warm

            segmenter_warm()
