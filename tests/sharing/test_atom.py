"""The Atom builder and its response: feedparser reads it cleanly, conditional requests get a
304, and hostile brief text yields well-formed XML with no script in it."""

from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from xml.etree import ElementTree

import feedparser
import pytest
from django.test import RequestFactory
from django.utils import timezone
from django.utils.http import http_date

from briefs.models import Brief, BriefStatus
from sharing.atom import (
    ANSWER_MAX_CHARS,
    ATOM_CONTENT_TYPE,
    FEED_ENTRIES_MAX,
    atom_response,
    feed_tag_uri,
    xml_text,
)
from tests.brief_examples import ITEM_URL, finished_brief, make_brief

pytestmark = pytest.mark.django_db

A = "{http://www.w3.org/2005/Atom}"
FEED_ID = "tag:testserver,2026-01-01:feed/test"
HOSTILE = "<script>alert(1)</script>\x00\x0b\x1b\x7f\ud800\ufffe<img src=x onerror=alert(2)>"


def get(headers: dict | None = None):
    return RequestFactory().get("/feeds/x/briefs.atom", headers=headers or {})


def respond(briefs, request=None, **kwargs):
    values = {"title": "My briefs", "feed_id": FEED_ID, "self_url": "/feeds/x/briefs.atom"}
    return atom_response(request or get(), briefs, **{**values, **kwargs})


def parsed(response):
    result = feedparser.parse(
        response.content, response_headers={"content-type": response["Content-Type"]}
    )
    assert result.bozo == 0, result.get("bozo_exception")
    return result


class TagCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def html_tags(html: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """Every start tag of ``html`` with its attributes, as a browser's tokenizer sees them."""
    collector = TagCollector()
    collector.feed(html)
    collector.close()
    return collector.tags


def xml_root(response) -> ElementTree.Element:
    """The document through a strict XML parser: any unescaped or invalid character fails."""
    return ElementTree.fromstring(response.content)


def test_it_is_an_atom_feed_feedparser_reads_without_complaint(owner):
    old = finished_brief(owner, question="Older question", created_at=timezone.now() - timedelta(1))
    new = finished_brief(owner, question="Newer question", outcome="answered")
    response = respond(Brief.objects.filter(owner=owner))
    assert response.status_code == 200
    assert response["Content-Type"] == ATOM_CONTENT_TYPE
    feed = parsed(response)
    assert feed.version == "atom10"
    assert feed.feed.id == FEED_ID
    assert feed.feed.title == "My briefs"
    assert feed.feed.links[0].href == "http://testserver/feeds/x/briefs.atom"
    assert [e.title for e in feed.entries] == ["Newer question", "Older question"]
    entry = feed.entries[0]
    assert entry.link == f"http://testserver/briefs/{new.pk}/"
    assert entry.id.startswith("tag:testserver,") and entry.id.endswith(f":brief/{new.pk}")
    assert entry.author == "RSSHub Agent"
    assert entry.published_parsed and entry.updated_parsed
    assert entry.tags[0].term == "answered"
    assert "tags" not in feed.entries[1]  # no outcome, no category
    html = entry.content[0].value
    assert f'href="{ITEM_URL}"' in html  # the [1] citation and the sources list link the item
    assert "Title one" in html and "Sources" in html
    assert feed.entries[1].id.endswith(f":brief/{old.pk}")


def test_it_keeps_entry_ids_when_the_feed_moves(owner):
    brief = finished_brief(owner)
    first = parsed(respond([brief], self_url="/feeds/one/briefs.atom"))
    second = parsed(respond([brief], self_url="/feeds/two/briefs.atom", title="Renamed"))
    assert first.entries[0].id == second.entries[0].id


def test_its_etag_gives_a_304_and_a_changed_feed_a_200(owner):
    brief = finished_brief(owner)
    first = respond([brief])
    etag = first["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/")  # strong
    again = respond([brief], request=get({"If-None-Match": etag}))
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    Brief.objects.filter(pk=brief.pk).update(body="A different answer.")
    brief.refresh_from_db()
    changed = respond([brief], request=get({"If-None-Match": etag}))
    assert changed.status_code == 200
    assert changed["ETag"] != etag


def test_its_last_modified_gives_a_304_and_an_older_date_a_200(owner):
    finished = datetime(2026, 11, 2, 9, 30, 15, 123456, tzinfo=UTC)
    brief = finished_brief(owner, finished_at=finished)
    first = respond([brief])
    assert first["Last-Modified"] == http_date(finished.replace(microsecond=0).timestamp())
    same = respond([brief], request=get({"If-Modified-Since": first["Last-Modified"]}))
    assert same.status_code == 304
    earlier = http_date((finished - timedelta(seconds=1)).timestamp())
    assert respond([brief], request=get({"If-Modified-Since": earlier})).status_code == 200


def test_if_none_match_wins_over_if_modified_since(owner):
    brief = finished_brief(owner)
    first = respond([brief])
    headers = {"If-None-Match": '"stale"', "If-Modified-Since": first["Last-Modified"]}
    assert respond([brief], request=get(headers)).status_code == 200


def test_it_tells_caches_to_keep_nothing_shared(owner):
    response = respond([finished_brief(owner)])
    assert "private" in response["Cache-Control"] and "no-cache" in response["Cache-Control"]
    assert response["X-Robots-Tag"] == "noindex, nofollow"


def hostile_brief(owner) -> Brief:
    """In memory: PostgreSQL refuses NUL and lone surrogates, but a feed may still be given
    briefs read from elsewhere (SQLite keeps both)."""
    now = timezone.now()
    return Brief(
        pk=4242,
        owner=owner,
        status=BriefStatus.SUCCEEDED,
        created_at=now,
        finished_at=now,
        question=HOSTILE,
        body=f"{HOSTILE}\n\n[link](javascript:alert(3)) <a href='javascript:x'>a</a> [1] [9]",
        citations=[
            {"n": 1, "title": HOSTILE, "link": "javascript:alert(4)", "source": HOSTILE},
            {"n": 2, "title": "ok", "link": 'https://e.example/"onmouseover=alert(5)'},
            "not a citation",
        ],
    )


def test_hostile_brief_text_gives_valid_xml_and_no_script(owner):
    response = respond([hostile_brief(owner)], title=HOSTILE)
    root = xml_root(response)
    feed = parsed(response)
    title = root.find(f"{A}entry/{A}title").text
    assert title == "<script>alert(1)</script><img src=x onerror=alert(2)>"  # text, not markup
    content = root.find(f"{A}entry/{A}content").text
    tags = html_tags(content)
    assert {name for name, _ in tags} <= {"p", "sup", "h3", "ol", "li"}
    assert all(not attr.startswith("on") for _, attrs in tags for attr, _ in attrs)
    assert "\x00" not in content and "\x0b" not in content
    assert "&lt;script&gt;" in content  # the answer's HTML shown as text
    assert feed.feed.title == title


def test_hostile_text_stored_in_the_database_gives_valid_xml(owner):
    stored = "<b>bold</b>\x0b\x1b\x7f & ]]> \u0085 end"
    brief = finished_brief(owner, question=stored, body=stored, error=stored)
    response = respond(Brief.objects.filter(pk=brief.pk))
    content = xml_root(response).find(f"{A}entry/{A}content").text
    assert "&lt;b&gt;bold&lt;/b&gt;" in content and "]]&gt;" in content
    assert parsed(response).entries[0].title == "<b>bold</b> & ]]>  end"


@pytest.mark.parametrize("text", ["\x00", "\x0b\x0c", "\ud83d", "\uffff", "\x85", "\x9f"])
def test_xml_text_drops_what_xml_cannot_carry(text):
    kept = xml_text(f"a{text}z")
    assert kept.startswith("a") and kept.endswith("z")
    ElementTree.fromstring(f"<t>{kept}</t>".encode())


def test_xml_text_keeps_ordinary_text():
    text = "Tab\tline\nreturn\r 中文 emoji 🎉 \u2028 é"
    assert xml_text(text) == text


def test_a_huge_answer_is_cut_with_a_link_to_the_whole_brief(owner):
    brief = finished_brief(owner, body="word " * 400_000)
    response = respond([brief])
    content = xml_root(response).find(f"{A}entry/{A}content").text
    assert len(content) < ANSWER_MAX_CHARS * 2
    assert "The answer is cut here" in content
    assert f"http://testserver/briefs/{brief.pk}/" in content


def test_it_holds_at_most_the_cap_and_reads_one_query(owner, django_assert_num_queries):
    for n in range(FEED_ENTRIES_MAX + 5):
        finished_brief(owner, question=f"Question {n}")
    with django_assert_num_queries(1):
        response = respond(Brief.objects.filter(owner=owner))
    assert len(parsed(response).entries) == FEED_ENTRIES_MAX


def test_an_empty_feed_is_valid_and_takes_its_floor(owner):
    floor = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    feed = parsed(respond([], updated_floor=floor))
    assert feed.entries == []
    assert feed.feed.updated == "2026-03-04T05:06:07Z"
    assert parsed(respond([])).feed.updated == "1970-01-01T00:00:00Z"


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        (
            {"status": BriefStatus.FAILED, "body": "", "error": "RSSHub <down>"},
            "RSSHub &lt;down&gt;",
        ),
        ({"status": BriefStatus.CANCELLED, "body": ""}, "This brief was cancelled"),
        ({"status": BriefStatus.RUNNING, "body": ""}, "still being written"),
        ({"status": BriefStatus.SUCCEEDED, "body": ""}, "No answer was written."),
    ],
)
def test_a_brief_without_an_answer_says_why(owner, fields, says):
    brief = make_brief(owner, **fields)
    content = xml_root(respond([brief])).find(f"{A}entry/{A}content").text
    assert says in content


def test_brief_url_and_feed_tag_uri(owner, settings):
    settings.ALLOWED_HOSTS = ["feeds.example.org"]
    brief = finished_brief(owner)
    request = RequestFactory().get("/", HTTP_HOST="feeds.example.org:8443")
    feed = parsed(respond([brief], request=request, brief_url=lambda b: f"/s/abc{b.pk}"))
    assert feed.entries[0].link == f"http://feeds.example.org:8443/s/abc{brief.pk}"
    assert feed.entries[0].id.startswith("tag:feeds.example.org,")
    since = datetime(2025, 12, 31, 23, 0, tzinfo=UTC)
    assert feed_tag_uri(request, since=since, name="watch/7") == (
        "tag:feeds.example.org,2025-12-31:watch/7"
    )
