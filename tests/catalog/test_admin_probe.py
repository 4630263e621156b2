"""Staff probe a route from the admin: a real fetch of its example path, outcome shown."""

import pytest
from django.test import override_settings
from django.urls import reverse

from catalog.models import Route
from fetching.models import FetchAttempt

pytestmark = pytest.mark.django_db


def test_probing_a_route_whose_rsshub_is_down_reports_rsshub_unavailable(client, staff):
    client.force_login(staff)
    route = Route.objects.get(path="/36kr/hot-list/:category?")
    # Nothing listens on port 9: the connection is refused at once.
    with override_settings(RSSHUB_URL="http://127.0.0.1:9"):
        response = client.post(
            reverse("admin:catalog_route_changelist"),
            {"action": "probe", "_selected_action": [route.pk]},
            follow=True,
        )
    messages = [str(m) for m in response.context["messages"]]
    assert any("/36kr/hot-list: rsshub_unavailable" in m for m in messages), messages
    route.refresh_from_db()
    assert route.attempts == 0, "RSSHub being down must not count against the route"
    assert FetchAttempt.objects.filter(path="/36kr/hot-list").exists()
