"""Fixtures for fetching: a real RSSHub (session), a scripted HTTP server (per test), feeds."""

from __future__ import annotations

import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async
from django.db import connections

from tests.httpserver import ScriptedServer


@pytest_asyncio.fixture
async def async_db_closed():
    """For async tests: close the connection sync_to_async opened in its worker thread, or the
    test database cannot be dropped at the end of the session."""
    yield
    await sync_to_async(connections.close_all)()


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


@pytest.fixture
def rsshub_at_server(settings, server):
    """Point the client at the scripted server, with short limits so failures are quick."""
    settings.RSSHUB_URL = server.url
    settings.RSSHUB_ACCESS_KEY = ""
    settings.RSSHUB_TIMEOUT = 2.0
    settings.RSSHUB_CONNECT_TIMEOUT = 1.0
    return server


@pytest.fixture
def rsshub_settings(settings, rsshub):
    settings.RSSHUB_URL = rsshub.url
    settings.RSSHUB_ACCESS_KEY = ""
    settings.RSSHUB_TIMEOUT = 10.0
    return rsshub
