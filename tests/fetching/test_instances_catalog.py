"""The catalog import reads every instance and records which serves which namespace; a path is
never sent to an instance that lacks its namespace."""

import io

import pytest
from django.core.management import call_command

from catalog.models import Platform
from fetching.catalog_download import catalog_import_from_instances
from fetching.services import fetch_path_sync
from tests.fetching.instance_standins import InstancePair
from tests.httpserver import Reply

pytestmark = pytest.mark.django_db


def namespaces(*names: str) -> dict:
    return {
        name: {"name": name.title(), "routes": {"/news": {"path": "/news", "name": "News"}}}
        for name in names
    }


@pytest.fixture
def pair(settings):
    instances = InstancePair(settings)
    instances.a_server.route("/api/namespace", Reply.json(namespaces("xalpha", "xshared")))
    instances.b_server.route("/api/namespace", Reply.json(namespaces("xbeta", "xshared")))
    yield instances
    instances.stop()


def served(instance) -> set[str]:
    return set(instance.platforms.values_list("namespace", flat=True))


def test_it_records_which_instance_serves_which_namespace(pair):
    report, found = catalog_import_from_instances()

    assert report.platforms.added == 3
    assert served(pair.a) == {"xalpha", "xshared"}
    assert served(pair.b) == {"xbeta", "xshared"}
    assert pair.a.catalog_read_at is not None and found.failed == {}


def test_a_path_goes_only_to_an_instance_that_serves_its_namespace(pair):
    catalog_import_from_instances()

    only_b = fetch_path_sync("/xbeta/news")
    shared = fetch_path_sync("/xshared/news")

    assert (only_b.instance, only_b.failed_over) == (pair.b.label, ())
    assert pair.a_server.requests_to("/xbeta/news") == []
    assert shared.instance == pair.a.label, "the preferred instance serves what both serve"


def test_an_instance_that_cannot_be_read_keeps_what_it_was_found_to_serve(pair):
    catalog_import_from_instances()
    pair.a_server.route("/api/namespace", Reply(503, body=b"down"))
    pair.b_server.route("/api/namespace", Reply.json(namespaces("xbeta")))

    _, found = catalog_import_from_instances()

    assert list(found.failed) == [pair.a.label]
    assert served(pair.a) == {"xalpha", "xshared"}, "kept from the last import"
    assert served(pair.b) == {"xbeta"}
    assert Platform.objects.filter(namespace="xshared").exists(), "an import never deletes"


def test_the_command_reads_every_instance(pair):
    out, err = io.StringIO(), io.StringIO()
    pair.b_server.stop()
    call_command("import_catalog", stdout=out, stderr=err)
    assert f"{pair.a.label}: 2 namespaces served" in out.getvalue()
    assert f"{pair.b.label} not read" in err.getvalue()
