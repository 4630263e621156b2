from django.apps import AppConfig


class RsshubAgentConfig(AppConfig):
    name = "rsshub_agent"

    def ready(self) -> None:
        from rsshub_agent.field_names import field_names_translated

        field_names_translated()
