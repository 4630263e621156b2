"""Routes the instance cannot read until staff set it up, offline, against the stand-in
RSSHub: a question that only such a route fits reads nothing else and is told the source needs
setting up; one that a readable route fits reads it; a route the instance refused for a missing
configuration comes after one that works."""

import pytest
from django.utils import translation

from briefs.models import BriefOutcome, OutcomeReason
from catalog.models import Platform, Route
from catalog.search_index import search_index_invalidate
from fetching.models import Outcome
from fetching.paths import catalog_cache_clear
from tests.agent.conftest import brief_run, feed, fetched, steps_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world", "offline")]


def trending_route(**fields) -> Route:
    """Alpha Wire's trending list, which needs a configuration variable."""
    defaults = {
        "enabled": False,
        "require_config": True,
        "config_variables": ["ALPHA_TOKEN"],
        "import_disabled_reason": "needs config ALPHA_TOKEN",
    }
    route = Route.objects.create(
        platform=Platform.objects.get(namespace="alpha"),
        key="/trending",
        path="/alpha/trending",
        name="Trending",
        example="/alpha/trending",
        **(defaults | fields),
    )
    search_index_invalidate()
    catalog_cache_clear()
    return route


def test_a_question_only_an_unset_route_fits_is_told_it_needs_setting_up(run_owner, stub_rsshub):
    trending_route()
    stub_rsshub.route("/alpha/flash", feed("Chip prices fall"))

    brief = brief_run(run_owner, "What is trending on Alpha Wire?")

    assert fetched(stub_rsshub) == []  # no other route read in its place
    assert (brief.outcome, brief.outcome_reason) == (
        BriefOutcome.NO_DATA,
        OutcomeReason.UNREACHABLE,
    )
    assert "Alpha Wire (`/alpha/trending`), needs setting up by staff" in brief.body
    router = steps_of(brief, "router")[-1]
    assert router["reason"] == "the route that fits, /alpha/trending, needs setting up by staff"


def test_the_setup_text_reads_in_chinese_for_a_chinese_question(run_owner, stub_rsshub):
    trending_route()

    with translation.override("zh-hans"):
        brief = brief_run(run_owner, "阿尔法快讯 的 trending")

    assert fetched(stub_rsshub) == []
    assert "阿尔法快讯" in brief.question
    assert "需要管理员在本服务的 RSSHub 上配置后才能读取" in brief.body, brief.body


def test_a_readable_route_that_fits_is_read_instead(run_owner, stub_rsshub):
    trending_route()
    stub_rsshub.route("/alpha/flash", feed("Chip prices fall", "Port strike ends"))

    brief = brief_run(run_owner, "Alpha Wire flash news")

    assert fetched(stub_rsshub) == ["/alpha/flash"]
    assert brief.outcome == BriefOutcome.ANSWERED


def test_a_route_refused_for_missing_config_comes_after_one_that_works(
    run_owner, stub_rsshub, world
):
    flash = world["/alpha/flash"]
    flash.last_error_class, flash.consecutive_failures = Outcome.NEEDS_CONFIG, 1
    flash.save()
    search_index_invalidate()
    stub_rsshub.route("/alpha/stories", feed("Harbour reopens"))

    brief = brief_run(run_owner, "Alpha Wire news")

    assert fetched(stub_rsshub)[0] != "/alpha/flash"
    assert brief.outcome == BriefOutcome.ANSWERED


def waiting_platform() -> None:
    """Gallery Prime, whose routes the import all left disabled (one nsfw, one for a browser)."""
    platform = Platform.objects.create(namespace="galleryprime", name="Gallery Prime", aliases=[])
    for key, name, reason in (
        ("/user/:id", "User Activity", "nsfw"),
        ("/user/bookmarks/:id", "User Bookmark", "nsfw"),
        ("/ranking/:mode", "Rankings", "needs a browser (Puppeteer)"),
    ):
        Route.objects.create(
            platform=platform, key=key, path=f"/galleryprime{key}", name=name,
            example=f"/galleryprime{key.replace(':id', '11').replace(':mode', 'day')}",
            parameters={"id": "User id"} if ":id" in key else {"mode": "Mode"},
            enabled=False, import_disabled_reason=reason,
        )  # fmt: skip
    search_index_invalidate()
    catalog_cache_clear()


def test_a_platform_named_whose_routes_all_wait_ends_needing_setup(run_owner, stub_rsshub):
    waiting_platform()
    stub_rsshub.route("/alpha/flash", feed("Gallery user 212801 news"))

    brief = brief_run(run_owner, "Gallery Prime user 212801 new works")

    assert fetched(stub_rsshub) == []  # no other platform read in its place
    [platform] = [s for s in steps_of(brief, "choice") if s.get("node") == "platform"]
    assert platform["chosen"] == ["galleryprime"], platform
    router = steps_of(brief, "router")[-1]
    assert (
        router["reason"] == "the route that fits, /galleryprime/user/:id, needs setting up by staff"
    )


def test_a_platform_staff_disabled_is_not_chosen_for_its_name(run_owner, stub_rsshub):
    waiting_platform()
    Platform.objects.filter(namespace="galleryprime").update(enabled=False)
    search_index_invalidate()

    brief = brief_run(run_owner, "Gallery Prime user 212801 new works")

    assert "galleryprime" not in [
        c for s in steps_of(brief, "platform") for c in s.get("chosen", [])
    ]


def echo_platform() -> None:
    """Echo Social: a user's bookmarks can be read; the user's own timeline needs a browser."""
    platform = Platform.objects.create(namespace="echo", name="Echo Social", aliases=[])
    for key, name, waiting in (
        ("/bookmarks/:uid", "User Bookmarks", False),
        ("/user/:uid", "User timeline", True),
    ):
        Route.objects.create(
            platform=platform, key=key, path=f"/echo{key}", name=name,
            example=f"/echo{key.replace(':uid', '1195230310')}", parameters={"uid": "User id"},
            enabled=not waiting, require_browser=waiting,
            import_disabled_reason="needs a browser (Puppeteer)" if waiting else "",
        )  # fmt: skip
    search_index_invalidate()
    catalog_cache_clear()


def test_a_subjects_plain_feed_waiting_beats_a_narrower_one_read(run_owner, stub_rsshub):
    echo_platform()
    stub_rsshub.route("/echo/bookmarks/2803301701", feed("Saved for later"))

    brief = brief_run(run_owner, "What did Echo Social user 2803301701 post lately?")

    assert fetched(stub_rsshub) == []  # their bookmarks are not their posts
    router = steps_of(brief, "router")[-1]
    assert router["reason"] == "the route that fits, /echo/user/:uid, needs setting up by staff"


def test_the_narrower_feed_asked_for_is_read(run_owner, stub_rsshub):
    echo_platform()
    stub_rsshub.route("/echo/bookmarks/2803301701", feed("Saved for later"))

    brief_run(run_owner, "Echo Social user 2803301701 bookmarks")

    assert fetched(stub_rsshub) == ["/echo/bookmarks/2803301701"]
