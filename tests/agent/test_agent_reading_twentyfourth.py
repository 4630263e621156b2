"""The twenty-fourth pass of issue 29's reading rules. Against the real catalog snapshot where
a route is named, offline."""

import pytest

from agent.routes.amounts import amounts_fill
from agent.routes.entities import question_read
from agent.routes.enums import said_translated
from agent.routes.slots import Slot
from fetching.radar import page_addresses
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


def _setting(description: str, name: str = "limit", regex: str = "") -> Slot:
    return Slot(
        name=name,
        regex=regex,
        optional=True,
        description=description,
        choices=[],
        example=None,
        default=None,
        subject=False,
    )


def _values(question: str, *slots: Slot) -> dict[str, str]:
    values: dict[str, str] = {}
    amounts_fill(list(slots), question, values, {})
    return values


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("b站搜 原神 的视频", "/bilibili/vsearch/原神"),
        ("GitHub 上搜 tauri 的结果", "/github/search/tauri"),
    ],
)
def test_words_set_apart_after_sou_are_what_is_searched(question, path):
    assert first_path(question) == path


def test_a_hot_search_list_marks_nothing_searched():
    asked = question_read("微博热搜 前十", platform_words=["微博"], excluded=[])

    assert [e.value for e in asked.entities if e.role == "topic"] == []


def test_a_scripts_name_is_no_domain():
    asked = question_read("掘金上 Vue.js 这个标签", platform_words=["掘金"], excluded=["标签"])

    assert [e.value for e in asked.entities] == ["Vue.js"]
    assert "domain" not in {e.kind for e in asked.entities}
    assert first_path("掘金上 Three.js 这个标签下的新文章") == "/juejin/tag/Three.js"


def test_a_page_a_script_routes_by_its_fragment_is_read_as_its_path():
    (address,) = page_addresses("https://music.163.com/#/playlist?id=2884035 这个歌单")

    assert (address.host, address.segments, address.query) == (
        "music.163.com",
        ("playlist",),
        "id=2884035",
    )
    assert first_path("网易云歌单 https://music.163.com/#/playlist?id=2884035 更新提醒我") == (
        "/163/music/playlist/2884035"
    )


def test_a_pages_query_value_fills_the_route_its_path_names_before_the_path_word_does():
    assert first_path("网易云歌单 music.163.com/playlist?id=2884035") == (
        "/163/music/playlist/2884035"
    )


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("这个澎湃号有新文章吗 https://www.thepaper.cn/user_1234567", "/thepaper/user/1234567"),
        ("虎嗅标签页 https://www.huxiu.com/tags/291.html 有新文章吗", "/huxiu/tag/291"),
    ],
)
def test_a_page_the_site_spells_otherwise_than_the_routes_path_is_read(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    "question",
    [
        "new builds of the official redis image on Docker Hub, the alpine tag specifically",
        "new builds of the official redis image on Docker Hub, the alpine tag particularly",
    ],
)
def test_an_adverb_is_no_owner(question):
    assert first_path(question) == "/dockerhub/build/library/redis/alpine"


def test_a_word_between_my_favourite_and_a_kind_describes_it_and_names_none():
    chosen, ctx = route("new uploads from my favourite knitting channel on YouTube")

    assert chosen is False and ctx.paths == [] and ctx.needs


def test_a_value_said_after_not_is_refused_not_given():
    chosen, ctx = route(
        "follow a friend's Mastodon posts by her account id; she is on a small instance, "
        "not mastodon.social"
    )

    assert chosen is False and ctx.paths == [] and ctx.needs


def test_ba_before_a_question_mark_asks_and_names_no_forum():
    assert first_path("谷歌开发者博客有日文版吧\uff1f想订阅日文的") == "/google/developers/ja"
    assert first_path("原神吧有什么新帖子").startswith("/baidu/tieba/forum/原神")


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("谷歌搜索“固态电池”的最新结果", "/google/search/固态电池"),
        ("which films are in theaters now according to douban?", "/douban/movie/playing"),
        ("Douban's North America box office chart", "/douban/movie/ustop"),
        ("谷歌学术 帮我盯一下 diffusion models 相关的新论文", "/google/scholar/diffusion+models"),
    ],
)
def test_chinese_and_english_names_of_a_feed_meet(question, path):
    assert first_path(question) == path


def test_an_ids_name_then_should_be_keys_its_number():
    question = "what's trending on X in Japan? the woeid should be 23424856"

    assert first_path(question) == "/twitter/trends/23424856"


def test_a_region_the_page_does_not_give_is_added_to_its_path():
    question = (
        "Epic free games from the French store, region France (store.epicgames.com/fr/free-games)"
    )

    assert first_path(question) == "/epicgames/freegames/fr/FR"


@pytest.mark.parametrize(
    ("question", "limit"),
    [
        ("give me the latest 25 instead of the usual 10", "25"),
        ("top 50 please", "50"),
        ("最新 30 条就好", "30"),
        ("not the latest 20, everything", None),
        ("give me everything new", None),
    ],
)
def test_a_count_parameter_takes_the_count_asked_for(question, limit):
    values = _values(question, _setting("Tag count, 10 by default", regex=r"\d+"))

    assert values.get("limit") == limit


def test_a_filter_by_a_count_is_no_count_of_items():
    assert _values("top 20 papers", _setting("Filter papers by vote count.")) == {}


@pytest.mark.parametrize(
    ("question", "score"),
    [("评分最高的科幻片\uff0c8分以上的才要", "8"), ("movies rated 7.5 or higher", "7.5")],
)
def test_a_minimum_rating_takes_the_least_asked_for(question, score):
    assert _values(question, _setting("最低评分\uff0c默认不限制", name="score")) == {"score": score}


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "Docker Hub tags of the official postgres image, the latest 20 not the usual 10",
            "/dockerhub/tag/library/postgres/20",
        ),
        (
            "WallStreetCN live flashes for forex, only the important ones",
            "/wallstreetcn/live/forex/2",
        ),
        (
            "community blog posts on Hugging Face, most recent rather than trending",
            "/huggingface/blog-community/recent",
        ),
    ],
)
def test_an_amount_or_a_setting_said_in_english_fills_its_parameter(question, path):
    assert first_path(question) == path


def test_a_key_accepting_any_name_takes_the_name_marked_with_its_kind():
    question = "百度贴吧里搜“内存条”的帖子, 只在装机吧里搜就行"

    assert first_path(question) == "/baidu/tieba/search/内存条/kw=装机"


def test_an_adverb_or_preposition_leading_a_marked_name_is_not_part_of_it():
    asked = question_read("只在显卡吧里看看", platform_words=["贴吧"], excluded=[])

    assert [e.value for e in asked.entities] == ["显卡"]


def test_a_latin_name_right_after_sou_is_what_is_searched():
    assert first_path("用百度搜Rust, 有新结果就推给我") == "/baidu/search/Rust"


def test_the_word_a_search_is_called_by_is_no_part_of_it():
    asked = question_read(
        "Google results for the word Fediverse", platform_words=["google"], excluded=[]
    )

    assert "word" not in {e.value for e in asked.entities}


def test_a_hyphened_word_names_the_value_written_as_one():
    assert first_path("juejin back-end category, new posts as rss?") == "/juejin/category/backend"


def test_whom_someone_follows_is_named_after_following():
    assert first_path("who started following antfu on github recently?") == (
        "/github/user/followers/antfu"
    )


def test_a_kind_of_feed_said_in_chinese_says_the_english_name_of_its_route():
    question = "dockerhub 上 redis 官方镜像的 7-alpine 这个tag 有新构建时通知我"

    assert first_path(question) == "/dockerhub/build/library/redis/7-alpine"


@pytest.mark.parametrize(
    "question",
    [
        "changelog for taptap app 60809, english version if possible",
        "changelog for https://www.taptap.cn/app/60809 , english version if possible",
    ],
)
def test_a_language_named_takes_the_listed_locale_and_a_pages_host_names_none(question):
    assert first_path(question) == "/taptap/changelog/60809/en_US"


def test_a_table_under_another_that_lists_a_second_parameters_default_is_that_ones():
    question = "taptap.cn/app/60809 论坛里精华帖, 按回复时间排"

    assert first_path(question) == "/taptap/topic/60809/elite/commented"


def test_a_page_a_less_specific_rule_reads_serves_the_kind_of_feed_asked_for():
    question = "new posts by this zhihu user https://www.zhihu.com/people/diygod"

    assert first_path(question) == "/zhihu/posts/people/diygod"


def test_a_ranged_rating_key_takes_the_least_said_among_several_tables():
    assert (
        first_path("豆瓣热播新剧里的韩剧, 只要评分7.5分以上的")
        == "/douban/list/tv_korean/score=7.5"
    )


def test_a_key_table_of_the_route_fills_only_the_parameter_taking_extra_keys():
    assert first_path("豆瓣热播新剧里的韩剧, 只要8分以上的") == "/douban/list/tv_korean/score=8"


def test_a_parameter_any_value_switches_on_takes_no_name():
    question = "list the contributors of vitejs/vite with the fewest commits first"

    # "fewest" is the order's (asc, since the twenty-fifth pass), never the switch's value
    assert first_path(question) == "/github/contributors/vitejs/vite/asc"


def test_a_videos_part_said_as_its_number_and_p_fills_its_part():
    assert first_path("BV1xx411c7mD 这个视频第3P的弹幕") == "/bilibili/video/danmaku/BV1xx411c7mD/3"


def test_a_chinese_name_written_as_one_word_is_said_concept_by_concept():
    assert said_translated("Lianhe Zaobao breaking news", "即时新闻")
    assert not said_translated("Lianhe Zaobao news", "即时新闻")
    assert first_path("Lianhe Zaobao breaking news, the world section") == "/zaobao/realtime/world"
