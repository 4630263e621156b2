from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts.preferences import profile_brief_language
        from briefs.language import owner_language_provide

        # The profile's default brief language, for the API and MCP (briefs/language.py).
        owner_language_provide(profile_brief_language)
