"""The eighth pass of issue 29's reading rules: what the question says it does not want, a
plural's possessive, words that are never values, a name said as an infinitive's verb, a name
under the platform's host, a listed value with its label glued on or alone, and "newest
first". Against the real catalog snapshot, offline."""

import pytest

from agent.routes.listed import inline_values
from agent.vocabulary import asked_intents
from tests.agent.test_agent_route_offline import route

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "question, intents",
    [
        ("only the highlights, not full vods", set()),
        ("new releases, not commits", {"release"}),
        ("社区帖子\uff08不是视频哈\uff09", set()),
        ("新写的回答\uff0c文章和想法不用", {"answer"}),
        ("收藏的那些微博\uff0c不是他发的", {"bookmark"}),
        ("new videos and comments", {"video", "comment"}),
    ],
)
def test_a_kind_of_feed_the_question_does_not_want_is_not_asked_for(question, intents):
    assert asked_intents(question) == intents


@pytest.mark.parametrize(
    "question, path",
    [
        # a plural's possessive names the owner; "not" is no value
        (
            "only the highlights from riotgames' twitch channel, not full vods",
            "/twitch/video/riotgames/highlights",
        ),
        # the channel owns the community: its posts are asked for, not its videos
        (
            "YouTube 上 @LinusTechTips 频道的社区帖子\uff08不是视频哈\uff09",
            "/youtube/community/@LinusTechTips",
        ),
        # "over" is no instance's host
        (
            "new releases of inkscape/inkscape over on gitlab.com",
            "/gitlab/release/inkscape/inkscape",
        ),
        # TG is Telegram
        ("TG 频道 @durov 有新消息就推过来", "/telegram/channel/durov"),
        # a name under the platform's host is a blog's own
        (
            "Noahpinion on substack (noahpinion.substack.com) - new posts?",
            "/substack/subscribe/noahpinion",
        ),
        ("new posts from noahpinion.substack.com", "/substack/subscribe/noahpinion"),
        # a feature's lone value, named by its label in either language
        ("new Python releases, pre-releases included", "/python/pre"),
        ("新 Python 版本\uff0c包括预发布版本", "/python/pre"),
        # "newest first" sorts by creation; "new answers" alone sorts as the site does
        (
            "Zhihu question 19550225 - can I get its answers newest first?",
            "/zhihu/question/19550225/created",
        ),
        ("Zhihu question 19550225 new answers", "/zhihu/question/19550225"),
        # a listed value taken as well as the default asks for all of them
        ("issues in vercel/next.js, closed ones too", "/github/issue/vercel/next.js/all"),
        (
            "帮我盯着 facebook/react 的 pull request\uff0c已经关掉的也一起推给我",
            "/github/pull/facebook/react/all",
        ),
        ("facebook/react 已经关掉的 PR", "/github/pull/facebook/react/closed"),
        # a file by its name and extension, and a branch named before the word branch
        (
            "commits touching CHANGELOG.md on the main branch of facebook/react",
            "/github/file/facebook/react/main/CHANGELOG.md",
        ),
        # going live is a kind of feed, a stream's schedule another
        ("ping me the moment shroud starts streaming on twitch", "/twitch/live/shroud"),
        ("When is xQc streaming next? Give me his Twitch schedule", "/twitch/schedule/xQc"),
        ("知乎问题 28626263 下面的回答\uff0c按发布时间排", "/zhihu/question/28626263/created"),
        # read after reading-holdout4's one run:
        # a verb's -ing form after "been" is no name; "whats" is "what's"
        (
            "what models has the Qwen org been uploading to hugging face lately",
            "/huggingface/models/Qwen",
        ),
        (
            "whats davidehrlich been logging on letterboxd lately? want his diary",
            "/letterboxd/user/diary/davidehrlich",
        ),
        # a demonstrative between a name and its marker
        ("集思录里 可转债 这个话题下的帖子", "/jisilu/topic/%E5%8F%AF%E8%BD%AC%E5%80%BA"),
        # capitals fill a parameter whose example is a ticker
        ("latest NVDA headlines from finviz", "/finviz/news/NVDA"),
        ("finviz news for $AAPL", "/finviz/news/AAPL"),
        # "highest" is top, "series" shows
        ("imdb's list of the highest rated tv series (the 250 one)", "/imdb/chart/toptv"),
        # a handle's host is not the platform said
        ("posts from Gargron@mastodon.social", "/mastodon/acct/Gargron@mastodon.social/statuses"),
    ],
)
def test_the_eighth_pass_reads_the_path(question, path):
    chosen, ctx = route(question)

    assert chosen is True and ctx.paths[0][0] == path, ctx.paths


def test_a_name_said_as_an_infinitives_verb_names_no_platform():
    # "a way to follow" is no Follow (the reader of that name)
    _chosen, ctx = route(
        "Is there a way to follow just the commits that touch RELEASES.md on the master "
        "branch of rust-lang/rust?"
    )

    assert ctx.platforms == ["github"]


def test_tweets_name_twitter_whose_user_feed_waits_for_staff():
    # not GitHub's "User's Feed", found by the word "feed"
    _chosen, ctx = route("I want @NASA's tweets in my feed reader")

    assert ctx.platforms == ["twitter"] and ctx.paths == []
    assert [s["route"] for s in ctx.setup_needed] == ["/twitter/user/:id/:routeParams?"]


def test_a_page_of_the_site_that_serves_no_asked_feed_is_still_its_page():
    # Apple's security releases take nothing of the app's page: the page's own route is read
    chosen, ctx = route(
        "Release notes feed for Overcast on the US App Store \u2014 "
        "apps.apple.com/us/app/overcast/id888422857"
    )

    assert chosen is True and ctx.paths[0][0] == "/apple/apps/update/us/id888422857"


@pytest.mark.parametrize(
    "text, values",
    [
        (
            "快讯重要度\uff0c默认`1`全部快讯\uff0c可设置为`2`只看重要的",
            [("1", "1"), ("2", "2"), ("全部快讯", "1"), ("只看重要的", "2")],
        ),
        (
            "填入 `pre` 以包含预发布版本\uff0c默认只含正式版本",
            [("pre", "pre"), ("包含预发布版本", "pre")],
        ),
        ("默认为 `default`", []),  # a default alone lists nothing
        ("排序方式\uff1a`default`, `created`", [("default", "default"), ("created", "created")]),
    ],
)
def test_a_description_lists_values_with_their_labels(text, values):
    assert inline_values(text) == values


@pytest.mark.parametrize(
    "question, parameter, platform",
    [
        # one of a kind, said which by no name: a Latin word before the kind qualifies it
        ("我装的一个 Chrome 扩展更新了能提醒我吗", "id", "google"),
        # an UP 主 is bilibili's, when no platform is named
        ("关注的一个UP主更新视频了能不能第一时间知道", "uid", "bilibili"),
        # the asker's professor names no one; ta is a pronoun
        (
            "my professor shared a YouTube playlist with us, can I get new videos from it?",
            "id",
            "youtube",
        ),
        ("知乎上有个答主写得很好\uff0c想订阅ta的回答", "id", "zhihu"),
        # Chinese words are never an app's id
        ("App Store 里有个 app 我想等降价再买\uff0c能提醒吗", "id", "apple"),
    ],
)
def test_one_of_a_kind_named_by_no_name_is_asked_for(question, parameter, platform):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == [], ctx.paths
    assert ctx.platforms[0] == platform
    assert ctx.needs and ctx.needs[0]["parameter"] == parameter, ctx.needs


def test_an_indefinite_word_is_no_search_term():
    # "一个" is also a word of the app ONE·一个's name: saying "one" names no platform
    _chosen, ctx = route("我装的一个 Chrome 扩展更新了能提醒我吗")

    assert "wufazhuce" not in ctx.platforms


@pytest.mark.parametrize(
    "text, files",
    [
        ("commits touching CHANGELOG.md", ["CHANGELOG.md"]),
        ("changes to docs/guide/intro.md in vuejs/core", ["docs/guide/intro.md"]),
        ("Cargo.toml of tokio", ["Cargo.toml"]),
        ("what's new in next.js and vue.js", []),  # a web framework's name is no file
        ("posts on example.org", []),
    ],
)
def test_a_file_is_read_by_its_name_and_extension(text, files):
    from agent.routes.forms import forms_read

    _rest, found = forms_read(text)
    assert [f.value for f in found if f.kind == "file"] == files


def test_capitals_elsewhere_are_no_ticker():
    # an acronym fills no parameter that takes no ticker
    chosen, ctx = route("HN newest")

    assert chosen is True and ctx.paths[0][0] == "/hackernews/newest"
