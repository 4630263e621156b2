"""RSSHub Radar's rules map a page's address to the routes that read it (``fetching.radar``):
addresses read from text, sources matched segment by segment, targets filled and confined.
Against the real catalog snapshot."""

import pytest

from fetching.paths import path_confine
from fetching.radar import page_addresses, radar_hits
from fetching.radar_match import Address, source_match


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "new issues on https://github.com/vercel/next.js/issues.",
            [("github.com", ("vercel", "next.js", "issues"))],
        ),
        ("看看 https://space.bilibili.com/2267573的投稿", [("space.bilibili.com", ("2267573",))]),
        ("github.com/vercel/next.js please", [("github.com", ("vercel", "next.js"))]),
        ("https://WWW.YouTube.com/@mkbhd", [("youtube.com", ("@mkbhd",))]),
        ("https://example.com/a%20b/c?x=1#top", [("example.com", ("a b", "c"))]),
        ("https://example.com", [("example.com", ())]),
    ],
)
def test_a_page_address_is_read_with_its_host_and_decoded_segments(text, expected):
    assert [(a.host, a.segments) for a in page_addresses(text)] == expected


@pytest.mark.parametrize(
    "text",
    [
        "what's new in next.js",  # a name with a dot is no page
        "posts on github.com",  # a host alone names the site, no page of it
        "toots by Gargron@mastodon.social",  # a handle
        "the v1.2.3 release",
    ],
)
def test_a_name_host_or_handle_is_no_page_address(text):
    assert page_addresses(text) == []


def test_at_most_three_addresses_are_read():
    text = " ".join(f"https://example{i}.com/page" for i in range(10))

    assert len(page_addresses(text)) == 3


@pytest.mark.parametrize(
    "source, segments, expected",
    [
        ("example.com/:user/:repo/issues", ("a", "b", "issues"), ({"user": "a", "repo": "b"}, 1)),
        ("example.com/:user/:repo/issues", ("a", "b", "pulls"), None),
        ("example.com/:user/:repo/issues", ("a", "b", "issues", "c"), None),
        ("example.com/news/:id.html", ("news", "42.html"), ({"id": "42"}, 1)),
        ("example.com/list/:page?", ("list",), ({}, 1)),
        ("example.com/docs/*path", ("docs", "a", "b"), ({"path": "a/b"}, 1)),
        ("https://www.example.com/Tag/:tag", ("tag", "x"), ({"tag": "x"}, 1)),
        ("example.com/search?q=:keyword", ("search",), None),  # decided by a query string
        ("example.com/#/user/:id", ("user", "1"), None),  # a single-page site's fragment
        ("other.example.com/:user", ("a",), None),  # another host
        ("example.com/:user/:repo", ("a/b", "c"), None),  # an encoded "/" is no segment break
    ],
)
def test_a_source_matches_segment_by_segment(source, segments, expected):
    assert source_match(source, Address("example.com", segments)) == expected


@pytest.mark.django_db
def test_a_repositorys_issues_page_maps_to_its_issues_only():
    hits = radar_hits("https://github.com/vercel/next.js/issues")

    assert [h.path for h in hits] == ["/github/issue/vercel/next.js"]
    assert dict(hits[0].values) == {"user": "vercel", "repo": "next.js"}


@pytest.mark.django_db
def test_a_repositorys_page_maps_to_every_feed_of_it():
    paths = {h.path for h in radar_hits("github.com/vercel/next.js")}

    assert {"/github/issue/vercel/next.js", "/github/pull/vercel/next.js"} <= paths
    assert all("/vercel/next.js" in p for p in paths), paths
    # the repository's stars need a token the import left unset: a disabled route is no hit
    assert "/github/stars/vercel/next.js" not in paths


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text, path",
    [
        ("https://www.zhihu.com/people/excited-vczh", "/zhihu/people/activities/excited-vczh"),
        ("https://www.youtube.com/@mkbhd", "/youtube/user/@mkbhd"),
        ("https://sspai.com/u/ee0vj778/posts", "/sspai/author/ee0vj778"),
    ],
)
def test_a_page_maps_to_the_route_its_rule_targets(text, path):
    assert path in [h.path for h in radar_hits(text)]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text",
    [
        "https://example.invalid/nothing/here",  # no rule for the host
        "https://github.com/",  # the host's own front page maps to no repository feed
        "https://github.com/" + "a/" * 3000,  # far too deep for any rule
    ],
)
def test_a_page_no_rule_maps_gives_no_hit(text):
    assert [h.path for h in radar_hits(text) if "/issue/" in h.path] == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text",
    [
        "https://github.com/../../admin",
        "https://github.com/%2e%2e/%2e%2e",
        "https://github.com/a%2Fb/c",
        "https://github.com/a%00b/c",
        "https://space.bilibili.com/%0d%0aSet-Cookie:x",
        "https://github.com/(a)/[b]",
    ],
)
def test_a_hostile_address_gives_only_confined_paths(text):
    for hit in radar_hits(text):
        assert path_confine(hit.path) == hit.path
        assert ".." not in hit.path and "\r" not in hit.path and "\x00" not in hit.path
