from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FetchingConfig(AppConfig):
    name = "fetching"
    verbose_name = _("Fetching")
    default_auto_field = "django.db.models.BigAutoField"
