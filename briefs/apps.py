from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BriefsConfig(AppConfig):
    name = "briefs"
    verbose_name = _("Briefs")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django_q.signals import post_spawn

        from briefs.worker_start import worker_warm

        # Sent only in a django-q worker process, once, as it starts.
        post_spawn.connect(worker_warm, dispatch_uid="briefs.worker_warm")
