from django.apps import AppConfig


class AgentConfig(AppConfig):
    """The agent: no models of its own (its runs are ``briefs`` rows); an app for its command."""

    name = "agent"
