"""The catalog download goes through the one RSSHub client: confined, capped, the key kept out."""

import gzip
import json

import pytest

from catalog.importer import CatalogSourceError
from fetching.catalog_download import catalog_fetch
from tests.httpserver import Reply, ScriptedServer

KEY = "catalog-SECRET-key"
CATALOG = {"demo": {"name": "Demo", "routes": {"/a": {"path": "/a", "name": "A"}}}}


def refusal(base_url: str, **options) -> str:
    with pytest.raises(CatalogSourceError) as caught:
        catalog_fetch(base_url, access_key=KEY, **options)
    message = str(caught.value)
    assert KEY not in message, "the access key reached an error message"
    return message


def test_it_downloads_the_namespace_json_with_the_key():
    with ScriptedServer() as rsshub:
        rsshub.route("/api/namespace", Reply.json(CATALOG))
        assert catalog_fetch(rsshub.url, access_key=KEY) == CATALOG
        assert rsshub.requests_to("/api/namespace")[0].query == {"key": [KEY]}


def test_it_decodes_a_gzip_answer():
    body = gzip.compress(json.dumps(CATALOG).encode())
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    with ScriptedServer() as rsshub:
        rsshub.route("/api/namespace", Reply(200, headers, body))
        assert catalog_fetch(rsshub.url) == CATALOG


def test_it_refuses_an_error_status():
    with ScriptedServer() as rsshub:
        rsshub.route("/api/namespace", Reply(503, body=b"down"))
        assert "HTTP 503" in refusal(rsshub.url)


def test_it_refuses_a_body_past_the_cap():
    with ScriptedServer() as rsshub:
        rsshub.route("/api/namespace", Reply.json(CATALOG))
        assert "body larger than 20" in refusal(rsshub.url, max_bytes=20)


def test_it_refuses_a_redirect_to_another_origin():
    with ScriptedServer() as elsewhere, ScriptedServer() as rsshub:
        elsewhere.route("/api/namespace", Reply.json(CATALOG))
        target = f"{elsewhere.url}/api/namespace"
        rsshub.route("/api/namespace", Reply(302, {"Location": target}))
        assert "another origin" in refusal(rsshub.url)
        assert not elsewhere.requests_to("/api/namespace"), "the redirect was followed"


def test_it_refuses_an_unreachable_rsshub():
    # Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    assert "unreachable" in refusal("http://127.0.0.1:9")


def test_it_refuses_an_answer_that_is_not_the_catalog():
    with ScriptedServer() as rsshub:
        rsshub.route("/api/namespace", Reply(200, {"Content-Type": "text/html"}, b"<html></html>"))
        assert "not JSON" in refusal(rsshub.url)
