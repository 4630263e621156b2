"""Fixtures for watches: the agent's small world and stand-in RSSHub (``tests.briefs``), watches
made the way the services make them, and runs made without the agent where only their end
matters."""

from __future__ import annotations

from datetime import time

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from briefs.models import Brief, BriefOutcome, BriefStatus
from tests.agent.conftest import offline, run_owner, stub_rsshub, world  # noqa: F401 (fixtures)
from tests.api.conftest import anon, api, api_for, api_settings, other_api  # noqa: F401 (fixtures)
from watches.models import Watch, WatchRun
from watches.services import watch_create


@pytest.fixture(autouse=True)
def watch_settings(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://agent.example.org"
    settings.WATCHES_PER_USER = 20
    return settings


@pytest.fixture
def reader(db):
    """A user with an email address, to be notified."""
    return get_user_model().objects.create_user(
        "reader", email="reader@example.org", password="reader-pass-1234"
    )


def watch_make(owner, question: str = "Alpha Wire flash news", **fields) -> Watch:
    fields.setdefault("schedule", "daily")
    fields.setdefault("time", time(8, 0))
    fields.setdefault("timezone", "Asia/Shanghai")
    return watch_create(owner=owner, question=question, **fields)


def run_finished(
    watch: Watch,
    *,
    outcome: str = BriefOutcome.ANSWERED,
    status: str = BriefStatus.SUCCEEDED,
    new: int = 1,
    repeated: int = 0,
    body: str = "Something happened [1].",
    citations: list[dict] | None = None,
) -> WatchRun:
    """A run of ``watch`` whose brief has ended as given (no agent), not yet settled."""
    now = timezone.now()
    brief = Brief.objects.create(
        owner=watch.owner,
        question=watch.question,
        watch=watch,
        status=status,
        outcome=outcome if status == BriefStatus.SUCCEEDED else "",
        body=body,
        language="en",
        citations=citations
        if citations is not None
        else [
            {
                "n": 1,
                "title": "Chips & ships",
                "link": "https://news.example.com/chips?id=1",
                "source": "Alpha Wire",
                "path": "/alpha/flash",
                "published_at": "2026-11-01T06:00:00+00:00",
            }
        ],
        delta={"since": None, "new_items": new, "repeated_items": repeated},
        as_of=now,
        finished_at=now,
    )
    return WatchRun.objects.create(watch=watch, brief=brief, due_at=None)
