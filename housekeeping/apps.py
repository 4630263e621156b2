from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class HousekeepingConfig(AppConfig):
    name = "housekeeping"
    verbose_name = _("Housekeeping")
    default_auto_field = "django.db.models.BigAutoField"
