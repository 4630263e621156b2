"""The seventh pass of issue 29's reading rules, one behaviour each: values whose form or key
says which parameter they fill (a hashtag, an issue's #number, an instance's domain, "(fid -7)"),
a country or region the question names, a name that runs on into digits (小米14), and a forum
named by 吧 with no platform named. Against the real catalog snapshot, offline."""

import pytest

from agent.regions import regions_said
from agent.routes.forms import Formed, forms_read
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "text, formed",
    [
        ("comments on rust-lang/rust#44265", [("ref", "44265"), ("pair", "rust-lang/rust")]),
        ("PR #12 of the repo", [("ref", "12")]),
        ("#rust on mastodon.social", [("hashtag", "rust"), ("domain", "mastodon.social")]),
        ("微博 #原神# 的讨论", [("hashtag", "原神")]),
        ("C# news and F# jobs", []),
    ],
)
def test_a_hashtag_and_an_issue_number_are_read_by_their_form(text, formed):
    assert [(f.kind, f.value) for f in forms_read(text)[1]] == formed


def test_a_key_in_parentheses_is_kept_as_the_values_label():
    found = forms_read(
        "NGA 大漩涡\uff08fid -7\uff09, Steam (app id 1086940), (slug: iris), (ublock-origin)"
    )
    assert found[1] == [
        Formed("number", "-7", "fid"),
        Formed("number", "1086940", "app"),
        Formed("quoted", "iris", "slug"),
        Formed("quoted", "ublock-origin", ""),
    ]


@pytest.mark.parametrize(
    "question, path",
    [
        # the key names the parameter: a forum's fid, not a thread's tid
        ("NGA 大漩涡\uff08fid -7\uff09的最新帖子", "/nga/forum/-7"),
        # an issue's number after owner/repo fills the optional number
        ("latest comments on rust-lang/rust#44265", "/github/comments/rust-lang/rust/44265"),
        # an instance's domain fills the optional host
        ("tags for GNOME/gtk over on gitlab.gnome.org", "/gitlab/tag/GNOME/gtk/gitlab.gnome.org"),
        # the hashtag fills the hashtag, the domain the instance: neither swallows the other
        ("#rust hashtag on mastodon.social", "/mastodon/tag/mastodon.social/rust"),
        (
            "Mastodon 上 mastodon.social 实例的 #photography 标签",
            "/mastodon/tag/mastodon.social/photography",
        ),
        # a name that runs on into digits is one name, not a user id 14
        ("酷安话题 小米14 有什么新动态", "/coolapk/huati/小米14"),
    ],
)
def test_a_value_fills_the_parameter_its_form_or_key_names(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    "text, codes",
    [
        ("new releases on the US Nintendo eShop", {"us"}),
        ("国区 App Store 里微信的更新", {"cn"}),
        ("任天堂日服 eShop 新游戏", {"jp"}),
        ("Tell us what's new in the United Kingdom", {"gb"}),
        ("tell us about the new releases", set()),
        ("what's trending on GitHub", set()),
    ],
)
def test_a_country_or_region_is_read_by_its_name_and_us_is_no_country(text, codes):
    assert regions_said(text) == codes


@pytest.mark.parametrize(
    "question, path",
    [
        # among a site's feeds per country, the one of the country named
        ("new releases on the US Nintendo eShop", "/nintendo/eshop/us"),
        ("Nintendo eShop Japan new games", "/nintendo/eshop/jp"),
        ("任天堂日服 eShop 新游戏", "/nintendo/eshop/jp"),
        # a parameter named for a country takes its code, in the example's form
        ("国区 App Store 里微信 (id414478124) 的更新记录", "/apple/apps/update/cn/id414478124"),
        (
            "App Store update notes for Notion, id1232780281 in the US store",
            "/apple/apps/update/us/id1232780281",
        ),
    ],
)
def test_the_country_named_chooses_the_feed_and_fills_its_parameter(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    "question, path",
    [
        ("李毅吧最新的帖子", "/baidu/tieba/forum/李毅"),
        ("孙笑川吧今天有什么新帖", "/baidu/tieba/forum/孙笑川"),
    ],
)
def test_a_name_before_吧_is_a_tieba_forum_when_no_platform_is_named(question, path):
    assert first_path(question) == path


def test_a_sentence_ending_in_吧_names_no_forum():
    _ok, ctx = route("我们看看吧")
    assert not any("/baidu/tieba/" in path for path, _id in ctx.paths)


@pytest.mark.parametrize(
    "question, path",
    [
        # the feed is named (实时快讯, newsflashes): read it, and look for the topic in its items
        ("格隆汇快讯里有没有关于比亚迪的", "/gelonghui/live"),
        ("36氪快讯里关于英伟达的", "/36kr/newsflashes"),
        # articles of any kind name no feed: the topic is searched for
        ("格隆汇上关于比亚迪的文章", "/gelonghui/keyword/比亚迪"),
    ],
)
def test_a_topic_inside_a_feed_the_question_names_is_looked_for_not_searched(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    "question, path",
    [
        # a verb is no name: "got" carries "closed", "picked" is what the image did
        (
            "Show me the pull requests that got closed recently in rust-lang/rust.",
            "/github/pull/rust-lang/rust/closed",
        ),
        (
            "What new tags has the official postgres image on Docker Hub picked up?",
            "/dockerhub/tag/library/postgres",
        ),
        # "id" marks the value after it, past "is"; the 2 of "Dota 2" is the game's name
        ("Dota 2 announcements from Steam; the app id is 570.", "/steam/news/570"),
        # a quoted name after an account's marker is someone's; after 搜索, a search's
        ('Stories submitted by the Hacker News user "pg"', "/hackernews/submitted/sources/pg"),
        ("在 36氪 搜索\u201c具身智能\u201d相关的文章", "/36kr/search/articles/具身智能"),
        # a tag's Latin name does not run on into the Chinese after it
        ("掘金上 Rust 标签的最新文章给我来一份", "/juejin/tag/Rust"),
        # the parameter's description asks for lower case (全小写的英文队名)
        ("虎扑上湖人\uff08Lakers\uff09的球队新闻", "/hupu/news/lakers"),
        # a key given with "="
        ("NGA 艾泽拉斯议事厅\uff08fid=7\uff09的最新帖子", "/nga/forum/7"),
        # "weekly" names the listed value week ("Choose from: date, week, month")
        (
            "Give me the Hugging Face daily papers, but as a weekly roundup.",
            "/huggingface/daily-papers/week",
        ),
    ],
)
def test_verbs_keys_quotes_and_listed_values_are_read_for_what_they_are(question, path):
    assert first_path(question) == path


def test_a_list_said_in_words_is_a_parameters_values():
    from agent.routes.listed import inline_values

    said = "The publication cycle you want to follow. Choose from: date, week, month."
    assert inline_values(said) == [("date", "date"), ("week", "week"), ("month", "month")]
    assert inline_values("one of hot or new") == [("hot", "hot"), ("new", "new")]
    assert inline_values("one of the users") == []


def test_daily_alone_does_not_choose_a_cycle():
    assert first_path("Hugging Face daily papers") == "/huggingface/daily-papers"


def test_a_platform_said_as_the_place_to_read_is_read_though_named_weakly():
    question = "Earnings call transcripts for Tesla (TSLA) from Seeking Alpha"
    assert first_path(question) == "/seekingalpha/TSLA/transcripts"


def test_a_topic_after_the_platform_is_nobodys_name():
    assert first_path("posts from Hacker News about Tesla") == "/hackernews"


@pytest.mark.parametrize(
    "question, path",
    [
        # "keep" said as a verb names no platform; owner/repo#number is a GitHub issue's
        (
            "I want to keep up with the comment thread on issue #197319 in microsoft/vscode.",
            "/github/comments/microsoft/vscode/197319",
        ),
        # a hashtag on an instance's domain is that instance's Mastodon timeline
        (
            "what's everyone posting under #rustlang on fosstodon.org",
            "/mastodon/tag/fosstodon.org/rustlang",
        ),
        ("fosstodon.org 上 #rust 话题下的嘟文", "/mastodon/tag/fosstodon.org/rust"),
    ],
)
def test_a_values_home_is_read_when_no_platform_is_named_as_one(question, path):
    assert first_path(question) == path


def test_a_platform_named_plainly_is_still_named():
    assert first_path("Keep user 12345 新动态") == "/keep/user/12345"


@pytest.mark.parametrize(
    "question, path",
    [
        # a kind of subject after the name: a mod is a project
        ("lithium mod - any new versions up on modrinth?", "/modrinth/project/lithium/versions"),
        # one @handle fills one parameter, not a second one as a domain
        ("new tiktoks from @khaby.lame?", "/tiktok/user/@khaby.lame"),
        # a question word, words for things, then the auxiliary: the name follows it
        (
            "Which new models has Qwen uploaded to Hugging Face recently?",
            "/huggingface/models/Qwen",
        ),
        # the kind the value is said to be (小组, 条目, 房间) comes before the kind of feed
        ("豆瓣小组 35417 里最热的帖子有哪些", "/douban/group/35417/essence"),
        ("虎牙 660000 房间今天开播没", "/huya/live/660000"),
        # an optional listed value named in the other language (评论: comments)
        ("Bangumi 条目 400602 最近的吐槽和评论", "/bangumi.tv/subject/400602/comments"),
        ("What TV shows are trending on TMDB today?", "/themoviedb/trending/tv/day"),
    ],
)
def test_kinds_of_subject_and_values_named_around_them(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    "question, path",
    [
        # single quotes around a value (never an apostrophe's)
        ("subscribe me to the Substack newsletter 'noahpinion'", "/substack/subscribe/noahpinion"),
        # a value said to be one: "... id ... is X", "their page is X", "name is X"
        (
            "Latest Sky Sports news about Spurs \u2014 "
            "the team id in their URL is tottenham-hotspur.",
            "/skysports/news/tottenham-hotspur",
        ),
        (
            "Team Liquid's recent Dota 2 match results from Liquipedia (their page is Team_Liquid)",
            "/liquipedia/dota2/matches/Team_Liquid",
        ),
        (
            "Is there a new NewPipe build on F-Droid? Package name is org.schabi.newpipe.",
            "/f-droid/apprelease/org.schabi.newpipe",
        ),
        # a site's address without its scheme names the site and, last, the value
        ("New tracks from ODESZA (soundcloud.com/odesza)", "/soundcloud/tracks/odesza"),
        ("v2ex 上 t/1098765 这个帖子的回复", "/v2ex/post/1098765"),
        ("在虎嗅搜\u300c低空经济\u300d相关文章\uff0c给我做成订阅", "/huxiu/search/低空经济"),
        # the subject of a clause after when / whenever, and of "what's X been"
        ("let me know when shroud goes live on Twitch", "/twitch/live/shroud"),
        (
            "I want to know whenever Qwen uploads a new model to Hugging Face",
            "/huggingface/models/Qwen",
        ),
        (
            "what's davidehrlich been logging in his Letterboxd diary",
            "/letterboxd/user/diary/davidehrlich",
        ),
        # "feed" is no past verb: "notes" is nobody's name, ChatGPT's release notes are read
        ("ChatGPT release notes feed pls", "/openai/chatgpt/release-notes"),
        # a slug where the example's id is a number; 精华 said as such, not translated
        ("帮我订阅豆瓣小组 shanghaizufang 里的最新帖子", "/douban/group/shanghaizufang"),
        (
            "豆瓣\u300c北京租房\u300d小组\uff08beijingzufang\uff09的精华帖",
            "/douban/group/beijingzufang/elite",
        ),
        # a table's example path is no label
        ("Newest research papers published in Nature Biotechnology", "/nature/research/nbt"),
        (
            "3DM 游戏网《黑神话\uff1a悟空》专题\uff08blackmythwukong\uff09的攻略更新",
            "/3dmgame/games/blackmythwukong/gl",
        ),
        # the platform named as the place to read comes first
        ("虎扑上凯尔特人\uff08celtics\uff09的球队新闻", "/hupu/news/celtics"),
        # a Chinese key in parentheses
        ("知网上《中国社会科学》\uff08期刊缩写 ZSHK\uff09的最新论文", "/cnki/journals/ZSHK"),
    ],
)
def test_values_given_in_the_ways_people_give_them(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    "question, path",
    [
        # the subject of a clause after "the moment"; "Keep me posted" is no platform
        ("ping me the moment shroud starts streaming on twitch", "/twitch/live/shroud"),
        (
            "Keep me posted on new issues filed against neovim/neovim",
            "/github/issue/neovim/neovim",
        ),
        # a region's code in lower case before "storefront"
        (
            "Track version updates of App Store app id1232780281 in the gb storefront",
            "/apple/apps/update/gb/id1232780281",
        ),
        # "search results on": what is searched follows the words for results
        ('RSS for nyaa.si search results on "frieren"', "/nyaa/search/frieren"),
        # "(Liquipedia page X)": the value given whole, no parameter's key
        (
            "Counter-Strike match results for Team Vitality (Liquipedia page Team_Vitality)",
            "/liquipedia/counterstrike/matches/Team_Vitality",
        ),
        # digits in hyphenated groups are one value
        (
            "Alert me when new works are added to ORCID 0000-0001-5109-3700.",
            "/orcid/0000-0001-5109-3700",
        ),
        # an optional id right after the kind its description names (作品 id)
        ("晋江作品 6921873 更新章节了吗\uff0c帮我订阅", "/jjwxc/book/6921873"),
        ("HF 用户 julien-c 最近点赞了啥", "/huggingface/activity/julien-c/likes"),
        # a platform named plainly comes before one only a route's name matched
        ("IT之家 7 天最热文章", "/ithome/ranking/7days"),
        # a word for a kind of feed is no label's value: "labelled bug" still is
        (
            "closed issues labelled bug in microsoft/vscode",
            "/github/issue/microsoft/vscode/closed/bug",
        ),
    ],
)
def test_clauses_keys_and_platform_order(question, path):
    assert first_path(question) == path


def test_a_setting_named_with_its_value_takes_it():
    question = "Epic Games Store free games for the German store \u2014 locale de-DE, country DE"
    assert first_path(question) == "/epicgames/freegames/de-DE/DE"


def test_the_platforms_address_and_how_a_question_is_put_are_no_topic():
    from agent.summary.subject import context_words_load
    from catalog.models import Platform

    _ok, ctx = route("Subscribe me to the blog posts on The Gradient (thegradient.pub).")
    platform = Platform.objects.get(namespace="thegradient")
    context = context_words_load(
        namespaces={platform.namespace}, route_ids={r for _p, r in ctx.paths}, paths=ctx.paths
    )
    terms = {t.casefold() for t in ctx.reading.topic(context).terms}
    assert not terms & {"thegradient.pub", "subscribe"}, terms


@pytest.mark.parametrize(
    "question, path",
    [
        # a word for people in general names no site (人民网's namespace is "people")
        (
            "what PRs have people opened against tauri-apps/tauri lately",
            "/github/pull/tauri-apps/tauri",
        ),
        # a name before the artifacts it publishes; a verb opening the question is none
        ("fabric-api versions on modrinth lately?", "/modrinth/project/fabric-api/versions"),
        ("Track releases of inkscape/inkscape on GitLab", "/gitlab/release/inkscape/inkscape"),
        # a number keyed by an id's name outside parentheses
        ("NGA 分区 fid -7 最近的帖子", "/nga/forum/-7"),
        (
            "Official news posts for the Steam game with app ID 1086940, please.",
            "/steam/news/1086940",
        ),
        # 搜一下 marks what to search for
        ("格隆汇上搜一下 宁德时代", "/gelonghui/keyword/宁德时代"),
    ],
)
def test_names_people_artifacts_keyed_ids_and_searches(question, path):
    assert first_path(question) == path
