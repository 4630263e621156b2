"""Path confinement and Hono path building: every escape form is refused by name."""

import httpx
import pytest

from catalog.models import Platform, Route
from fetching.paths import (
    RoutePathRejected,
    path_build,
    path_confine,
    path_normalise,
    route_for_path,
    route_template_lookup,
    template_compile,
    template_parameters,
    template_values,
    url_for_path,
)

pytestmark = pytest.mark.django_db

ESCAPES = [
    ("", "empty"),
    ("test/1", "not_absolute"),
    ("//evil.example/x", "scheme_relative"),
    ("/\\evil.example/x", "scheme_relative"),
    ("http://evil.example/test/1", "absolute_url"),
    ("https:/test/1", "absolute_url"),
    ("javascript:alert(1)", "absolute_url"),
    ("/user@evil.example/test/1", "at_sign"),
    ("/%40evil.example/test/1", "at_sign"),
    ("/%2540evil.example/test/1", "at_sign"),
    ("/test%40evil.example/1", "at_sign"),
    ("//user@evil.example/test/1", "scheme_relative"),
    ("/test/@evil.example%2F..%2Fx", "dot_segment"),
    ("/test/a@b/%2e%2e/x", "dot_segment"),
    ("/test/a@b?x=1", "query"),
    ("/test/..", "dot_segment"),
    ("/test/../rsshub/routes", "dot_segment"),
    ("/test/./1", "dot_segment"),
    ("/test/%2e%2e/x", "dot_segment"),
    ("/test/%2E%2E/x", "dot_segment"),
    ("/test/.%2e/x", "dot_segment"),
    ("/test/%252e%252e/x", "dot_segment"),
    ("/test/%25252e%25252e/x", "dot_segment"),
    ("/test/a%2F..%2Fb", "dot_segment"),
    ("/test/a\\b", "backslash"),
    ("/test/a%5cb", "backslash"),
    ("/test/a%255cb", "backslash"),
    ("/test/a\rb", "control_character"),
    ("/test/a\nb", "control_character"),
    ("/test/a\x00b", "control_character"),
    ("/test/a%0d%0aSet-Cookie:x", "control_character"),
    ("/test/a%00", "control_character"),
    ("/test/a%2500", "control_character"),
    ("/test/a\u2028b", "control_character"),
    ("/test/1?format=json", "query"),
    ("/test/1?key=stolen", "query"),
    ("/test/1#top", "fragment"),
    ("/test//1", "empty_segment"),
    ("/test/%zz", "bad_escape"),
    ("/test/%ff", "bad_escape"),
    ("/test/" + "a" * 1000, "too_long"),
]


@pytest.mark.parametrize(("path", "reason"), ESCAPES)
def test_it_refuses_each_escape_by_name(path, reason):
    with pytest.raises(RoutePathRejected) as refused:
        path_confine(path)
    assert refused.value.reason == reason


def test_it_refuses_rsshub_utility_routes():
    with pytest.raises(RoutePathRejected) as refused:
        path_confine("/rsshub/transform/html/https%3A%2F%2Fexample.com/item=a")
    assert refused.value.reason == "utility_route"


def test_it_refuses_an_unknown_namespace():
    with pytest.raises(RoutePathRejected) as refused:
        path_confine("/no-such-platform/feed")
    assert refused.value.reason == "unknown_namespace"


def test_it_refuses_a_disabled_namespace_unless_staff_probe():
    Platform.objects.filter(namespace="36kr").update(enabled=False)
    with pytest.raises(RoutePathRejected) as refused:
        path_confine("/36kr/newsflashes")
    assert refused.value.reason == "disabled_namespace"
    assert path_confine("/36kr/newsflashes", allow_disabled=True) == "/36kr/newsflashes"


def test_it_refuses_a_namespace_removed_upstream():
    Platform.objects.filter(namespace="36kr").update(upstream_state="removed")
    with pytest.raises(RoutePathRejected) as refused:
        path_confine("/36kr/newsflashes")
    assert refused.value.reason == "disabled_namespace"


def test_it_keeps_a_good_path_and_encodes_each_segment_once():
    assert path_confine("/test/1") == "/test/1"
    assert path_confine("/36kr/search/articles/麒麟 9050") == (
        "/36kr/search/articles/%E9%BA%92%E9%BA%9F%209050"
    )
    # Already encoded: the same canonical form, not encoded twice.
    assert path_confine("/36kr/search/articles/%E9%BA%92%E9%BA%9F%209050") == (
        "/36kr/search/articles/%E9%BA%92%E9%BA%9F%209050"
    )
    assert path_confine("/test/1/") == "/test/1"
    assert path_confine("/test/a%2Fb") == "/test/a%2Fb"  # an encoded / stays data


def test_it_finds_nested_namespaces():
    assert path_confine("/gov/ah/kjt") == "/gov/ah/kjt"


@pytest.mark.parametrize(
    ("path", "canonical"),
    [
        ("/test/Gargron@mastodon.social/statuses", "/test/Gargron@mastodon.social/statuses"),
        ("/test/Gargron%40mastodon.social", "/test/Gargron@mastodon.social"),
        ("/test/@vue%2Fcore", "/test/@vue%2Fcore"),
        ("/test/@name", "/test/@name"),
    ],
)
def test_it_keeps_an_at_sign_inside_a_parameter_segment(path, canonical):
    assert path_confine(path) == canonical


@pytest.mark.parametrize(
    "path", ["/test/user@evil.example", "/test/a:b@evil.example/x", "/test/@evil.example:80"]
)
def test_an_at_sign_in_a_segment_never_moves_the_host(path):
    url = url_for_path("http://127.0.0.1:1200", path_confine(path))
    parsed = httpx.URL(url)
    assert (parsed.host, parsed.port, parsed.userinfo) == ("127.0.0.1", 1200, b"")
    assert url_for_path("https://hub.example/rss/", path_confine(path)).startswith(
        "https://hub.example/rss/test/"
    )


def test_normalise_is_idempotent():
    once = path_normalise("/test/100%25 sure/C#".replace("#", "%23"))
    assert path_normalise(once) == once


def test_the_final_url_must_stay_on_the_rsshub_origin():
    assert url_for_path("http://127.0.0.1:1200", "/test/1") == "http://127.0.0.1:1200/test/1"
    assert url_for_path("https://hub.example/rss/", "/test/1") == "https://hub.example/rss/test/1"
    with pytest.raises(RoutePathRejected) as refused:
        url_for_path("http://127.0.0.1:1200", "@evil.example/x")
    assert refused.value.reason == "origin_mismatch"
    with pytest.raises(RoutePathRejected):
        url_for_path("http://127.0.0.1:1200", ":80/x")


# --- building from templates --------------------------------------------------------------------

KR36 = "/36kr/:category/:subCategory?/:keyword?"


def test_it_builds_a_path_with_a_chinese_keyword():
    path = path_build(KR36, {"category": "search", "subCategory": "articles", "keyword": "华为"})
    assert path == "/36kr/search/articles/%E5%8D%8E%E4%B8%BA"


def test_it_drops_trailing_optionals():
    assert path_build(KR36, {"category": "newsflashes"}) == "/36kr/newsflashes"
    assert path_build(KR36, {"category": "newsflashes", "subCategory": ""}) == "/36kr/newsflashes"


@pytest.mark.parametrize(
    ("template", "params", "reason"),
    [
        (KR36, {}, "missing_parameter"),
        (KR36, {"category": "search", "keyword": "x"}, "parameter_gap"),
        (KR36, {"category": "news", "colour": "red"}, "unknown_parameter"),
        ("/test/:id{\\d+}", {"id": "12a"}, "parameter_mismatch"),
        (KR36, {"category": ".."}, "dot_segment"),
        (KR36, {"category": "a@b/.."}, "dot_segment"),
        (KR36, {"category": "a\nb"}, "control_character"),
        ("/81/81rc/:category{.+}?", {"category": "a/../b"}, "dot_segment"),
    ],
)
def test_it_refuses_bad_parameters(template, params, reason):
    with pytest.raises(RoutePathRejected) as refused:
        path_build(template, params)
    assert refused.value.reason == reason


def test_it_enforces_regex_constraints():
    assert path_build("/test/:id{\\d+}", {"id": 42}) == "/test/42"


def test_a_slash_spanning_parameter_keeps_its_slashes():
    path = path_build("/81/81rc/:category{.+}?", {"category": "news/今日"})
    assert path == "/81/81rc/news/%E4%BB%8A%E6%97%A5"


def test_a_plain_parameter_encodes_its_slash():
    assert path_build(KR36, {"category": "a/b"}) == "/36kr/a%2Fb"


def test_a_wildcard_takes_the_rest():
    assert path_build("/nikkei/cn/*", {"*": "news/a b"}) == "/nikkei/cn/news/a%20b"


# --- matching concrete paths to catalog routes --------------------------------------------------


def test_a_static_segment_beats_a_parameter():
    match = route_for_path("/36kr/hot-list")
    assert match.template == "/36kr/hot-list/:category?"


def test_it_matches_parameters_and_optionals():
    assert route_for_path("/36kr/newsflashes").template == KR36
    assert route_for_path("/36kr/search/articles/%E5%8D%8E%E4%B8%BA").template == KR36
    assert route_for_path("/test/1").template == "/test/:id/:params?"


def test_it_finds_no_route_for_too_many_segments():
    assert route_for_path("/test/a/b/c/d") is None


def test_an_enabled_route_beats_a_disabled_one():
    Route.objects.filter(path="/36kr/hot-list/:category?").update(enabled=False)
    assert route_for_path("/36kr/hot-list").template == KR36


def test_it_looks_up_the_route_rsshub_names():
    found = route_template_lookup("/36kr/hot-list/:category?")
    assert found.route_id == Route.objects.get(path="/36kr/hot-list/:category?").id
    assert route_template_lookup("/nope/:x") is None


# --- the last checks before a request -----------------------------------------------------------


@pytest.mark.parametrize(
    "canonical", ["/../admin", "/%2e%2e/admin", "/test/%2E./x", "/./test/1", "/test/.."]
)
def test_a_url_that_would_leave_the_base_path_is_refused(canonical):
    """``url_for_path`` gets canonical paths, but it is the last check: a dot segment would let
    the HTTP client (``/rss/../admin`` goes out as ``/admin``) or the server leave ``/rss/``."""
    with pytest.raises(RoutePathRejected) as refused:
        url_for_path("https://hub.example/rss/", canonical)
    assert (refused.value.reason, refused.value.detail) == (
        "origin_mismatch",
        "the URL leaves the RSSHub base path",
    )


def test_a_base_url_with_an_unreadable_port_is_not_our_origin():
    with pytest.raises(RoutePathRejected) as refused:
        url_for_path("http://127.0.0.1:port", "/test/1")
    assert refused.value.reason == "origin_mismatch"


@pytest.mark.parametrize("path", [None, 42, b"/test/1", ["/test/1"]])
def test_a_path_that_is_not_text_is_refused(path):
    with pytest.raises(RoutePathRejected) as refused:
        path_normalise(path)
    assert refused.value.reason == "empty"


@pytest.mark.parametrize(
    ("template", "params", "reason"),
    [
        ("test/:id", {"id": "1"}, "bad_template"),  # no leading slash
        ("/test/:id{[}", {"id": "1"}, "bad_template"),  # a regex that does not compile
        ("/test/:id?/literal", {}, "parameter_gap"),  # a skipped optional before a literal
    ],
)
def test_a_broken_template_is_refused_by_name(template, params, reason):
    with pytest.raises(RoutePathRejected) as refused:
        path_build(template, params)
    assert refused.value.reason == reason


def test_a_template_that_cannot_compile_matches_nothing():
    assert template_compile(1, "no-slash/:id", True) is None
    assert template_compile(2, "/test/:id{(}", True) is None
    assert template_compile(3, "/test/*", True).pattern.fullmatch("/test/a/b c")


def test_template_parameters_lists_each_in_path_order():
    assert template_parameters("/test/:id{\\d+}/:params?") == [
        ("id", "\\d+", False),
        ("params", "", True),
    ]


def test_template_values_reads_parameters_and_gives_up_on_a_broken_regex():
    assert template_values(KR36, "/36kr/search/articles/华为") == {
        "category": "search",
        "subCategory": "articles",
        "keyword": "华为",
    }
    assert template_values("/nikkei/cn/*", "/nikkei/cn/news/a") == {"*": "news/a"}
    assert template_values(KR36, "/other/x") == {}
    assert template_values("/test/:id{(}", "/test/1") == {}


def test_no_route_answers_for_an_unknown_namespace_or_a_relative_template():
    assert route_for_path("/no-such-namespace/x") is None
    assert route_template_lookup("36kr/hot-list/:category?") is None
