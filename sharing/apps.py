from django.apps import AppConfig


class SharingConfig(AppConfig):
    name = "sharing"
    default_auto_field = "django.db.models.BigAutoField"
