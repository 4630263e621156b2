"""Which items a watch has reported before: GUIDs, normalised links, folded titles."""

import pytest

from watches.items import Mark, link_normalise, mark_of, split_known


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://example.com/a/b", "http://example.com/a/b"),
        ("https://Example.COM/a", "https://example.com/a/"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com/a?utm_source=x&utm_medium=rss", "https://example.com/a"),
        ("https://example.com/a?id=3&fbclid=IwAR0", "https://example.com/a?id=3"),
        ("https://item.taobao.com/x?spm=a1z10.1&id=9", "https://item.taobao.com/x?id=9"),
        ("https://example.com/a?b=2&a=1", "https://example.com/a?a=1&b=2"),
        ("https://example.com/a#comments", "https://example.com/a"),
        (
            "https://www.bilibili.com/video/BV1?vd_source=ab&spm_id_from=333",
            "https://www.bilibili.com/video/BV1",
        ),
    ],
)
def test_links_that_differ_only_in_form_or_tracking_are_the_same(a, b):
    assert link_normalise(a) == link_normalise(b) != ""


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://example.com/a", "https://example.com/b"),
        ("https://example.com/a?id=1", "https://example.com/a?id=2"),
        ("https://example.com/A", "https://example.com/a"),  # paths are case-sensitive
        ("https://example.com:8443/a", "https://example.com/a"),
        ("https://a.example.com/x", "https://b.example.com/x"),
    ],
)
def test_links_to_different_things_stay_different(a, b):
    assert link_normalise(a) != link_normalise(b)


@pytest.mark.parametrize(
    "link", ["", "javascript:alert(1)", "ftp://example.com/a", "http://", "http://[::1", "/a"]
)
def test_what_is_not_an_http_link_has_no_key(link):
    assert link_normalise(link) == ""


def mark(title: str, link: str = "", guid: str = "", summary: str = "") -> Mark:
    return mark_of(guid=guid, link=link, title=title, summary=summary, at=None)


KNOWN = [
    mark("Port strike ends after three weeks", "https://wire.example/port", "wire-1"),
    mark("Chip prices fall sharply in October", "https://wire.example/chips", "wire-2"),
]


def test_the_same_items_again_are_nothing_new():
    again = [mark(m.title, f"https://{m.link}", m.guid) for m in KNOWN]
    split = split_known(again, KNOWN, fold=100)
    assert (split.new, split.new_stories, split.repeated_stories) == ((), 0, 2)


def test_one_new_item_is_the_only_new_one():
    current = [*KNOWN, mark("Kirin 9050 benchmark leaks", "https://wire.example/kirin", "wire-3")]
    split = split_known(current, KNOWN, fold=100)
    assert split.new == (2,)
    assert (split.new_stories, split.repeated_stories) == (1, 2)


def test_a_known_guid_under_another_title_and_link_is_known():
    current = [mark("Updated: a different headline", "https://wire.example/other", "wire-1")]
    assert split_known(current, KNOWN, fold=100).new == ()


def test_a_known_link_with_tracking_parameters_is_known():
    current = [mark("Totally new words here", "http://WIRE.example/port/?utm_source=rss", "x-9")]
    assert split_known(current, KNOWN, fold=100).new == ()


def test_the_same_story_from_another_outlet_is_known():
    other = mark("Port strike ends after three weeks, unions say", "https://daily.example/p", "d1")
    assert split_known([other], KNOWN, fold=100).new == ()


def test_two_outlets_telling_one_new_story_are_one_new_item():
    current = [
        mark("Kirin 9050 benchmark leaks online", "https://wire.example/k", "w9"),
        mark("Kirin 9050 benchmark leaks", "https://daily.example/k", "d9"),
        mark("Rain expected in Berlin", "https://daily.example/rain", "d10"),
    ]
    split = split_known(current, KNOWN, fold=100)
    assert split.new == (0, 1, 2)
    assert (split.new_stories, split.repeated_stories) == (2, 0)


def test_folding_reads_only_the_first_known_marks_but_keys_read_all():
    old = [
        mark(f"Filler story number {n} about nothing", f"https://x.example/{n}") for n in range(5)
    ]
    known = [*old, *KNOWN]
    by_title = [mark("Port strike ends after three weeks, unions say", "https://z.example/p")]
    by_link = [mark("Another headline entirely", "https://wire.example/chips/")]
    assert split_known(by_title, known, fold=5).new == (0,)  # beyond the fold window: new
    assert split_known(by_title, known, fold=10).new == ()
    assert split_known(by_link, known, fold=0).new == ()  # links are compared with all


def test_marks_survive_their_json_and_refuse_garbage():
    original = mark("Title", "https://example.com/a", "g", "Summary text")
    assert Mark.from_json(original.as_json()) == original
    assert Mark.from_json("nope") is None
    assert Mark.from_json({"guid": 5, "title": ["x"], "at": 3}) == Mark("", "", "", "", None)
