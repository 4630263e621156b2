from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WatchesConfig(AppConfig):
    name = "watches"
    verbose_name = _("Watches")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The agent knows nothing of watches: it asks the delta seam, which this fills.
        from agent.summary.delta import delta_hook_set
        from watches.delta import watch_delta

        delta_hook_set(watch_delta)
