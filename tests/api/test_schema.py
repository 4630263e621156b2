"""The OpenAPI schema matches the API: schemathesis fuzzes every operation of the live
application (a live server over real HTTP, authenticated with a token), with positive and
negative data, and checks that no answer is a 5xx and every answer conforms to the schema
(status code, content type, headers, body), that valid data is accepted and invalid data refused.

Over HTTP rather than through WSGI in-process: schemathesis' WSGI transport sends a mutated
object query value as its Python repr, a valid string on the wire, while its checks expect the
form encoding a real client uses, which made "invalid data accepted" findings that were not."""

import ipaddress
import os
import re
import unicodedata
from urllib.parse import urlsplit

import pytest
import schemathesis
from django.contrib.staticfiles import finders
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from briefs.models import BriefStatus
from briefs.steps import step_append
from briefs.tokens.service import token_issue
from briefs.webhooks import webhook_create
from catalog.models import Route
from catalog.search import MAX_QUESTION_CHARS
from tests.conftest import catalog_seed_import
from watches.services import watch_create

MAX_EXAMPLES = 25


def public_dns(host: str, port: int) -> list[str]:
    """DNS lies outside this machine: every name resolves to one public address."""
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        return ["93.184.215.14"]


def questions() -> st.SearchStrategy[str]:
    """The ``question`` format: text without control, surrogate or private-use characters,
    with something besides spaces, at most 2000 characters once normalised."""
    characters = st.characters(exclude_categories=("Cc", "Cs", "Co"))
    return st.text(characters, min_size=1, max_size=MAX_QUESTION_CHARS).filter(
        lambda text: 0 < len(unicodedata.normalize("NFC", text).strip()) <= MAX_QUESTION_CHARS
    )


schemathesis.openapi.format("question", questions())

# Whether a webhook URL is accepted also depends on what its host resolves to at the time:
# no schema can say it, so a 400 (naming ``url``) is an expected answer to valid-looking data.
# A body over the size limit is refused with 413 before its content is looked at.
NEGATIVE_EXPECTED = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "429"]
CONFIG = schemathesis.config.SchemathesisConfig.from_dict(
    {
        # A bound, not a margin (schemathesis' own is 10 s): on a loaded machine a slow answer
        # is still an answer, and a timeout replayed quickly would read as a flaky test.
        "request-timeout": 120,
        "checks": {"negative_data_rejection": {"expected-statuses": NEGATIVE_EXPECTED}},
        "operations": [
            {
                "include-method": "POST",
                "include-path": "/api/v1/webhooks",
                "checks": {
                    "positive_data_acceptance": {
                        "expected-statuses": ["2xx", "400", "401", "403", "404", "429"]
                    }
                },
            },
            *(
                # Whether a watch is accepted also depends on its fields together (a weekly
                # schedule needs a weekday, and only it has one), and on the user (the number
                # of watches, an email address to notify): a 400 naming the field is expected.
                {
                    "include-method": method,
                    "include-path": path,
                    "checks": {
                        "positive_data_acceptance": {
                            "expected-statuses": ["2xx", "400", "401", "403", "404", "429"]
                        }
                    },
                }
                for method, path in (
                    ("POST", "/api/v1/watches"),
                    ("PATCH", "/api/v1/watches/{watch_id}"),
                )
            ),
        ],
    }
)


@pytest.fixture
def world(staff, other_user, make_brief, settings, monkeypatch) -> dict[str, int]:
    """Objects for the fuzzer to find, owned by the (staff) caller unless said otherwise: the
    catalog, a finished brief with steps, a running one, another user's brief, a webhook;
    returns real path ids for the pass that aims at existing objects."""
    catalog_seed_import()  # transactional tests start from empty tables
    monkeypatch.setattr("briefs.webhooks.address.host_resolve", public_dns)
    settings.API_BRIEFS_PER_DAY = 100_000
    settings.RSSHUB_URL = "http://127.0.0.1:9"  # the status probe: refused at once
    brief = make_brief(staff, status=BriefStatus.SUCCEEDED, body="An answer [1].")
    step_append(brief_id=brief.pk, kind="run_started", payload={"mode": "offline"})
    make_brief(staff, status=BriefStatus.RUNNING)
    make_brief(other_user)
    hook = webhook_create(owner=staff, url="http://hooks.example.com/in")
    spare = token_issue(user=staff, name="spare").token
    watch = watch_create(owner=staff, question="new nginx tags")
    return {
        "brief_id": brief.pk,
        "route_id": Route.objects.order_by("pk").values_list("pk", flat=True)[0],
        "webhook_id": hook.pk,
        "token_id": spare.pk,
        "watch_id": watch.pk,
    }


def fuzz_operations(
    base_url: str, user, mode: GenerationMode, ids: dict[str, int] | None = None
) -> int:
    """Run schemathesis on every operation (with ``ids``: only those with path parameters,
    aimed at those objects); fails with every operation's failure listed."""
    schema = schemathesis.openapi.from_url(f"{base_url}/api/schema/", config=CONFIG)
    host = urlsplit(base_url).netloc
    failures: list[str] = []
    operations = 0
    # Deletions last, so the other operations still find the objects they aim at.
    everything = [result.ok() for result in schema.get_all_operations()]
    for operation in sorted(everything, key=lambda op: op.method.upper() == "DELETE"):
        names = [p.name for p in operation.path_parameters]
        if ids is not None and not names:
            continue
        fixed = {name: ids[name] for name in names} if ids is not None else None
        operations += 1

        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy(generation_mode=mode, path_parameters=fixed))
        def fuzz(case):
            # A fresh token per case: the fuzzer may revoke the one it was given.
            secret = token_issue(user=user, name="fuzz").secret
            # The Host too: a forged one is refused by Django (400) before any view runs.
            headers = {"Authorization": f"Bearer {secret}", "Host": host}
            # A negative case may be negative through its Authorization header alone: sending a
            # valid token in its place would make it a valid request, rightly accepted.
            generated = {name.lower() for name in case.headers or {}}
            if mode is GenerationMode.NEGATIVE and "authorization" in generated:
                del headers["Authorization"]
            case.call_and_validate(headers=headers)

        try:
            fuzz()
        except Exception as exc:  # collect every operation's failure, then report them all
            failures.append(f"{operation.label}: {str(exc)[:3000]}")
    assert not failures, "\n\n".join(failures)
    return operations


@pytest.mark.django_db
def test_the_schema_is_served_as_openapi_3(client):
    response = client.get("/api/schema/", headers={"Accept": "application/vnd.oai.openapi+json"})
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert schema["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    paths = set(schema["paths"])
    for expected in (
        "/api/v1/briefs",
        "/api/v1/briefs/{brief_id}/steps",
        "/api/v1/catalog/routes/{route_id}/prefer",
        "/api/v1/webhooks/{webhook_id}/deliveries",
        "/api/v1/status",
        "/api/v1/watches/{watch_id}/run",
    ):
        assert expected in paths, f"{expected} missing from the schema"


@pytest.mark.django_db
def test_the_docs_page_uses_local_assets(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    remote = re.findall(r'(?:src|href)="(?:https?:)?//[^"]+"', page)
    assert not remote, f"the docs page loads assets from elsewhere: {remote}"


def test_the_docs_assets_are_static_files_of_the_sidecar_app():
    """Read through the project's own settings: the assets exist only while the settings install
    drf_spectacular_sidecar."""
    found = finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert found, "no swagger-ui bundle: drf_spectacular_sidecar left INSTALLED_APPS"
    assert os.path.getsize(found) > 100_000, found


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_every_operation_conforms_to_the_schema(live_server, world, staff, mode):
    operations = fuzz_operations(live_server.url, staff, mode)
    assert operations >= 20, f"only {operations} operations in the schema"


@pytest.mark.django_db(transaction=True)
def test_operations_on_existing_objects_conform_to_the_schema(live_server, world, staff):
    operations = fuzz_operations(live_server.url, staff, GenerationMode.POSITIVE, ids=world)
    assert operations >= 12, f"only {operations} operations with path parameters"
