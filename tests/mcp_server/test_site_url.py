"""``MCP_SITE_URL``: where the stdio server's links point. It follows ``HOST``/``PORT`` (where
``scripts/run`` serves) unless set, and a malformed value stops start-up naming it."""

import pytest

from tests.test_settings import start


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "http://127.0.0.1:8000"),
        ({"HOST": "0.0.0.0", "PORT": "9000"}, "http://0.0.0.0:9000"),
        ({"MCP_SITE_URL": "https://agent.example.org/"}, "https://agent.example.org"),
        ({"MCP_SITE_URL": ""}, "http://127.0.0.1:8000"),
    ],
)
def test_the_site_url_defaults_to_where_the_server_runs(tmp_path, env, expected):
    result = start(tmp_path, PRINT="MCP_SITE_URL", **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["started", expected]


@pytest.mark.parametrize("value", ["ftp://agent.example", "agent.example", "https://a.b/?x=1"])
def test_a_malformed_site_url_stops_start_up_naming_it(tmp_path, value):
    result = start(tmp_path, MCP_SITE_URL=value)
    assert result.returncode != 0
    assert "MCP_SITE_URL" in result.stderr
