"""A page's address in the question is read on the route RSSHub Radar's rules map it to
(``agent.routes.page``): its site is the platform, the question's other words choose among the
routes of one page, and an address no rule knows leaves the question read as before. Against
the real catalog snapshot, offline."""

import pytest

from agent.summary.answer import topic_subject
from tests.agent.test_agent_route_offline import route, steps

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "question, path",
    [
        ("new issues on https://github.com/vercel/next.js/issues", "/github/issue/vercel/next.js"),
        # the page gives the repository, the question the state it names
        (
            "open pull requests on https://github.com/vercel/next.js",
            "/github/pull/vercel/next.js/open",
        ),
        ("who contributes to github.com/vercel/next.js?", "/github/contributors/vercel/next.js"),
        ("https://space.bilibili.com/2267573 的投稿", "/bilibili/user/video/2267573"),
        ("https://space.bilibili.com/2267573的动态", "/bilibili/user/dynamic/2267573"),
        (
            "https://www.zhihu.com/people/excited-vczh 最近的动态",
            "/zhihu/people/activities/excited-vczh",
        ),
        ("subscribe me to https://www.youtube.com/@mkbhd", "/youtube/user/@mkbhd"),
    ],
)
def test_a_page_address_reads_the_route_its_page_maps_to(question, path):
    chosen, ctx = route(question)

    assert chosen is True and ctx.paths[0][0] == path, ctx.paths
    choice = steps(ctx, "choice")[-1]
    assert choice["reason"] == "the route the page address the question gives maps to"


def test_the_site_of_the_page_is_the_platform_over_a_name_inside_the_address():
    # "next.js" is also a platform's name (Next.js's blog); the page is GitHub's
    chosen, ctx = route("new releases of https://github.com/vercel/next.js")

    assert ctx.platforms == ["github"]
    # the repository's events, of the kind the question names (the page gives no kind)
    assert chosen is True and ctx.paths[0][0] == "/github/repo_event/vercel/next.js/release"
    assert steps(ctx, "choice")[0]["reason"] == "the site whose page address the question gives"


def test_an_address_no_rule_knows_gives_its_last_segment_as_the_form_it_has():
    # no rule maps a video's page; its BV id is still a video's, on the site of the address
    chosen, ctx = route("https://www.bilibili.com/video/BV1GJ411x7h7 的评论")

    assert chosen is True and ctx.paths[0][0] == "/bilibili/video/reply/BV1GJ411x7h7"
    assert all("maps to" not in s["reason"] for s in steps(ctx, "choice"))


def test_the_address_is_no_topic_but_its_subject_is_carried_by_the_path():
    _chosen, ctx = route("anything about rust on https://sspai.com/u/ee0vj778/posts")

    assert ctx.paths[0][0] == "/sspai/author/ee0vj778"
    assert topic_subject(ctx).terms == ("rust",)
