"""What changed, through real runs: the offline agent fetches a stand-in RSSHub on 127.0.0.1,
and each run of a watch writes only what its earlier runs did not report."""

from __future__ import annotations

from datetime import timedelta
from email.utils import format_datetime
from xml.sax.saxutils import escape

import pytest
from django.utils import timezone

from briefs.models import Brief, BriefOutcome
from tests.feeds import RSS_TYPE, rss_document
from tests.httpserver import Reply
from tests.watches.conftest import watch_make
from watches.models import WatchRun
from watches.services import watch_brief_start
from watches.tasks import watch_brief_run

pytestmark = pytest.mark.usefixtures("offline")

PATH = "/alpha/flash"
STORIES = {
    "port": ("Port strike ends after three weeks", "https://wire.example/port"),
    "chips": ("Chip prices fall sharply in October", "https://wire.example/chips"),
    "rain": ("Heavy rain expected in Berlin this weekend", "https://wire.example/rain"),
    "kirin": ("Kirin 9050 benchmark leaks ahead of launch", "https://wire.example/kirin"),
}


def item(title: str, link: str, *, guid: str | None = None, hours_ago: float = 1) -> str:
    published = timezone.now() - timedelta(hours=hours_ago)
    return (
        f"<item><title>{escape(title)}</title><link>{escape(link)}</link>"
        f"<guid>{escape(guid or link)}</guid><description>{escape(title)}.</description>"
        f"<pubDate>{format_datetime(published)}</pubDate></item>"
    )


def serve(server, *items: str) -> None:
    server.route(PATH, Reply(200, RSS_TYPE, rss_document("".join(items))))


def stories(*names: str) -> list[str]:
    return [item(*STORIES[name], hours_ago=n + 1) for n, name in enumerate(names)]


@pytest.fixture
def watch(world, run_owner, settings):
    settings.FETCH_FRESH_SECONDS = 0  # every run asks the stand-in: it changes between runs
    return watch_make(run_owner, timezone="Asia/Shanghai")


def run(watch) -> Brief:
    brief = watch_brief_start(watch, due_at=None)
    watch_brief_run(brief.pk)
    brief.refresh_from_db()
    assert brief.status == "succeeded", brief.error
    return brief


def cited_titles(brief: Brief) -> list[str]:
    return [c["title"] for c in brief.citations]


def test_the_first_run_reports_everything_it_found(watch, stub_rsshub):
    serve(stub_rsshub, *stories("port", "chips", "rain"))
    brief = run(watch)
    assert brief.delta == {"since": None, "new_items": 3, "repeated_items": 0}
    assert sorted(cited_titles(brief)) == sorted(STORIES[n][0] for n in ("port", "chips", "rain"))
    assert not brief.body.startswith(("New since", "Nothing new"))


def test_the_same_items_twice_is_one_line_saying_nothing_is_new(watch, stub_rsshub):
    serve(stub_rsshub, *stories("port", "chips", "rain"))
    first = run(watch)
    second = run(watch)
    assert second.outcome == BriefOutcome.ANSWERED
    assert second.delta["new_items"] == 0
    assert second.delta["repeated_items"] == 3
    assert second.delta["since"] == first.as_of.isoformat()
    assert second.citations == []
    assert "\n" not in second.body.strip()  # one line, not the old answer again
    assert second.body.startswith("Nothing new since ")
    assert "today" in second.body  # the last run's time, said in the watch's zone
    assert "the last new item is from" in second.body
    for title, _ in STORIES.values():
        assert title not in second.body


def test_a_new_item_on_the_second_run_is_the_only_one_reported(watch, stub_rsshub):
    serve(stub_rsshub, *stories("port", "chips", "rain"))
    run(watch)
    serve(stub_rsshub, item(*STORIES["kirin"], hours_ago=0.5), *stories("port", "chips", "rain"))
    second = run(watch)
    assert second.delta["new_items"] == 1
    assert second.delta["repeated_items"] == 3
    assert cited_titles(second) == [STORIES["kirin"][0]]
    lead = second.body.splitlines()[0]
    assert lead.startswith("New since ") and "1 new item." in lead
    assert "3 items reported before are left out." in lead
    for name in ("port", "chips", "rain"):
        assert STORIES[name][0] not in second.body


def test_tracking_parameters_and_another_outlet_fold_into_what_was_reported(watch, stub_rsshub):
    serve(stub_rsshub, *stories("port", "chips"))
    run(watch)
    serve(
        stub_rsshub,
        # The same article, linked with tracking parameters, another scheme and a new GUID.
        item("Chip prices: October fall", "http://WIRE.example/chips/?utm_source=rss&spm=1.2",
             guid="tracking-guid", hours_ago=0.5),
        # The same story told by another outlet.
        item("Port strike ends after three weeks, unions say", "https://daily.example/strike",
             guid="daily-1", hours_ago=0.6),
        item(*STORIES["rain"], hours_ago=0.7),
    )  # fmt: skip
    second = run(watch)
    assert second.delta == {
        "since": second.delta["since"],
        "new_items": 1,
        "repeated_items": 2,
    }
    assert cited_titles(second) == [STORIES["rain"][0]]


def test_a_failed_run_does_not_count_as_reported(watch, stub_rsshub):
    serve(stub_rsshub, *stories("port"))
    first = run(watch)
    Brief.objects.filter(pk=first.pk).update(status="failed")
    second = run(watch)
    assert second.delta["new_items"] == 1
    assert cited_titles(second) == [STORIES["port"][0]]


def test_each_run_records_what_it_listed(watch, stub_rsshub):
    serve(stub_rsshub, *stories("port", "chips"))
    brief = run(watch)
    marks = WatchRun.objects.get(brief=brief).items
    assert sorted(m["link"] for m in marks) == ["wire.example/chips", "wire.example/port"]
    assert all(m["guid"].startswith("https://wire.example/") for m in marks)


def test_an_ordinary_brief_is_left_alone(world, run_owner, stub_rsshub, settings):
    from tests.agent.conftest import brief_run

    settings.FETCH_FRESH_SECONDS = 0
    serve(stub_rsshub, *stories("port"))
    for _ in range(2):
        brief = brief_run(run_owner, "Alpha Wire flash news", offline=True)
        assert brief.delta is None and brief.watch_id is None
        assert cited_titles(brief) == [STORIES["port"][0]]


def test_a_chinese_question_is_told_what_changed_in_chinese(
    world, run_owner, stub_rsshub, settings
):
    settings.FETCH_FRESH_SECONDS = 0
    watch = watch_make(run_owner, question="阿尔法快讯 最新消息", timezone="Asia/Shanghai")
    serve(stub_rsshub, *stories("port"))
    run(watch)
    serve(stub_rsshub, item(*STORIES["kirin"], hours_ago=0.5), *stories("port"))
    second = run(watch)
    assert second.language == "zh-hans"
    assert second.body.startswith("自今天 ")
    lead = "以来：1 条新内容。1 条此前已报告的内容不再重复。"  # noqa: RUF001
    assert lead in second.body.splitlines()[0]
    third = run(watch)
    assert third.body.startswith("自今天 ") and "以来没有新内容" in third.body


ACME = "Acme to cut {n} jobs in a worldwide restructuring"
ACME_TEXT = "Acme said it would cut {n} jobs in a worldwide restructuring of its factories."


def acme(n: str, link: str, hours_ago: float) -> str:
    published = format_datetime(timezone.now() - timedelta(hours=hours_ago))
    return (
        f"<item><title>{ACME.format(n=n)}</title><link>{link}</link><guid>{link}</guid>"
        f"<description>{ACME_TEXT.format(n=n)}</description><pubDate>{published}</pubDate></item>"
    )


def test_a_new_difference_between_outlets_is_reported_as_a_change(
    run_owner, world, stub_rsshub, settings
):
    settings.FETCH_FRESH_SECONDS = 0
    watch = watch_make(run_owner, question="Alpha Wire and Beta Daily flash news")
    stub_rsshub.route(
        PATH, Reply(200, RSS_TYPE, rss_document(acme("3,000", "https://a.example/1", 2)))
    )
    stub_rsshub.route("/beta/latest", Reply(200, RSS_TYPE, rss_document(item(*STORIES["rain"]))))
    first = run(watch)
    assert "Sources now differ" not in first.body and "differences" not in first.delta

    beta = item(*STORIES["rain"]) + acme("5,000", "https://b.example/1", 1)
    stub_rsshub.route("/beta/latest", Reply(200, RSS_TYPE, rss_document(beta)))
    second = run(watch)
    changed = "Sources now differ: Alpha Wire says 3,000; Beta Daily says 5,000."
    assert changed in second.body, second.body
    assert second.delta["differences"] == [
        {"kind": "number", "said": [["Alpha Wire", "3,000"], ["Beta Daily", "5,000"]]}
    ]

    third = run(watch)
    assert "Sources now differ" not in third.body, "a difference already reported is no change"
