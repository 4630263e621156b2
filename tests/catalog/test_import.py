"""import_catalog: convergence, curation surviving re-imports, import defaults, bad input."""

import copy
import gzip
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from catalog.importer import catalog_import
from catalog.models import Platform, Route, UpstreamState
from catalog.seed import SEED_PATH

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def snapshot() -> dict:
    with gzip.open(SEED_PATH) as stream:
        return json.load(stream)


def run_import(source) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_catalog", str(source), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def write_json(tmp_path, data, name="ns.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def empty_catalog() -> None:
    Route.objects.all().delete()
    Platform.objects.all().delete()


def test_it_imports_the_snapshot_then_reports_no_changes(tmp_path):
    empty_catalog()
    out, _ = run_import(SEED_PATH)
    assert "platforms: 2014 added" in out
    assert "routes: 3905 added, 0 updated, 0 removed upstream, 0 unchanged" in out
    assert Route.objects.count() == 3905

    out, _ = run_import(SEED_PATH)
    assert "routes: 0 added, 0 updated, 0 removed upstream, 3905 unchanged" in out
    assert out.strip().endswith("no changes")


def test_a_plain_json_file_is_the_same_as_the_gzip_seed(snapshot, tmp_path):
    out, _ = run_import(write_json(tmp_path, snapshot))
    assert "no changes" in out, (
        "the session already holds the seed: a plain copy must change nothing"
    )


def test_it_writes_nothing_when_nothing_changed(snapshot, django_assert_max_num_queries):
    # Reads only: platforms, routes and the platform map after convergence.
    with django_assert_max_num_queries(6) as captured:
        catalog_import(snapshot)
    writes = [q["sql"] for q in captured if q["sql"].split()[0] in ("INSERT", "UPDATE", "DELETE")]
    assert writes == [], f"a no-change re-import wrote: {writes[:2]}"


def test_curation_survives_a_reimport(snapshot):
    platform = Platform.objects.get(namespace="36kr")
    platform.aliases, platform.priority, platform.enabled, platform.note = ["氪"], 5, False, "kept"
    platform.save()
    route = Route.objects.get(path="/36kr/hot-list/:category?")
    route.enabled, route.priority, route.note = False, 7, "staff note"
    route.save()
    changed = copy.deepcopy(snapshot)
    changed["36kr"]["name"] = "36Kr renamed upstream"
    changed["36kr"]["routes"]["/hot-list/:category?"]["name"] = "Hot list renamed"

    report = catalog_import(changed)

    assert (report.platforms.updated, report.routes.updated) == (1, 1)
    platform.refresh_from_db()
    route.refresh_from_db()
    assert platform.name == "36Kr renamed upstream", "upstream fields must be updated"
    assert (platform.aliases, platform.priority, platform.enabled, platform.note) == (
        ["氪"], 5, False, "kept",
    ), "platform curation was overwritten"  # fmt: skip
    assert route.name == "Hot list renamed"
    assert (route.enabled, route.priority, route.note) == (False, 7, "staff note")


def test_vanished_entries_are_marked_removed_never_deleted(snapshot):
    smaller = copy.deepcopy(snapshot)
    del smaller["36kr"]
    del smaller["zhihu"]["routes"]["/hot/:category?"]

    report = catalog_import(smaller)

    assert report.platforms.removed == 1
    assert report.routes.removed == len(snapshot["36kr"]["routes"]) + 1
    assert Platform.objects.get(namespace="36kr").upstream_state == UpstreamState.REMOVED
    assert Route.objects.get(path="/zhihu/hot/:category?").upstream_state == UpstreamState.REMOVED
    assert Route.objects.count() == 3905, "removed upstream must not delete rows"

    report = catalog_import(snapshot)
    assert report.routes.updated == len(snapshot["36kr"]["routes"]) + 1, "returning routes"
    assert report.platforms.updated == 1
    assert Route.objects.get(path="/zhihu/hot/:category?").upstream_state == UpstreamState.PRESENT


def test_new_routes_needing_config_browser_or_nsfw_come_in_disabled_with_a_reason():
    config = Route.objects.filter(require_config=True).first()
    browser = Route.objects.filter(require_browser=True).first()
    nsfw = Route.objects.filter(nsfw=True).first()
    plain = Route.objects.get(path="/36kr/hot-list/:category?")

    assert not config.enabled and "needs config" in config.import_disabled_reason
    assert config.config_variables, "the mandatory variables are listed for staff"
    assert not browser.enabled and "browser" in browser.import_disabled_reason
    assert not nsfw.enabled and "nsfw" in nsfw.import_disabled_reason
    assert plain.enabled and plain.import_disabled_reason == ""


def test_optional_config_does_not_disable_a_route(snapshot):
    empty_catalog()
    data = {
        "demo": {
            "name": "Demo",
            "routes": {
                "/a": {
                    "path": "/a",
                    "name": "A",
                    "example": "/demo/a",
                    "features": {
                        "requireConfig": [{"name": "TOKEN", "optional": True, "description": ""}]
                    },
                }
            },
        }
    }
    catalog_import(data)
    assert Route.objects.get(path="/demo/a").enabled


def test_new_platforms_get_the_curated_starting_aliases():
    assert "B站" in Platform.objects.get(namespace="bilibili").aliases
    assert "IT之家" in Platform.objects.get(namespace="ithome").aliases


# --- Bad input: one test per kind, each writes nothing -------------------------------------------


def assert_refused(source, expected: str) -> None:
    before = (Platform.objects.count(), Route.objects.count())
    with pytest.raises(CommandError) as excinfo:
        run_import(source)
    message = str(excinfo.value)
    assert "nothing written" in message
    assert expected in message, f"error should name the problem ({expected!r}): {message}"
    assert (Platform.objects.count(), Route.objects.count()) == before


def test_it_refuses_a_file_that_is_not_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("<html>not json</html>")
    assert_refused(path, "not JSON")


def test_it_refuses_non_utf8_bytes(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"a": "\xff\xfe"}')
    assert_refused(path, "not JSON")


def test_it_refuses_json_of_the_wrong_shape(tmp_path):
    assert_refused(write_json(tmp_path, [1, 2, 3]), "wrong shape")


def test_it_refuses_an_object_without_any_route(tmp_path):
    assert_refused(
        write_json(tmp_path, {"demo": {"name": "x", "routes": "nope"}}), "no well-formed"
    )


def test_it_refuses_an_empty_file(tmp_path):
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    assert_refused(path, "empty body")


def test_it_refuses_a_missing_file(tmp_path):
    assert_refused(tmp_path / "nope.json", "cannot read")


def test_it_refuses_a_truncated_gzip(tmp_path):
    path = tmp_path / "cut.json.gz"
    path.write_bytes(SEED_PATH.read_bytes()[:5000])
    assert_refused(path, "broken gzip")


def test_it_refuses_an_unreachable_url():
    # Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    assert_refused("http://127.0.0.1:9", "unreachable")


def test_it_skips_and_lists_routes_with_broken_paths(tmp_path):
    data = {
        "demo": {
            "name": "Demo",
            "routes": {
                "/good/:id": {"path": "/good/:id", "name": "Good", "example": "/demo/good/1"},
                "/bad path/x": {"path": "/bad path/x", "name": "Space"},
                "/up/../escape": {"path": "/up/../escape", "name": "Dots"},
                "/open/:p{[a-z": {"path": "/open/:p{[a-z", "name": "Bracket"},
                "/not-an-object": "string",
            },
        }
    }
    _, err = run_import(write_json(tmp_path, data))
    assert Route.objects.filter(path="/demo/good/:id").exists()
    for broken in ("/bad path/x", "/up/../escape", "/open/:p{[a-z", "/not-an-object"):
        assert broken in err, f"skipped route {broken} should be listed"
        assert not Route.objects.filter(path="/demo" + broken).exists()
