"""The webhook page of the dashboard; include under ``webhooks/``."""

from django.urls import path

from briefs.webhooks.views import webhook_delete_view, webhook_ping_view, webhooks_page

urlpatterns = [
    path("", webhooks_page, name="webhooks"),
    path("<int:webhook_id>/test/", webhook_ping_view, name="webhook-test"),
    path("<int:webhook_id>/delete/", webhook_delete_view, name="webhook-delete"),
]
