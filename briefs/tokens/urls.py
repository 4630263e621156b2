"""The API token page of the dashboard; include under ``tokens/``:
``path("tokens/", include("briefs.tokens.urls"))``."""

from django.urls import path

from briefs.tokens.views import token_revoke_view, tokens_page

urlpatterns = [
    path("", tokens_page, name="tokens"),
    path("<int:token_id>/revoke", token_revoke_view, name="token-revoke"),
]
