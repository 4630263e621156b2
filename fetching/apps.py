from django.apps import AppConfig


class FetchingConfig(AppConfig):
    name = "fetching"
    default_auto_field = "django.db.models.BigAutoField"
