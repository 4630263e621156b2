"""The instances the environment seeds (RSSHUB_URLS, RSSHUB_URL as a list of one), the staff's
own, and what an instance's base URL may be."""

import pytest
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from fetching.instance_url import InstanceURLRefused, instance_host, instance_url_clean
from fetching.instances import instance_save_by_staff, instances_read
from fetching.models import RSSHubInstance
from rsshub_agent.env import env_rsshub_url, env_rsshub_urls

pytestmark = pytest.mark.django_db

A, B, C = "http://127.0.0.1:1201", "https://rsshub.example.org/rsshub", "http://[::1]:1203"


def seeded() -> list[tuple]:
    rows = RSSHubInstance.objects.order_by("-priority", "id")
    return list(rows.values_list("base_url", "enabled", "priority", "access_key"))


def writes(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].startswith(("INSERT", "UPDATE", "DELETE"))]


def test_rsshub_urls_seed_one_instance_each_in_their_order(settings):
    settings.RSSHUB_URLS = [A, B, C]
    settings.RSSHUB_ACCESS_KEY = "one-key-for-all"

    instances_read()

    assert seeded() == [
        (A, True, 0, "one-key-for-all"),
        (B, True, -1, "one-key-for-all"),
        (C, True, -2, "one-key-for-all"),
    ]
    assert all(row.from_environment for row in RSSHubInstance.objects.all())


def test_seeding_twice_writes_nothing_the_second_time(settings):
    settings.RSSHUB_URLS = [A, B]
    instances_read()
    with CaptureQueriesContext(connection) as queries:
        rows = instances_read()
    assert [row.base_url for row in rows] == [A, B]
    assert writes(queries) == [] and len(queries) == 1


def test_rsshub_url_alone_is_a_list_of_one(settings):
    settings.RSSHUB_URLS = []
    settings.RSSHUB_URL = A
    instances_read()
    assert [url for url, *_ in seeded()] == [A]


def test_a_seeded_instance_follows_the_environment(settings):
    settings.RSSHUB_URLS = [A, B]
    settings.RSSHUB_ACCESS_KEY = "first"
    instances_read()

    settings.RSSHUB_URLS = [B]
    settings.RSSHUB_ACCESS_KEY = "second"
    instances_read()

    # A is no longer listed: disabled, and its key no longer follows; B is now the first.
    assert seeded() == [(A, False, 0, "first"), (B, True, 0, "second")]


def test_an_instance_staff_edited_is_left_alone_by_the_environment(settings):
    settings.RSSHUB_URLS = [A]
    settings.RSSHUB_ACCESS_KEY = "env-key"
    [row] = instances_read()
    row.enabled = False
    instance_save_by_staff(row, new_key="staff-key")

    settings.RSSHUB_ACCESS_KEY = "another-env-key"
    instances_read()

    assert seeded() == [(A, False, 0, "staff-key")]


def test_staff_instances_stay_beside_the_seeded_ones(settings):
    settings.RSSHUB_URLS = [A]
    RSSHubInstance.objects.create(base_url=B, name="backup", priority=-5)
    instances_read()
    assert [(url, enabled) for url, enabled, *_ in seeded()] == [(A, True), (B, True)]


def test_a_refused_url_in_the_settings_is_skipped_not_seeded(settings, caplog):
    settings.RSSHUB_URLS = ["http://user:hunter2@127.0.0.1:1200", A]
    instances_read()
    assert [url for url, *_ in seeded()] == [A]
    assert "hunter2" not in caplog.text


HOSTILE = [
    "",
    "ftp://rsshub.local",
    "javascript:alert(1)",
    "http://",
    "//rsshub.local",
    "http://user:pass@rsshub.local",
    "http://token@rsshub.local",
    "http://rsshub.local?key=x",
    "http://rsshub.local/#frag",
    "http://rsshub.local:99999",
    "http://rsshub local",
    "http://rsshub.local/\x00",
    "http://rsshub.local\\@evil.example",
    "http://rsshub.local/a/../b",
    "http://[::1",
    "http://\u0440\u0441\u0441.example",  # Cyrillic: a look-alike host
    "http://" + "a" * 600 + ".example",
]


@pytest.mark.parametrize("url", HOSTILE)
def test_a_hostile_base_url_is_refused(url):
    with pytest.raises(InstanceURLRefused):
        instance_url_clean(url)
    with pytest.raises(ValidationError):
        RSSHubInstance(base_url=url).full_clean()


def test_a_refusal_never_echoes_the_url():
    with pytest.raises(InstanceURLRefused) as caught:
        instance_url_clean("http://user:s3cret@rsshub.local")
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "clean", "host"),
    [
        ("http://127.0.0.1:1200/", "http://127.0.0.1:1200", "127.0.0.1:1200"),
        (f"{B}/", B, "rsshub.example.org"),
        ("http://[::1]:1200", "http://[::1]:1200", "[::1]:1200"),
        ("  http://rsshub:1200  ", "http://rsshub:1200", "rsshub:1200"),
    ],
)  # fmt: skip
def test_a_good_base_url_is_kept_without_its_trailing_slash(url, clean, host):
    assert instance_url_clean(url) == clean
    assert instance_host(clean) == host


def test_the_environment_reader_names_the_entry_never_the_value(monkeypatch):
    monkeypatch.setenv("RSSHUB_URLS", f"{A}, http://admin:p4ss@rsshub.local")
    with pytest.raises(ImproperlyConfigured) as caught:
        env_rsshub_urls("RSSHUB_URLS")
    assert "RSSHUB_URLS: entry 2" in str(caught.value)
    assert "p4ss" not in str(caught.value)
    monkeypatch.setenv("RSSHUB_URLS", f"{A},{B},{A}")
    assert env_rsshub_urls("RSSHUB_URLS") == [A, B]


def test_rsshub_url_holds_one_url(monkeypatch):
    monkeypatch.setenv("RSSHUB_URL", f"{A},{B}")
    with pytest.raises(ImproperlyConfigured, match="RSSHUB_URLS"):
        env_rsshub_url("RSSHUB_URL")
    monkeypatch.setenv("RSSHUB_URL", f"{A}/")
    assert env_rsshub_url("RSSHUB_URL") == A
