"""Rendering a brief: hostile model output and hostile item titles never become live HTML, and
the only links are ``[n]`` citations to the cited items' http(s) URLs."""

import re
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from briefs.markdown import brief_html, brief_markdown_export, citation_href, citations_read

ITEM_URL = "https://news.example.com/story/1?a=1&b=2"


def cited(**overrides) -> list:
    entry = {
        "n": 1,
        "item_id": 7,
        "title": "Story one",
        "link": ITEM_URL,
        "path": "/test/1",
        "source": "RSSHub Test",
        "published_at": "2026-11-01T08:30:00+00:00",
    }
    return citations_read([{**entry, **overrides}])


class Elements(HTMLParser):
    """Every start tag with its attributes, as a browser's parser would see them."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def links(html: str) -> list[str]:
    return [attrs.get("href") for tag, attrs in Elements(html).tags if tag == "a"]


def test_it_links_a_citation_to_its_item():
    html = brief_html("Rates rose [1].", cited())
    assert links(html) == [ITEM_URL]
    anchor = next(attrs for tag, attrs in Elements(html).tags if tag == "a")
    assert anchor["rel"] == "noopener noreferrer nofollow"
    assert "Story one · RSSHub Test" in anchor["title"], "the tooltip names title and source"
    assert ">[1]</a>" in html


def test_it_leaves_an_uncited_number_as_text():
    html = brief_html("Something [2] and [1].", cited())
    assert links(html) == [ITEM_URL]
    assert "[2]" in html


def test_an_escaped_bracket_is_not_a_citation():
    assert links(brief_html(r"Literally \[1\] here.", cited())) == []


def test_it_does_not_link_a_citation_whose_item_url_is_not_http():
    for bad in ("javascript:alert(1)", "data:text/html,<b>x</b>", "//evil.example", "ftp://x/y"):
        html = brief_html("See [1].", cited(link=bad))
        assert links(html) == [], f"{bad!r} must not become a link"
        assert "[1]" in html


HOSTILE_BODIES = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    '<a href="javascript:alert(1)">click</a>',
    "[click](javascript:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[harmless](https://evil.example/phish)",
    "![pixel](https://evil.example/track.png)",
    "<https://evil.example/auto>",
    "<iframe src='https://evil.example'></iframe>",
    "<form action='https://evil.example'><input name=p><button>go</button></form>",
    '<div onclick="steal()" style="position:fixed">overlay</div>',
    "<svg onload=alert(1)><circle/></svg>",
    '<object data="x.swf"></object><embed src="x">',
    "<style>body{display:none}</style>",
    "[1]: https://evil.example/ref\n\nUses [1] and [x][1].",
    "<!-- comment --> <base href='https://evil.example/'> <meta http-equiv=refresh content=0>",
]


@pytest.mark.parametrize("body", HOSTILE_BODIES)
def test_hostile_model_output_stays_text(body):
    html = brief_html(f"Intro [1].\n\n{body}\n\nOutro.", cited())
    tags = Elements(html).tags
    names = {tag for tag, _ in tags}
    assert names <= {"p", "a", "sup", "br"}, f"unexpected elements {names} from {body!r}"
    for tag, attrs in tags:
        assert not any(a.startswith("on") or a == "style" for a in attrs), (tag, attrs)
    assert links(html) == [ITEM_URL] * len(links(html)), "the only links go to the cited item"
    assert "evil.example/track.png" not in str([a.get("src") for _, a in tags])


def test_hostile_item_title_is_escaped_in_the_tooltip():
    title = '"><script>alert(1)</script><img src=x onerror=alert(2)>'
    html = brief_html("See [1].", cited(title=title))
    tags = Elements(html).tags
    assert {tag for tag, _ in tags} == {"p", "sup", "a"}
    anchor = next(attrs for tag, attrs in tags if tag == "a")
    assert anchor["title"].startswith(title), "the title survives as an attribute value"
    assert "<script>" not in re.sub(r'title="[^"]*"', "", html)


def test_markdown_structure_survives():
    body = "## Heading\n\n- one [1]\n- **two**\n\n`code` and *em*\n\n> quote"
    html = brief_html(body, cited())
    names = [tag for tag, _ in Elements(html).tags]
    for expected in ("h2", "ul", "li", "strong", "code", "em", "blockquote"):
        assert expected in names


def test_citation_href_accepts_only_absolute_http_urls():
    assert citation_href("https://a.example/x?y=1") == "https://a.example/x?y=1"
    assert citation_href("HTTP://A.EXAMPLE/") == "HTTP://A.EXAMPLE/"
    for bad in ("javascript:x", "https://", "/relative", 'https://a.example/"x', "https://a b", 5):
        assert citation_href(bad) == "", bad


def test_citations_read_skips_malformed_entries():
    rows = citations_read([{"n": 2, "title": "b"}, "junk", {"n": "1"}, {"n": 1, "link": 3}, None])
    assert [c.n for c in rows] == [1, 2]
    assert rows[0].url == ""
    assert citations_read("not a list") == []


def test_the_markdown_export_lists_sources():
    text = brief_markdown_export(question="What  now?", body="Body [1].", citations=cited())
    assert text.startswith("# What now?\n")
    assert "## Sources" in text
    assert f"[1] Story one — RSSHub Test — 2026-11-01T08:30:00+00:00 — {ITEM_URL}" in text


def test_an_item_without_a_link_is_cited_by_its_path_and_time():
    citations = cited(link="")

    html = brief_html("Body [1].", citations)
    text = brief_markdown_export(question="q", body="Body [1].", citations=citations)

    assert links(html) == []
    assert re.search(
        r'<sup class="cite" title="Story one · RSSHub Test · [^"]*2026[^"]*">\[1\]', html
    )
    assert "[1] Story one — RSSHub Test — 2026-11-01T08:30:00+00:00 — /test/1" in text


EXPORT_HOSTILE_BODIES = [
    *HOSTILE_BODIES,
    r"\[escaped\](https://evil.example/a) and \\[doubled](https://evil.example/b)",
    "[1](https://evil.example/c) and [2][1] and ![1](https://evil.example/d.png)",
    "Plain https://evil.example/bare and www.evil.example/also",
    "&lt;script&gt; and \\<b>bold</b>",
]


@pytest.mark.parametrize("body", EXPORT_HOSTILE_BODIES)
def test_the_markdown_export_passes_the_same_sanitiser_as_the_page(body):
    # Rendered by a permissive renderer (raw HTML on), the export is as inert as the page.
    renderer = MarkdownIt("commonmark", {"html": True})
    text = brief_markdown_export(question="Q", body=f"Intro [1].\n\n{body}", citations=cited())
    html = renderer.render(text)
    tags = Elements(html).tags
    assert {tag for tag, _ in tags} <= {"h1", "h2", "p", "a", "em", "strong", "br"}, body
    assert all(href == ITEM_URL for href in links(html)), body


def test_the_markdown_export_keeps_citations_and_the_cited_links():
    body = f"Rates rose [1], see {ITEM_URL}."
    text = brief_markdown_export(question="Q", body=body, citations=cited())
    assert f"Rates rose [1], see {ITEM_URL}." in text
