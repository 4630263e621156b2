"""Briefs as the tests need them, made directly as rows: the API, dashboard and task tests share
one shape of a queued brief and of a finished one."""

from datetime import timedelta

from django.utils import timezone

from briefs.models import Brief, BriefStatus

ITEM_URL = "https://news.example.com/items/1"


def make_brief(owner, question: str = "What is new on RSSHub test?", **fields) -> Brief:
    """A brief row of ``owner`` with ``fields`` (queued unless they say otherwise); no worker
    is asked to run it."""
    return Brief.objects.create(owner=owner, question=question, **fields)


def finished_brief(owner, **fields) -> Brief:
    """A brief that succeeded offline: one cited item, one route ok and one failed, one model
    call; ``fields`` override any of it."""
    now = timezone.now()
    values = {
        "status": BriefStatus.SUCCEEDED,
        "mode": "offline",
        "query": "rsshub test feed",
        "body": "As of now, 1 item.\n\n### RSSHub Test\n\n- Title one [1]\n",
        "citations": [
            {
                "n": 1,
                "item_id": 1,
                "title": "Title one",
                "link": ITEM_URL,
                "path": "/test/1",
                "source": "RSSHub Test",
                "published_at": "2026-11-01T08:30:00+00:00",
            }
        ],
        "coverage": {
            "tried": ["/test/1", "/test/error"],
            "succeeded": [
                {
                    "path": "/test/1",
                    "outcome": "ok",
                    "items": 5,
                    "attempts": 1,
                    "ok": True,
                    "message": "5 items",
                }
            ],
            "failed": [
                {
                    "path": "/test/error",
                    "outcome": "upstream_error",
                    "items": 0,
                    "attempts": 2,
                    "ok": False,
                    "message": "Error test",
                }
            ],
        },
        "usage": {
            "nodes": {
                "platform": {
                    "calls": 1,
                    "prompt_tokens": 321,
                    "completion_tokens": 12,
                    "cached_tokens": 0,
                }
            },
            "llm_calls": 1,
            "fallbacks": ["route"],
            "steps": 3,
            "budget": 8,
        },
        "timings": {"total_ms": 1234},
        "as_of": now,
        "started_at": now - timedelta(seconds=5),
        "finished_at": now,
        **fields,
    }
    return make_brief(owner, **values)
