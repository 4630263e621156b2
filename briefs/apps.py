from django.apps import AppConfig


class BriefsConfig(AppConfig):
    name = "briefs"
    default_auto_field = "django.db.models.BigAutoField"
