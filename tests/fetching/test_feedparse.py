"""Feed parsing treats feeds as hostile input: tests run through the real parse worker.

Hostile feeds are generated here rather than stored, so each test shows exactly what it sends.
"""

import functools
import io
import os
import signal
import socket
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import feedparser
import pytest

from fetching import feeditems, feedparse, parsing, plaintext
from fetching.models import Outcome
from fetching.parsing import (
    MAX_ITEMS,
    PARSE_MEMORY_BYTES,
    FeedRejected,
    feed_parse,
    feed_parser_pids,
    feed_parser_warm,
)
from tests.feeds import rss_document as rss
from tests.waiting import wait_until

NOW = datetime.now(UTC)


def item(
    *,
    title: str = "Title",
    guid: str | None = "g1",
    link: str | None = "https://example.com/1",
    description: str = "Description",
    pub: str | None = "Mon, 31 Dec 2018 15:59:50 GMT",
    extra: str = "",
) -> str:
    parts = [f"<title>{title}</title>", f"<description>{description}</description>"]
    if link is not None:
        parts.append(f"<link>{link}</link>")
    if guid is not None:
        parts.append(f'<guid isPermaLink="false">{guid}</guid>')
    if pub is not None:
        parts.append(f"<pubDate>{pub}</pubDate>")
    return "<item>" + "".join(parts) + extra + "</item>"


def only_item(body: bytes):
    parsed = feed_parse(body, content_type="application/xml; charset=utf-8")
    assert len(parsed.items) == 1, parsed
    return parsed.items[0]


def rejected(body: bytes, **kwargs) -> FeedRejected:
    with pytest.raises(FeedRejected) as caught:
        feed_parse(body, **kwargs)
    return caught.value


# --- feeds that parse ------------------------------------------------------------------------


def test_it_parses_rss20():
    parsed = feed_parse(rss(item(extra="<author>DIYgod1</author>")), content_type="application/xml")

    assert (parsed.title, parsed.link) == ("Test 1", "https://github.com/DIYgod/RSSHub")
    got = parsed.items[0]
    assert (got.guid, got.title, got.link, got.summary, got.author) == (
        "g1",
        "Title",
        "https://example.com/1",
        "Description",
        "DIYgod1",
    )
    assert got.published_at == datetime(2018, 12, 31, 15, 59, 50, tzinfo=UTC)
    assert len(got.guid_hash) == 64 and int(got.guid_hash, 16) >= 0


def test_it_parses_atom():
    body = (
        b'<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
        b'<title>Atom feed</title><link href="https://example.com/"/><id>urn:feed</id>'
        b'<updated>2024-05-01T10:00:00Z</updated><entry><title type="html">A &amp;amp; B</title>'
        b'<id>urn:entry:1</id><link rel="alternate" href="https://example.com/a"/>'
        b"<updated>2024-05-01T10:00:00+08:00</updated><author><name>Ann</name></author>"
        b'<content type="html">&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt;&lt;/p&gt;</content>'
        b"</entry></feed>"
    )

    parsed = feed_parse(body)

    assert (parsed.title, parsed.link) == ("Atom feed", "https://example.com/")
    got = parsed.items[0]
    assert (got.guid, got.title, got.link, got.summary, got.author) == (
        "urn:entry:1",
        "A & B",
        "https://example.com/a",
        "Hello world",
        "Ann",
    )
    assert got.published_at == datetime(2024, 5, 1, 2, 0, tzinfo=UTC)


def test_it_parses_rdf():
    body = (
        b'<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        b'xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">'
        b'<channel rdf:about="https://example.com/"><title>RDF feed</title>'
        b"<link>https://example.com/</link></channel>"
        b'<item rdf:about="https://example.com/r1"><title>R1</title>'
        b"<link>https://example.com/r1</link><dc:date>2024-01-02T03:04:05Z</dc:date></item>"
        b"</rdf:RDF>"
    )

    parsed = feed_parse(body)

    assert parsed.title == "RDF feed"
    assert [(i.guid, i.title, i.link) for i in parsed.items] == [
        ("https://example.com/r1", "R1", "https://example.com/r1")
    ]
    assert parsed.items[0].published_at == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_it_returns_no_items_for_a_valid_empty_channel():
    # RSSHub's /test/allow_empty: a channel and no items is a feed; the caller calls it empty.
    parsed = feed_parse(rss(channel="<title>Test allow_empty</title>"))

    assert parsed.title == "Test allow_empty"
    assert parsed.items == []


def test_it_accepts_feeds_that_are_not_well_formed():
    # An undeclared &nbsp; makes feedparser "bozo"; RSSHub feeds do this and are fine.
    body = rss(item(description="a&nbsp;b <br> c"))

    assert feedparser.parse(io.BytesIO(body)).bozo
    assert only_item(body).summary == "a b c"  # NBSP is whitespace too: collapsed


def test_it_decodes_the_declared_charset():
    body = (
        '<?xml version="1.0" encoding="gb18030"?><rss version="2.0"><channel><title>新闻</title>'
        "<item><title>今天的新闻</title><guid>g</guid></item></channel></rss>"
    ).encode("gb18030")

    parsed = feed_parse(body, content_type="application/xml; charset=gb18030")

    assert (parsed.title, parsed.items[0].title) == ("新闻", "今天的新闻")


# --- bodies that are not feeds ---------------------------------------------------------------


@pytest.mark.parametrize("body", [b"", b"  \r\n\t "])
def test_it_rejects_an_empty_body(body):
    error = rejected(body)

    assert (error.outcome, error.message) == (Outcome.NOT_A_FEED, "empty body")


@pytest.mark.parametrize(
    "body",
    [
        b"<html><head><title>Welcome to RSSHub!</title><script>x()</script></head><body>"
        b"<h1>Looks like something went wrong</h1><item><title>x</title></item></body></html>",
        b"<!DOCTYPE html>\n<html lang='en'><body><p>503 Service Unavailable</p></body></html>",
    ],
)
def test_it_rejects_html_pages(body):
    error = rejected(body, content_type="text/html; charset=UTF-8")

    assert (error.outcome, error.message) == (
        Outcome.NOT_A_FEED,
        "body is an HTML page, not a feed",
    )


def test_an_html_page_in_an_undeclared_legacy_charset_is_not_a_feed():
    page = "<!DOCTYPE html><html><body>Caf\xe9 cr\xe8me</body></html>".encode("latin-1")

    error = rejected(page, content_type="text/html")

    assert (error.outcome, error.message) == (
        Outcome.NOT_A_FEED,
        "body is an HTML page, not a feed",
    )


@pytest.mark.parametrize(
    "body",
    [
        b'{"error":{"message":"Error test"}}',
        b'{"version":"https://jsonfeed.org/version/1.1","title":"Test 1","items":[{"id":"1"}]}',
        b"[1, 2, 3]",
    ],
)
def test_it_rejects_json(body):
    error = rejected(body, content_type="application/feed+json; charset=UTF-8")

    assert (error.outcome, error.message) == (Outcome.NOT_A_FEED, "body is JSON, not a feed")


def test_it_rejects_plain_text():
    error = rejected(b"Service Unavailable\n", content_type="text/plain")

    assert error.outcome == Outcome.NOT_A_FEED


def test_it_rejects_bodies_over_5_mib_before_parsing():
    error = rejected(rss(" " * (5 * 1024 * 1024)))

    assert error.outcome == Outcome.TOO_LARGE


# --- bodies that point somewhere ---------------------------------------------------------------


def test_it_treats_a_url_body_as_text_and_connects_nowhere():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/feed.xml".encode()

        error = rejected(url)

        assert error.outcome == Outcome.NOT_A_FEED
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected


class _Audit:
    """Records file opens and network calls while ``on`` (audit hooks cannot be removed)."""

    on = False
    events: list = []

    @classmethod
    def hook(cls, event: str, args: tuple) -> None:
        if cls.on and event in ("open", "socket.connect", "urllib.Request", "subprocess.Popen"):
            cls.events.append((event, args[0] if args else None))


sys.addaudithook(_Audit.hook)


@pytest.mark.parametrize("body", [b"/etc/passwd", b"file:///etc/passwd", b"http://127.0.0.1:9/"])
def test_it_opens_no_file_and_no_url_named_by_the_body(body):
    # In-process, so the audit hook sees everything feedparser does with the body.
    feedparse.feed_read(rss())  # lazy imports happen before recording starts
    _Audit.events.clear()
    _Audit.on = True
    try:
        with pytest.raises(feedparse.FeedRefused) as caught:
            feedparse.feed_read(body)
    finally:
        _Audit.on = False

    assert caught.value.outcome == Outcome.NOT_A_FEED
    assert _Audit.events == []


# --- entity declarations -----------------------------------------------------------------------

BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10)).replace(
        "&lol0;", "&lol;"
    )
    + ']><rss version="2.0"><channel><title>&lol9;</title></channel></rss>'
)
QUADRATIC = (
    '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "'
    + "x" * 100_000
    + '">]><rss version="2.0"><channel><title>'
    + "&a;" * 50_000
    + "</title></channel></rss>"
)
EXTERNAL = (
    '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    '<rss version="2.0"><channel><title>&xxe;</title></channel></rss>'
)
PARAMETER = (
    '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/x.dtd">'
    '%remote;]><rss version="2.0"><channel><title>t</title></channel></rss>'
)


UTF16_EXTERNAL = EXTERNAL.replace('"1.0"?>', '"1.0" encoding="utf-16"?>').encode("utf-16")


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(BILLION_LAUGHS.encode(), id="billion-laughs"),
        pytest.param(QUADRATIC.encode(), id="quadratic-300kb"),
        pytest.param(EXTERNAL.encode(), id="external-file"),
        pytest.param(PARAMETER.encode(), id="parameter-entity"),
        pytest.param(EXTERNAL.replace("ENTITY", "eNtItY").encode(), id="mixed-case"),
        pytest.param(UTF16_EXTERNAL, id="utf-16"),
    ],
)
def test_it_refuses_entity_declarations(body):
    error = rejected(body)

    assert error.outcome == Outcome.PARSE_ERROR
    assert "entities" in error.message


def test_it_refuses_entity_declarations_before_parsing(monkeypatch):
    def parse_must_not_run(*args, **kwargs):
        raise AssertionError("feedparser.parse ran on a body declaring entities")

    monkeypatch.setattr(feedparser, "parse", parse_must_not_run)

    with pytest.raises(feedparse.FeedRefused) as caught:
        feedparse.feed_read(QUADRATIC.encode())

    assert caught.value.outcome == Outcome.PARSE_ERROR


def test_it_does_not_load_an_external_dtd(tmp_path):
    dtd = tmp_path / "feed.dtd"
    dtd.write_text('<!ELEMENT rss ANY><!ATTLIST rss secret CDATA "from-the-dtd">')
    body = rss(item(), head=f'<!DOCTYPE rss SYSTEM "file://{dtd}">')

    parsed = feed_parse(body)

    assert [i.title for i in parsed.items] == ["Title"]
    assert "from-the-dtd" not in repr(parsed)


# --- characters --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ref", ["&#xD800;", "&#xdfff;", "&#x110000;", "&#0;", "&#x1;", "&#99999999999999999999;"]
)
def test_it_drops_character_references_to_invalid_characters(ref):
    assert only_item(rss(item(title=f"a{ref}b"))).title == "ab"


def test_it_keeps_valid_character_references():
    assert only_item(rss(item(title="&#65;&#x4e2d;&#x1F600;"))).title == "A中😀"


def test_it_strips_nul_and_control_bytes_from_titles():
    body = rss(item(title="a\x00b\x01c\x1fd")).replace(b"<title>Test 1", b"<title>T\x00 1")

    parsed = feed_parse(body)

    assert (parsed.title, parsed.items[0].title) == ("T 1", "abcd")


def test_it_never_returns_lone_surrogates():
    # A double-escaped reference to a surrogate, which HTML unescaping meets after XML parsing.
    got = only_item(rss(item(title="a&#xD800; b", description="x &amp;#xD800; y")))

    for text in (got.title, got.summary):
        assert not any(0xD800 <= ord(char) <= 0xDFFF for char in text), text


def test_it_refuses_bytes_its_declared_encoding_cannot_decode():
    # A CESU-8 encoded surrogate is no UTF-8: the feed is not parsed in a guessed encoding.
    body = rss(item(title="a@ b")).replace(b"a@ b", b"a\xed\xa0\x80 b")

    error = rejected(body, content_type="application/xml; charset=utf-8")

    assert error.outcome == Outcome.PARSE_ERROR
    assert error.message.startswith("encoding cannot be settled"), error.message


def test_text_clean_strips_surrogates_and_nul():
    assert plaintext.text_clean("a\ud800b\x00c\udfff d\n\te", 100) == "abc d e"


# --- HTML, links, lengths ----------------------------------------------------------------------


def test_it_reduces_titles_to_plain_text():
    got = only_item(
        rss(item(title="&lt;script&gt;alert(1)&lt;/script&gt;Hello &lt;b&gt;you&lt;/b&gt;"))
    )

    assert got.title == "Hello you"


def test_it_keeps_a_cdata_script_title_as_text_without_its_code():
    got = only_item(rss(item(title="<![CDATA[<script>steal()</script>Breaking: a < b]]>")))

    assert got.title == "Breaking: a < b"


def test_it_reduces_summaries_to_plain_text():
    html = (
        "<style>p { color: red }</style><p>First&nbsp;para &amp; more</p><script>evil()</script>"
        '<div>second<br/>line</div>  <img src="x.jpg" onerror="evil()"><noscript>nojs</noscript>'
        "<ul><li>one</li><li>two</li></ul>"
    )

    got = only_item(rss(item(description=f"<![CDATA[{html}]]>")))

    # A reader without scripts shows <noscript>: its text is kept.
    assert got.summary == "First para & more second line nojs one two"


@pytest.mark.parametrize(
    ("link", "kept"),
    [
        ("https://example.com/a?b=1#c", "https://example.com/a?b=1#c"),
        ("  HTTP://Example.com/x  ", "HTTP://Example.com/x"),
        ("javascript:alert(1)", ""),
        ("JaVaScRiPt:alert(1)", ""),
        ("data:text/html;base64,PHNjcmlwdD4=", ""),
        ("file:///etc/passwd", ""),
        # Relative links resolve against the channel's link (see test_feed_keep).
        ("/relative/path", "https://github.com/relative/path"),
        ("//example.com/protocol-relative", "https://example.com/protocol-relative"),
        ("http://", ""),
        ("http://[::1", ""),
        ("https://example.com/" + "a" * 2000, ""),
    ],
)
def test_it_keeps_only_http_links(link, kept):
    assert only_item(rss(item(link=link.replace("&", "&amp;")))).link == kept


def test_it_caps_every_field():
    got = only_item(
        rss(
            item(
                title="t" * 5000,
                guid="g" * 5000,
                description="s" * 10_000,
                extra=f"<author>{'a' * 2000}</author>",
            )
        )
    )

    assert (len(got.title), len(got.guid), len(got.author)) == (1000, 2000, 500)
    assert len(got.summary) == 5000


def test_it_caps_a_long_html_summary_without_parsing_all_of_it():
    got = only_item(rss(item(description=f"<![CDATA[{'<p>word</p>' * 100_000}]]>")))

    assert got.summary == " ".join(["word"] * 1000)[:5000]


def test_it_bounds_a_64kb_author():
    # Raw feedparser spends ~15 s in an email regex on this; the worker cuts authors first. The
    # default deadline applies, so finishing at all means it stayed under PARSE_TIMEOUT_SECONDS.
    got = only_item(rss(item(extra=f"<author>{'a' * 65536}</author>")))

    assert got.author == "a" * 500


def test_it_bounds_many_64kb_authors():
    authors = "".join(
        item(guid=f"g{n}", extra=f"<dc:creator>{'a.' * 32768}</dc:creator>") for n in range(40)
    )
    body = rss(authors).replace(b"<rss ", b'<rss xmlns:dc="http://purl.org/dc/elements/1.1/" ')

    parsed = feed_parse(body)

    assert len(parsed.items) == 40
    assert {len(i.author) for i in parsed.items} == {500}


# --- items: count, duplicates, identity --------------------------------------------------------


def test_it_keeps_the_first_200_of_20000_items_in_document_order():
    body = rss("".join(item(title=f"t{n}", guid=f"g{n}", pub=None) for n in range(20_000)))

    parsed = feed_parse(body)

    assert len(parsed.items) == MAX_ITEMS
    assert [i.guid for i in parsed.items] == [f"g{n}" for n in range(MAX_ITEMS)]


def test_it_keeps_the_first_of_duplicate_guids():
    body = rss(item(title="first", guid="same") + item(title="second", guid="same"))

    assert only_item(body).title == "first"


def test_items_without_guid_or_link_get_stable_distinct_hashes():
    def hashes() -> list[str]:
        entries = [
            item(title="Alpha", guid=None, link=None),
            item(title="Alpha", guid=None, link=None, pub="Tue, 01 Jan 2019 00:00:00 GMT"),
            item(title="Beta", guid=None, link=None),
            item(title="Gamma", guid=None, link="https://example.com/g"),
        ]
        return [i.guid_hash for i in feed_parse(rss("".join(entries))).items]

    first = hashes()

    assert first == hashes()
    assert len(set(first)) == 4


def test_a_guid_and_an_equal_link_hash_differently():
    by_guid = feeditems.item_hash(guid="https://x/1", link="", title="", published=None)
    by_link = feeditems.item_hash(guid="", link="https://x/1", title="", published=None)

    assert by_guid != by_link


def test_it_drops_items_with_nothing_to_identify_them():
    empty = item(title="", guid=None, link=None, pub=None, description="")
    body = rss(empty + item(title="kept", guid="g"))

    assert only_item(body).title == "kept"


# --- dates -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "Mon, 01 Jan 0000 00:00:00 GMT",
        "0000-01-01T00:00:00Z",
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "9999-12-31T23:59:59Z",
        "Sat, 31 Feb 2024 10:00:00 GMT",
        "2024-02-31T10:00:00Z",
        "Mon, 01 Jan 1985 00:00:00 GMT",
        # A fixed id: parallel workers collect at different seconds and must name it alike.
        pytest.param(
            (NOW + timedelta(days=10)).strftime("%a, %d %b %Y %H:%M:%S GMT"), id="ten days ahead"
        ),
        "99999999999999999999",
        "yesterday-ish",
        "",
    ],
)
def test_it_turns_absurd_dates_into_null(raw):
    assert only_item(rss(item(pub=raw))).published_at is None


def test_it_keeps_sane_dates_as_aware_utc():
    got = only_item(rss(item(pub="Wed, 01 May 2024 10:00:00 +0800")))

    assert got.published_at == datetime(2024, 5, 1, 2, 0, tzinfo=UTC)


def test_it_accepts_a_date_slightly_ahead_of_now():
    # Clock skew between us and a source: up to two days ahead is kept.
    ahead = NOW + timedelta(hours=20)

    got = only_item(rss(item(pub=ahead.strftime("%a, %d %b %Y %H:%M:%S GMT"))))

    assert got.published_at == ahead.replace(microsecond=0)


@pytest.mark.parametrize(
    "parsed", [None, "garbage", (2024,), (2024, 13, 1, 0, 0, 0), (2024, 6, 30, 23, 59, 60)]
)
def test_feed_date_never_raises(parsed):
    when = feeditems.feed_date(parsed, "", now=NOW)

    if parsed == (2024, 6, 30, 23, 59, 60):
        assert when == datetime(2024, 6, 30, 23, 59, 59, tzinfo=UTC)  # leap second clamped
    else:
        assert when is None


# --- the worker: deadline, memory, crashes, forks ----------------------------------------------


def slow_body() -> bytes:
    """Valid XML that takes feedparser far longer than a fraction of a second on any machine."""
    return rss(item(description="<b>" * 400_000 + "</b>" * 400_000))


def test_it_times_out_a_slow_parse_and_replaces_the_worker():
    feed_parser_warm()
    before = set(feed_parser_pids())

    error = rejected(slow_body(), timeout=0.2)

    assert error.outcome == Outcome.PARSE_TIMEOUT
    (stuck,) = before - set(feed_parser_pids())
    with pytest.raises(ProcessLookupError):
        os.kill(stuck, 0)  # the stuck worker was killed and reaped ...
    assert only_item(rss(item())).title == "Title"  # ... and a worker answers again


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="needs /proc")
def test_it_parses_under_a_memory_limit():
    feed_parse(rss(item()))
    pid = feed_parser_pids()[0]

    limits = Path(f"/proc/{pid}/limits").read_text().splitlines()

    address_space = next(line for line in limits if line.startswith("Max address space"))
    assert address_space.split()[3:5] == [str(PARSE_MEMORY_BYTES)] * 2


def test_it_reports_memory_exhaustion_as_too_large(monkeypatch):
    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(feedparse, "feed_read", exhausted)

    answer, quit_after = feedparse.request_answer(b"application/xml\n" + rss())

    assert answer == {"refused": ["too_large", "feed needs too much memory to parse"]}
    assert quit_after  # a worker that ran out of memory is replaced


def test_it_reports_a_parser_exception_without_its_details(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("secret internals of the body")

    monkeypatch.setattr(feedparse, "feed_read", broken)

    answer, quit_after = feedparse.request_answer(b"\n" + rss())

    assert answer == {"refused": ["parse_error", "parser failed (ValueError)"]}
    assert not quit_after


def exited(pid: int) -> bool:
    """True once child ``pid`` has exited (left unreaped: the pool reaps its own workers)."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def idle_uses() -> dict:
    with parsing._pool.lock:
        return {worker: worker.uses for worker in parsing._pool.idle}


def parsing_workers(uses_when_idle: dict) -> set:
    """The workers a request was sent to: live, not idle, and used once more than when idle (a
    worker checked out is first polled for life, and one found dead then is replaced, not used)."""
    with parsing._pool.lock:
        handed_out = parsing._pool.live - set(parsing._pool.idle)
    return {w for w in handed_out if w.uses > uses_when_idle.get(w, 0)}


def kill_once_parsing(uses_when_idle: dict) -> None:
    """Kill the worker a parse was sent to, once it was sent (other workers stay alive)."""
    # Polled often: the kill must land while the parse runs, however busy the machine is.
    sent = functools.partial(parsing_workers, uses_when_idle)
    wait_until(sent, what="a worker sent the parse", every=0.001)
    for worker in sent():
        os.kill(worker.pid, signal.SIGKILL)


def test_it_reports_a_worker_that_dies_mid_parse_as_parse_error():
    feed_parser_warm()
    killer = threading.Thread(target=kill_once_parsing, args=(idle_uses(),))
    killer.start()
    try:
        error = rejected(slow_body(), timeout=30)
    finally:
        killer.join()

    assert (error.outcome, error.message) == (Outcome.PARSE_ERROR, "feed parser crashed")


def test_it_replaces_a_worker_that_died_while_idle():
    feed_parser_warm()
    victims = feed_parser_pids()
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    wait_until(lambda: all(map(exited, victims)), what="the killed workers to exit")

    assert only_item(rss(item())).title == "Title"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_process_starts_its_own_worker():
    feed_parser_warm()
    parent_workers = set(feed_parser_pids())

    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        ok = False
        try:
            ok = only_item(rss(item())).title == "Title" and not (
                set(feed_parser_pids()) & parent_workers
            )
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(child, 0)

    assert os.waitstatus_to_exitcode(status) == 0
    assert parent_workers <= set(feed_parser_pids())  # the parent's worker was left alone
    assert only_item(rss(item())).title == "Title"
