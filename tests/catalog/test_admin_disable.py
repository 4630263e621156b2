"""Disabling routes and platforms in the admin asks why: a required note of at most 500
characters on a confirmation page, appended to each one's note with the date and the staff
member's name, and written to the admin log. Hostile notes are refused or stored as text."""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.urls import reverse
from django.utils import timezone

from catalog.models import Platform, Route

pytestmark = pytest.mark.django_db

ROUTE_LIST = reverse("admin:catalog_route_changelist")
PLATFORM_LIST = reverse("admin:catalog_platform_changelist")
PATH = "/36kr/hot-list/:category?"


@pytest.fixture
def route():
    return Route.objects.get(path=PATH)


def disable(client, url: str, ids: list[int], **fields):
    return client.post(url, {"action": "disable", "_selected_action": ids, **fields})


def test_disabling_first_asks_for_a_note(staff_client, route):
    response = disable(staff_client, ROUTE_LIST, [route.pk])
    assert response.status_code == 200
    assert response.templates[0].name == "admin/catalog/disable_confirm.html"
    body = response.content.decode()
    assert 'name="note"' in body and 'value="disable"' in body
    assert f'value="{route.pk}"' in body, "the selection is carried to the confirmation"
    route.refresh_from_db()
    assert route.enabled is True, "nothing is disabled before the note is given"


def test_the_note_is_kept_on_the_route_and_in_the_admin_log(staff_client, staff, route):
    Route.objects.filter(pk=route.pk).update(note="curated by hand")
    response = disable(staff_client, ROUTE_LIST, [route.pk], apply="1", note="  blocks  RSSHub ")
    assert response.status_code == 302
    route.refresh_from_db()
    today = timezone.now().strftime("%Y-%m-%d")
    assert route.enabled is False
    assert route.note == f"curated by hand\n{today} sam: disabled: blocks RSSHub"
    entry = LogEntry.objects.get(object_id=str(route.pk))
    assert (entry.user_id, entry.action_flag) == (staff.pk, CHANGE)
    assert entry.change_message == "disabled: blocks RSSHub"


def test_a_second_disable_adds_a_line(staff_client, route):
    disable(staff_client, ROUTE_LIST, [route.pk], apply="1", note="first")
    disable(staff_client, ROUTE_LIST, [route.pk], apply="1", note="second")
    route.refresh_from_db()
    assert [line.split(": ", 2)[-1] for line in route.note.splitlines()] == ["first", "second"]


def test_a_platform_is_disabled_with_its_note(staff_client):
    platform = Platform.objects.get(namespace="36kr")
    response = disable(staff_client, PLATFORM_LIST, [platform.pk], apply="1", note="paywalled")
    assert response.status_code == 302
    platform.refresh_from_db()
    assert platform.enabled is False
    assert platform.note.endswith("sam: disabled: paywalled")
    assert LogEntry.objects.filter(object_id=str(platform.pk), action_flag=CHANGE).count() == 1


@pytest.mark.parametrize(
    ("note", "error"),
    [
        ("", "This field is required."),
        ("   \n\t ", "This field is required."),
        ("x" * 501, "Ensure this value has at most 500 characters"),
        ("ring\x07the bell", "The note cannot hold control characters."),
    ],
    ids=["empty", "blank", "too-long", "control-character"],
)
def test_a_missing_or_hostile_note_is_refused(staff_client, route, note, error):
    response = disable(staff_client, ROUTE_LIST, [route.pk], apply="1", note=note)
    assert response.status_code == 200, "the confirmation page again, with the error"
    assert error in response.content.decode()
    route.refresh_from_db()
    assert route.enabled is True and route.note == ""
    assert not LogEntry.objects.exists()


def test_a_note_of_500_characters_is_kept_whole(staff_client, route):
    disable(staff_client, ROUTE_LIST, [route.pk], apply="1", note="y" * 500)
    route.refresh_from_db()
    assert route.note.endswith(": disabled: " + "y" * 500)


def test_html_in_a_note_is_stored_as_text_and_shown_escaped(staff_client, route):
    note = '<script>alert("x")</script><b>bold</b>'
    disable(staff_client, ROUTE_LIST, [route.pk], apply="1", note=note)
    route.refresh_from_db()
    assert route.note.endswith(f": disabled: {note}")
    page = staff_client.get(reverse("admin:catalog_route_change", args=[route.pk]))
    body = page.content.decode()
    assert "<script>alert" not in body
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in body


def test_the_confirmation_needs_staff(client, owner, route):
    client.force_login(owner)
    response = disable(client, ROUTE_LIST, [route.pk], apply="1", note="sneaky")
    assert response.status_code == 302 and reverse("admin:login") in response["Location"]
    route.refresh_from_db()
    assert route.enabled is True and route.note == ""
