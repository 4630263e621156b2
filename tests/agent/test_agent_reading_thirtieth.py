"""The thirtieth pass of issue 29's reading rules. Against the real catalog snapshot where
a route is named, offline."""

import pytest

from agent.routes.clauses import in_subject_place
from agent.routes.entities import question_read
from agent.routes.fit import intent_blanks
from agent.unnamed import subject_unnamed
from catalog.models import Platform
from catalog.segment import zh_leads_as_function
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("is there a feed for the telegram sticker pack called MossyFrog?", "MossyFrog"),
        ("updates for the Telegram sticker pack named otters", "otters"),
    ],
)
def test_a_name_said_called_or_named_after_the_routes_kind_fills_it(question, path):
    assert first_path(question) == f"/telegram/stickerpack/{path}"


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("I want everything danabramov publishes", "danabramov"),
        ("ping me when swyx posts something new", "swyx"),
    ],
)
def test_a_name_doing_what_a_word_for_things_also_says_is_the_clauses_subject(question, name):
    assert in_subject_place(question, set()) == [name]


@pytest.mark.parametrize(
    "question",
    [
        "let me know when new posts appear",
        "everything new releases today",
        "ping me whenever Tailscale shows up",  # a product's name, no handle
    ],
)
def test_a_word_for_things_after_when_or_everything_is_no_name(question):
    assert in_subject_place(question, set()) == []


def test_a_one_letter_platform_before_what_is_posted_there_is_that_platform():
    question = "show me that X post from @nasa, status 1811111111111111111"

    assert first_path(question) == "/twitter/tweet/nasa/status/1811111111111111111"


def test_the_kind_said_right_before_a_number_chooses_the_route_it_is_of():
    assert first_path("网易云歌单 3136952023 最近加了哪些歌") == "/163/music/playlist/3136952023"


@pytest.mark.parametrize(
    "question", ["any flash news on Wallstreetcn today?", "华尔街见闻最新快讯"]
)
def test_flash_news_reads_the_sites_newsflashes(question):
    assert first_path(question) == "/wallstreetcn/live"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("posts by the Zhihu organization account wanglab", "org"),
        ("知乎机构号 wanglab 的文章", "org"),
        ("posts by the zhihu user wanglab", "people"),
    ],
)
def test_an_organisations_account_is_told_from_a_persons(question, kind):
    assert first_path(question) == f"/zhihu/posts/{kind}/wanglab"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("new builds of the mariadb image tagged 11.4 on docker hub", None),
        ("the official mariadb image with tag 11.4 on docker hub, new builds", None),
    ],
)
def test_a_tag_said_after_the_image_fills_its_tag(question, path):
    assert first_path(question) == (path or "/dockerhub/build/library/mariadb/11.4")


@pytest.mark.parametrize(
    "question",
    [
        "new builds of the image with tag 3.20 on docker hub",
        "new builds of the image tagged 3.20 on docker hub",
    ],
)
def test_a_tag_said_of_no_image_names_no_image(question):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == [], f"read {ctx.paths}"
    assert [need["parameter"] for need in ctx.needs][:1] == ["image"]


def test_a_value_of_a_number_and_a_unit_is_said_in_words():
    assert first_path("the most read stories on iThome over the past 7 days") == (
        "/ithome/ranking/7days"
    )


def test_a_topic_after_its_marker_may_start_as_a_verb_does():
    asked = question_read("36氪上关于具身智能的文章", platform_words=("36氪",), excluded=())

    assert "具身智能" in [e.value for e in asked.entities]
    assert zh_leads_as_function("具身智能的文章")  # a name's marker still stops there
    assert not zh_leads_as_function("具身智能的文章", verbs=False)
    assert zh_leads_as_function("我关注的", verbs=False)  # a pronoun starts no topic


def test_a_search_after_about_in_chinese_fills_the_keyword():
    question = "帮我搜一下36氪上关于人形机器人的最新文章"

    assert first_path(question) == "/36kr/search/articles/人形机器人"


def test_a_forum_before_how_it_is_sorted_is_a_tieba_forum():
    assert first_path("孙笑川吧按回复时间排的帖子") == "/baidu/tieba/forum/孙笑川/replied"


def test_since_when_is_no_search_word():
    question = "any new arXiv papers on metamaterials since yesterday?"

    assert first_path(question) == "/arxiv/search_query=all:metamaterials"


def test_a_region_said_in_english_names_its_chinese_label():
    assert first_path("Zaobao Southeast Asia news") == "/zaobao/znews/sea"


def test_a_route_whose_name_says_a_kind_not_asked_for_gives_way():
    question = "微博绿洲用户 6012345678 有新动态吗"

    assert first_path(question) == "/weibo/oasis/user/6012345678"


def test_the_askers_douyu_fish_bar_is_asked_for():
    question = "我常逛的那个鱼吧有新帖了提醒我一下"

    assert subject_unnamed(question)
    chosen, ctx = route(question)
    assert chosen is False and ctx.paths == [], f"read {ctx.paths}"


def test_an_alias_asks_for_its_kind_only_beside_another_name_or_alone():
    platform = Platform(
        namespace="alpha", name="Alpha Wire", aliases=["阿尔法快讯", "Alpha flash", "flashes"]
    )

    blanked = intent_blanks(platform)

    assert "阿尔法快讯" in blanked  # a name of its own, which says 快讯
    assert "Alpha flash" not in blanked and "flashes" not in blanked
