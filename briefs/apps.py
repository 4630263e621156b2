from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BriefsConfig(AppConfig):
    name = "briefs"
    verbose_name = _("Briefs")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django_q.signals import post_spawn

        from api.errors import QuotaSpent, api_error_register, field_invalid
        from briefs.errors import FieldInvalid
        from briefs.quotas import QuotaExceeded
        from briefs.worker_start import worker_warm

        # The errors briefs raises, in the API's one error shape (api/errors.py).
        api_error_register(FieldInvalid, field_invalid)
        api_error_register(QuotaExceeded, QuotaSpent)

        # Sent only in a django-q worker process, once, as it starts.
        post_spawn.connect(worker_warm, dispatch_uid="briefs.worker_warm")
