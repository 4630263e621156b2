"""Ingest keeps what a reader would keep: untitled texts, linkless items, relative links, the text
after odd markup, and entries that share an id but not a link."""

from __future__ import annotations

import pytest

from fetching.feeditems import item_hash, title_from_text
from fetching.models import Item, Outcome
from fetching.parsing import feed_parse
from fetching.plaintext import html_text
from fetching.services import fetch_path_sync
from tests.feeds import RSS_TYPE, rss_document
from tests.httpserver import Reply


def rss(items: str, *, channel_link: str | None = "https://site.example/blog/") -> bytes:
    return rss_document(items, channel="<title>T</title>", link=channel_link)


# --- untitled and linkless items ---------------------------------------------------------------


@pytest.mark.django_db
def test_an_untitled_item_with_text_is_stored_with_a_derived_title(rsshub_at_server):
    text = "Only a description, as RSS 2.0 allows: no title, no link and no guid at all here."
    rsshub_at_server.route(
        "/test/untitled",
        Reply(200, RSS_TYPE, rss(f"<item><description>{text}</description></item>")),
    )

    result = fetch_path_sync("/test/untitled")

    assert result.outcome == Outcome.OK, result
    stored = Item.objects.get()
    assert (stored.title, stored.title_derived) == (
        "Only a description, as RSS 2.0 allows: no title, no link and…",
        True,
    )
    assert (stored.summary, stored.link) == (text, "")


def test_a_titled_item_is_not_marked_derived():
    parsed = feed_parse(rss("<item><title>Real</title><description>Body</description></item>"))

    assert (parsed.items[0].title, parsed.items[0].title_derived) == ("Real", False)


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Short text.", "Short text."),
        (
            "one two three four five six seven eight nine ten eleven twelve thirteen",
            "one two three four five six seven eight nine ten eleven twelve…",
        ),
        ("x" * 200, "x" * 80 + "…"),
        ("今天" * 60, "今天" * 40 + "…"),
        ("a " + "b" * 100, "a…"),
    ],
)
def test_a_derived_title_is_the_first_words(text, title):
    assert title_from_text(text) == title


def test_untitled_items_with_different_texts_are_different_items():
    body = rss(
        "<item><description>First text</description></item>"
        "<item><description>Second text</description></item>"
        "<item><description>First text</description></item>"
    )

    assert [i.summary for i in feed_parse(body).items] == ["First text", "Second text"]


# --- links --------------------------------------------------------------------------------------


ATOM = (
    '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" {base}>'
    '<title>A</title><link rel="alternate" href="https://site.example/home/"/>'
    '<entry xml:base="{entry_base}"><id>urn:e1</id><title>E</title><link href="{link}"/>'
    "</entry></feed>"
)


@pytest.mark.parametrize(
    ("feed", "expected"),
    [
        pytest.param(
            rss("<item><title>a</title><link>/a</link></item>"),
            "https://site.example/a",
            id="root-relative-against-feed-link",
        ),
        pytest.param(
            rss("<item><title>a</title><link>a?x=1</link></item>"),
            "https://site.example/blog/a?x=1",
            id="relative-against-feed-link",
        ),
        pytest.param(
            rss("<item><title>a</title><link>//cdn.example/a</link></item>"),
            "https://cdn.example/a",
            id="scheme-relative",
        ),
        pytest.param(
            rss('<item><title>a</title><guid isPermaLink="true">/p/1</guid></item>'),
            "https://site.example/p/1",
            id="guid-permalink",
        ),
        pytest.param(
            ATOM.format(base="", entry_base="https://base.example/x/", link="y").encode(),
            "https://base.example/x/y",
            id="xml-base-first",
        ),
        pytest.param(
            ATOM.format(
                base='xml:base="https://outer.example/o/"', entry_base="in/", link="y"
            ).encode(),
            "https://outer.example/o/in/y",
            id="nested-xml-base",
        ),
        pytest.param(
            ATOM.format(base="", entry_base="", link="y").encode(),
            "https://site.example/home/y",
            id="atom-feed-link",
        ),
        pytest.param(
            rss("<item><title>a</title><link>javascript:alert(1)</link></item>"),
            "",
            id="javascript",
        ),
        pytest.param(
            rss("<item><title>a</title><link>mailto:a@b.example</link></item>"), "", id="mailto"
        ),
        pytest.param(
            rss("<item><title>a</title><link>https://other.example/z</link></item>"),
            "https://other.example/z",
            id="absolute",
        ),
    ],
)
def test_links_resolve_against_xml_base_then_the_feed_link(feed, expected):
    parsed = feed_parse(feed, url="http://rsshub.internal:1200/test/feed")

    assert parsed.items[0].link == expected


def test_a_guid_is_kept_as_written():
    body = rss('<item><title>a</title><guid isPermaLink="true">/p/1</guid></item>')

    assert feed_parse(body, url="http://rsshub.internal:1200/x").items[0].guid == "/p/1"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("channel_link", "item_link", "expected"),
    [
        (None, "/story/1", "{server}/story/1"),
        (None, "story/2", "{server}/test/story/2"),
        ("/home/", "story/3", "{server}/home/story/3"),
    ],
)
def test_without_an_absolute_feed_link_links_resolve_against_the_fetched_url(
    rsshub_at_server, channel_link, item_link, expected
):
    body = rss(f"<item><title>t</title><link>{item_link}</link></item>", channel_link=channel_link)
    rsshub_at_server.route("/test/relative", Reply(200, RSS_TYPE, body))

    assert fetch_path_sync("/test/relative").outcome == Outcome.OK

    assert Item.objects.get().link == expected.format(server=rsshub_at_server.url)


# --- plain text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "text"),
    [
        ('safe<object classid="clsid:C932"> description', "safe description"),
        ("safe<iframe src=x> description", "safe description"),
        ("a<noscript>b", "ab"),
        ("sa<!-- -- nonwhitespace >fe<script>alert(1);</script>", "safe"),
        ("safe<!--", "safe"),
        ("a<!-- x > y -->b", "ab"),
        ("a<!-->b", "ab"),
        ("<![CDATA[<script></script>]]&gt;", ""),
        ("a<![CDATA[x<b>y</b>]]>z", "axyz"),
        ("a &lt;!-- b --&gt; c", "a b c"),
        ("a &lt;![CDATA[ b ]]&gt; c", "a b c"),
        ("kept<script>dropped", "kept"),
        ("<p>one</p><p>two</p>", "one two"),
    ],
)
def test_plain_text_keeps_the_text_after_odd_markup_and_no_markers(html, text):
    assert html_text(html, 1000) == text


def test_text_between_many_comments_without_a_closer_is_kept():
    # No "-->" anywhere: each comment ends at its ">" (and "-->" is looked for only once).
    assert html_text("x" + "<!-- a >" * 20_000 + "y", 100) == "xy"


# --- entries sharing an id ------------------------------------------------------------------------


def test_entries_that_share_an_id_but_not_a_link_are_kept_apart():
    body = rss(
        "<item><title>a</title><guid>same</guid><link>https://site.example/1</link></item>"
        "<item><title>b</title><guid>same</guid><link>https://site.example/2</link></item>"
        "<item><title>c</title><guid>same</guid><link>https://site.example/1</link></item>"
    )

    items = feed_parse(body).items

    assert [i.title for i in items] == ["a", "b"]
    # The first keeps the identity an id alone gives, so items stored before keep theirs.
    assert items[0].guid_hash == item_hash(guid="same", link="", title="", published=None)
    assert items[1].guid_hash != items[0].guid_hash
