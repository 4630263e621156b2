"""The dashboard's RSSHub banner lists every instance; the route health page shows each route
on each instance."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from fetching.models import RouteInstanceHealth, RSSHubEgress
from fetching.services import fetch_path_sync
from tests.fetching.instance_standins import (
    InstancePair,
    failing_on_its_own,
    route_error,
    routes_make,
)
from tests.httpserver import Reply

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def every_refresh_forced(settings):
    """These tests refresh one path several times in a row to watch each instance answer: each
    must reach RSSHub, which the per-path budget of forced refreshes (one a minute) would not
    allow (that budget has its own tests, in test_forced_refresh.py)."""
    settings.FORCED_REFRESH_PATH_SECONDS = 0


@pytest.fixture
def pair(settings):
    instances = InstancePair(settings)
    yield instances
    instances.stop()


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def banner_of(body: str) -> str:
    start = body.rindex("<div", 0, body.index('id="rsshub-banner"'))
    return body[start : body.index("</ul>", start)]


def test_the_banner_lists_every_instance_up_or_down(pair, owner):
    failing_on_its_own(pair.b_server, Reply(503, body=b"down"))

    banner = banner_of(signed_in(owner).get(reverse("home")).content.decode())

    assert "tone-warn" in banner, "one of two is down: a warning, fetches still go out"
    assert f'data-instance="{pair.a.pk}"' in banner and f'data-instance="{pair.b.pk}"' in banner
    a_line = banner.split(f'data-instance="{pair.a.pk}"')[1].split("</li>")[0]
    b_line = banner.split(f'data-instance="{pair.b.pk}"')[1].split("</li>")[0]
    assert "up" in a_line and " ms" in a_line
    assert "down" in b_line
    assert pair.a_url.removeprefix("http://") not in banner, "addresses are for staff only"


def test_staff_see_each_instance_address_in_the_banner(pair, staff):
    banner = banner_of(signed_in(staff).get(reverse("home")).content.decode())
    assert pair.a_url.removeprefix("http://") in banner
    assert "RSSHub answers." in banner


def test_the_route_health_page_shows_the_route_on_each_instance(pair, staff):
    route = routes_make("xalpha")["xalpha"]
    pair.a_server.route("/xalpha/news", route_error())
    fetch_path_sync("/xalpha/news", refresh=True)  # fails on a
    fetch_path_sync("/xalpha/news", refresh=True)  # then served by b
    assert RouteInstanceHealth.objects.filter(route=route).count() == 2

    body = signed_in(staff).get(reverse("route-health")).content.decode()

    row = body.split(f'data-route="{route.pk}"')[1].split("</tr>")[0]
    cell = row.split('class="on-instances"')[1].split("</td>")[0]
    on_a = cell.split(f'data-instance="{pair.a.pk}"')[1].split("</div>")[0]
    on_b = cell.split(f'data-instance="{pair.b.pk}"')[1].split("</div>")[0]
    assert "tone-bad" in on_a and "needs config" in on_a  # the outcome class by its name
    assert "tone-ok" in on_b and "1 of 1" in on_b


def test_an_instance_that_answers_without_internet_says_so_in_amber(pair, owner):
    """Text and dot agree: not "up" beside a red dot, but what is true, in the warning colour."""
    RSSHubEgress.objects.update_or_create(
        base_url=pair.a.base_url, defaults={"down_since": timezone.now()}
    )
    banner = banner_of(signed_in(owner).get(reverse("home")).content.decode())
    lines = {
        int(pk): (tone, text)
        for tone, pk, text in re.findall(
            r'<li class="tone-(\w+)" data-instance="(\d+)">(.*?)</li>', banner, re.S
        )
    }
    tone, text = lines[pair.a.pk]
    assert tone == "warn" and "answers, but has no internet" in text
    assert ": up" not in text
    assert lines[pair.b.pk][0] == "ok" and ": up" in lines[pair.b.pk][1]
