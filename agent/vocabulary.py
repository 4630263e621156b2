"""The words of a question that name nothing, and the words that say which kind of feed it asks
for, in Chinese and English: one vocabulary for every reader of a question.

- *Filler* (``FILLER_EN``, ``FILLER_ZH``) is never a subject (a route parameter's value) nor a
  topic (what the topic check looks for in items): words for kinds of items ("posts", "文章"),
  words of how a question is put ("interesting", "大家"), and the words that say the subject is
  *not named*: indefinite and possessive words ("some", "my", "某个", "这个"), the asker's own
  circle ("team", "company", "团队") and the verbs of a clause about the asker ("the image I
  *use*", "the repo I *care* about"). A question whose only candidates are these names no
  subject, and asking for one beats inventing it.
- ``KIND_EN`` are words for kinds of things ("model", "book"): never a subject, but a topic
  ("papers about models").
- ``INDEFINITE_EN`` and ``INDEFINITE_ZH`` stand where a name would: a search for a name after
  "repo" or "用户" stops at them ("the repo I care about", "某位用户"); ``CLAUSE_PRONOUNS`` after
  a noun open a clause about the asker ("the lab *I* follow"), so that noun is no name either.
- ``ZH_KIND_NOUNS``: Chinese words for kinds of subject (组织, 仓库) with their English ones, so
  a Chinese question chooses the route of the kind it names.
- ``INTENTS``: one concept of feed (releases, commits, discussions...) and its words in both
  languages. A route says which it serves by its name and its path's literal words; a question
  by its own words. General vocabulary of feed sites, never one site's list. A word for a kind
  of feed is never a name (``intent_word``: "UP 主*点赞*的视频").

What says a subject is there but unnamed ("the channel I follow", 某位 UP 主) is
``agent.unnamed``'s.

The words are compared whole (Latin, case-folded) or, for Chinese, as runs a filler cuts.
"""

import re

from agent.question import EN_STOP, ZH_STOP

# Indefinite, possessive and personal words: where a name would stand, they say there is none.
INDEFINITE_EN = frozenset(
    str.split(
        """a an some any certain particular specific my our your their his her its i we you they
    me us them mine ours yours theirs someone somebody something anyone anybody anything one
    nothing nobody everything everyone everybody else another other
    whoever whichever whatever this that these those i'm i've we're we've whose who whom
    which there there's theres here here's heres im ive primary flagship base"""
    )
)
# The asker's circle and what the asker does with a thing: "the image my team deploys",
# "the repo I care about", "the game I play most".
ASKER_EN = frozenset(
    str.split(
        """team teams company companies colleague colleagues coworker coworkers friend friends
    boss employer family work job use uses used using care cares follow follows followed
    following watch watches watched watching like likes liked love loves own owns maintain
    maintains maintained deploy deploys deployed run runs play plays played subscribe
    subscribed prefer need want check professor professors teacher teachers classmate
    classmates roommate partner wife husband mom dad mum parents brother sister kid kids son
    daughter"""
    )
)
# Words around a topic that are not part of it ("latest posts about X"), and words of how a
# question is put ("what are people talking about").
ITEM_EN = frozenset(
    str.split(
        """post posts article articles story stories feed feeds item items entry entries update
    updates result results hits search searches keyword keywords content contents stuff things thing
    list lists info information trending popular hot hottest best official open closed
    repository repositories repo repos channel channels tag tags issue issues release releases
    video videos user users timeline flash flashes newsflash newsflashes comment comments topic
    topics everyone everybody interesting talking talk talked saying say said discussed
    discussing discussion people good important big major happen worth read reading see know get
    find out more other new newest top noting notable noteworthy worthy remarkable
    significant anything news lately recently currently now soon today tonight yesterday
    when next launch launches announce announces announcement announcements publish publishes
    ship ships posting streaming playing happening going up change changes request requests notes
    newsletter newsletters blog blogs podcast podcasts episode episodes excerpt excerpts
    searching
    submission submissions edition editions upcoming homepage site website websites original rn
    let let's lets"""
    )
)
# Words for kinds of things: they say what kind is asked for, never which one.
KIND_EN = frozenset(
    str.split(
        """thread threads review reviews version versions page pages question questions answer
    answers activity activities image images model models paper papers product products app
    apps game games blog blogs podcast podcasts episode episodes chapter chapters account
    accounts package packages day days week weeks month months year years morning evening hour
    hours time times favourite favorite favourites favorites about author authors group groups
    course courses comic comics prefecture
    project projects org organization profile profiles report reports photo photos picture
    pictures pic pics media music song songs movie movies book books webtoon webtoons manga
    novel novels squad squads
    forum forums city cities area areas region regions district districts province
    provinces"""
    )
)
# How a question is put: auxiliaries, "pls", "but as a weekly roundup".
PUT_EN = frozenset(
    str.split(
        """has have had will shall may might must pls plz but as roundup recap digest shows rss atom
        feed feeds subscribe subscribed notify alert never catch soon drop drops coming added time
        i'd i'm i've keep loop ping whenever itself every version versions not only goes went gone
        over too also included including incl instead either full come comes came send sends reader
        readers got gets getting fine okay ok put puts publishing it all without check checks
        checking set told rely enjoy if possible ones forget forgets forgetting forgot text great
        awesome cool nice hilarious amazing way through via thru rsshub hi hello hey thanks thank
        wanna gonna into onto upon than overall default defaults settings specifically
        especially particularly mainly mostly exactly preferably ideally actually really
        lol lmao haha thx ty"""
    )
)
FILLER_EN = ITEM_EN | INDEFINITE_EN | ASKER_EN | PUT_EN
# How often the asker wants to hear: a topic never ("wikipedia current events, daily"), though
# a route's setting may be ("weekly" trending), so these are no filler to route choice.
FREQUENCY_EN = frozenset(str.split("daily weekly monthly hourly yearly nightly biweekly"))
# Pronouns that open a clause about the asker right after a noun: that noun is no name.
CLAUSE_PRONOUNS = frozenset(str.split("i we you they i'm we're i've we've i'd my our"))
# Possessive pronouns: what they stand before is the asker's (or someone's) own, named by no one.
OWNERS = frozenset(str.split("my our your their"))
# Words for kinds of subject a route's name or parameter says: a name stands beside them.
EN_KIND_NOUNS = frozenset(
    str.split(
        """organization organisation org channel account user repo repository package image
    project playlist subreddit group community page profile library crate module topic
    organizations channels accounts users repos repositories packages images projects
    playlists groups communities topics mod mods plugin plugins extension extensions addon
    addons streamer streamers youtuber youtubers vtuber creator creators subject branch
    designer designers artist artists writer writers blogger bloggers influencer influencers
    journal journals magazine magazines newsletter newsletters uploader uploaders
    dev devs developer developers singer singers musician musicians reporter reporters
    journalist journalists columnist columnists"""
    )
)
# Chinese words for kinds of subject, each with the English one a route's name or parameter
# says (``EN_KIND_NOUNS``): "microsoft 组织" asks for an organization's.
ZH_KIND_NOUNS = {
    "组织": "organization",
    "用户": "user",
    "仓库": "repository",
    "频道": "channel",
    "镜像": "image",
    "项目": "project",
    "社区": "community",
    "播放列表": "playlist",
    "话题": "topic",
    "小组": "group",
    "条目": "subject",
    "插件": "plugin",
    "主播": "streamer",
    "扩展": "extension",
}
INDEFINITE_ZH = (
    *str.split(
        "某个 某位 某些 某一 这个 那个 这位 那位 这些 那些 一个 一位 哪个 哪位 哪些 任意 有个"
    ),
    *str.split("我们 我的 你们 你的 他们 她们 自己 团队 公司 同事 朋友 家人 常用 经常 在用"),
)
FILLER_ZH = sorted(
    {
        *ZH_STOP,
        *INDEFINITE_ZH,
        *str.split(
            """标签 文章 结果 搜索 资讯 新闻 动态 内容 视频 帖子 热帖 更新 推送 评论 之 我 关注 喜欢
            收藏 关于 热搜 热榜 榜单 快讯 用户 话题 热门 最热 推荐 精选 热点 头条 说什么 好的 有没有
            相关 情况 进展 有新 用的 主题 镜像 首页 主页 怎么 怎么看 如何 怎样 哪些 出新 发新
            记录 日志 有关 新帖 新作 新游戏 新番 笔记 作品 新作品 来一份 来点 聊啥 在聊 都在聊 啥
            热搜榜 分类 板块 每天 每日 天天 推给 随时 订阅 一下 通知我 提醒我 一有 变动 官网 盯着
            就通知 就提醒 訂閱 幫我 有沒有 最近有 东西 我订 订一个 最多 只要 那种 那些 值得 能不能
            第一时间 知道 重要 的话 博客 播客 漫画 办法 上次 突然 地址 源 订阅源 网站 追踪
            跟踪 能用 可唔可以 可唔 阅读器 爸妈 父母 放进 放到 加进 加到 麻烦 唔想 成日"""
        ),
    },
    key=len,
    reverse=True,
)
FILLER_ZH_SET = frozenset(FILLER_ZH)  # to ask of a whole word
# Characters of Cantonese's grammar alone (what, of, some, done, that...), never a name's part
CANTONESE_PARTICLES = tuple("\u54a9\u5605\u5572\u5497\u55f0\u55ba\u5187\u4e5c\u5622\u54cb")
# cut anywhere: no single character, but Cantonese's particles (有咩新: what is new)
FILLER_ZH_WORDS = [w for w in FILLER_ZH if len(w) > 1] + list(CANTONESE_PARTICLES)

# A concept of feed, its English stems and Chinese words.
INTENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "release": (
        ("release", "version", "changelog"),
        ("发行版", "发布版", "版本", "发版", "更新日志"),
    ),
    "commit": (("commit",), ("提交",)),
    "discussion": (("discussion",), ("讨论",)),
    "issue": (("issue", "bug"), ("议题", "问题")),
    "pull": (("pull", "pr", "prs"), ("拉取请求", "合并请求")),
    "tweet": (("tweet", "tweeted", "tweeting"), ("推文",)),
    "trend": (
        ("trend", "trends", "trending", "hot", "hottest"),
        ("趋势", "热搜", "热门", "最热", "最火", "热榜"),
    ),
    "rank": (
        ("rank", "ranking", "rankings", "leaderboard", "chart", "charts"),
        ("排行", "排名", "排行榜", "榜"),
    ),
    "bookmark": (
        ("bookmark", "bookmarked", "fav", "faved", "favourite", "favorite", "favorited", "collect"),
        ("收藏",),
    ),
    "like": (("like", "liked", "likes"), ("点赞", "喜欢")),
    "coin": (("coin",), ("投币",)),
    "activity": (("activity", "activities", "event", "events"), ("动态", "事件")),
    "post": (("post", "status", "statuses", "toot"), ("投稿", "发帖")),
    "tag": (("tag", "tags"), ("标签",)),
    "topic": ((), ("话题",)),  # "topics" in English is any site's (GitHub's) as well
    "build": (("build", "builds"), ("构建",)),
    "blog": (("blog",), ("博客",)),
    "model": (("model",), ("模型",)),
    "answer": (("answer",), ("回答",)),
    "pin": (("pin", "pins"), ("想法",)),
    "star": (("star", "starred", "stars"), ("星标", "标星")),
    "branch": (("branch", "branches"), ("分支",)),
    "follower": (("follower", "followers"), ("粉丝",)),
    "contributor": (("contributor", "contributors"), ("贡献者",)),
    "comment": (("comment", "comments", "reply", "replies"), ("评论", "回复", "吐槽")),
    # the comments flown over a video, a kind of their own
    "danmaku": (("danmaku", "danmu"), ("弹幕",)),
    "paper": (("paper", "papers"), ("论文",)),
    # news told as it comes, a line at a time
    "flash": (("flash", "flashes", "newsflash", "newsflashes"), ("快讯",)),
    "video": (("video", "videos", "upload"), ("视频",)),
    # a stream going on now, and the times of those to come
    "live": (("live", "streaming"), ("直播", "开播")),
    "schedule": (("schedule",), ("日程", "时间表", "排期")),
    # what a thing costs and its drops: a price-drop alert, a store's deals
    "price": (("price", "prices", "discount", "discounts"), ("价格", "降价", "折扣", "打折")),
    # a feed's language, where a site has one per language (/blog and /blog-zh)
    "english": (("english", "en"), ("英文", "英语")),
    "chinese": (("chinese", "zh", "cn"), ("中文", "汉语")),
    # a topic marked to look for ("about X", 关于X) asks for a search of it
    "search": (
        ("search", "keyword", "about", "mentioning", "regarding", "concerning"),
        ("搜索", "搜一下", "关键词", "关键字", "关于", "提到", "提及", "涉及"),
    ),
}
LATIN_WORD_RE = re.compile(r"[a-z0-9]+")
# A verb's past form in lower case ("launched", "picked"): how something is put, never a name.
PAST_FORM_RE = re.compile(r"[a-z]{3,}[^e]ed")
# Verbs that only carry another ("requests that *got* closed"): never a name either.
LIGHT_VERBS = frozenset(str.split("got get gets getting been being become became"))


def plural_stem(word: str) -> str:
    """A Latin plural's singular, roughly: "events" is event, "class" stays."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


# 搜 said as a verb (搜一下“具身智能”, 搜 tauri) asks for a search as 搜索 does; not 热搜 (a
# hot list), nor 搜狐 or 搜狗 (sites)
SEARCHED_RE = re.compile(r"(?<!热)搜(?![索狐狗])")
# A kind of feed's word inside another thing's name: a press release is no software release
NOT_INTENT_RE = re.compile(r"\bpress[\s_-]+releases?\b")


def intents_of(text: str) -> frozenset[str]:
    """The concepts of feed ``text`` names (a question, or a route's name and path words).
    English words match whole, a plural as its singular; Chinese words anywhere."""
    folded = NOT_INTENT_RE.sub(" ", text.casefold())
    words = set(LATIN_WORD_RE.findall(folded.replace("_", " ")))
    words |= {plural_stem(w) for w in words}
    found = set()
    for concept, (latin, chinese) in INTENTS.items():
        if words & set(latin) or any(w in folded for w in chinese):
            found.add(concept)
    return frozenset(found | ({"search"} if SEARCHED_RE.search(folded) else set()))


# What the question says it does not want: "not full vods", "readouts, not every press release",
# "不是视频哈", "文章和想法不用", "不要热门的". "Not just" and "not only" take it as well, and
# 要不要 and 是不是 ask rather than turn down.
_BREAK = "\uff0c,\u3002.;\uff1b!\uff01?\uff1f()\uff08\uff09\\s"  # punctuation, space
# How items are ordered: "sorted by heat", "ranked by votes", 按点击最多排, 按时间倒序. No one
# named after its "by", and never a topic.
ORDERED_BY_RE = re.compile(
    r"\b(?:sort|rank|order)(?:ed|ing)?\s+by\s+(?:(?:latest|last|newest|most|recent)\s+)?[\w\-]+"
    r"|\u6309\s*\S{1,6}?\s*(?:\u6392|\u5012\u5e8f|\u987a\u5e8f|\u964d\u5e8f|\u5347\u5e8f)",
    re.I,
)
NEGATED_RE = re.compile(
    r"\b(?:not|don't|can't|cannot|no|without|except(?:\s+for)?|excluding|rather\s+than|instead\s+of"
    r"|other\s+than)\s+(?!just\b|only\b)(?:(?:the|a|an|any|every|all|full)\s+){0,2}"
    r"[\w\-]+(?:\.[\w\-]+)*(?:\s+(?!but\b)[\w\-]+){0,2}"  # "not leetcode.cn": the address
    rf"|(?:(?<!\u662f)\u4e0d\u662f|(?<!\u8981)\u4e0d\u8981|\u4e0d\u9700\u8981|\u65e0\u9700|\u4e0d\u7528"
    rf"|\u4e0d\u542b|\u4e0d\u770b"  # 不是, 不要, 不需要, 无需, 不用, 不含, 不看
    rf"|\u4e0d\u60f3|\u5514\u60f3|\u5514\u8981"  # 不想, and Cantonese 唔想, 唔要
    rf"|\u4e0d\u6311|\u4e0d\u9650|\u4e0d\u7ba1"  # 不挑, 不限, 不管: none in particular
    rf"|\u9664\u4e86|\u800c\u975e|\u6392\u9664)[^{_BREAK}]{{1,8}}"
    rf"|[^{_BREAK}]{{1,10}}(?:\u4e0d\u7528|\u4e0d\u8981|\u4e0d\u9700\u8981)\u4e86?(?=[{_BREAK}]|$)",
    re.I,
)


def asked_intents(question: str) -> frozenset[str]:
    """The kinds of feed a question asks for, those it says it does not want left out."""
    return intents_of(NEGATED_RE.sub(" ", question))


INTENT_WORDS = frozenset(w for latin, chinese in INTENTS.values() for w in (*latin, *chinese))


def intent_word(word: str) -> bool:
    """``word`` is, whole, a word for a kind of feed (点赞, releases): it says which feed, never
    what to search for in one."""
    low = word.casefold().strip(".'-_")
    return low in INTENT_WORDS or plural_stem(low) in INTENT_WORDS


def filler_en(word: str) -> bool:
    """A Latin word that is never a subject: stop word, filler or kind of thing."""
    low = word.casefold().strip(".'-_")
    return low in EN_STOP or low in FILLER_EN or low in KIND_EN


def indefinite_en(word: str) -> bool:
    return word.casefold().strip(".'") in INDEFINITE_EN


# Where a clause of an English question ends, and one about the asker: "I run an Unraid
# server", "so I'm a fan", not "I want...", "I'd like...", "I only care about...".
CLAUSE_BREAK_RE = re.compile(r"[,;:!?()\u2014\u2013]|\.(?!\S)|\s-\s|\band\b", re.I)
ASKER_FACT_RE = re.compile(
    r"\s*(?:so\s+|also\s+|btw\s+)?(?:i|i'm|i've|we|we're|we've|my\s+\w+|our\s+\w+)\s+"
    r"(?!(?:want|wanna|need|would|like|love|wish|hope|care|follow|subscribe|am|are|can|could"
    r"|should|don't|do|only|just|really|mostly|interested|check|read|watch|keep|into|looking"
    r"|trying|searching)\b)",
    re.I,
)


def asker_clauses(question: str) -> list[tuple[str, bool]]:
    """The clauses of an English ``question``, each with whether it is about the asker ("I run
    an Unraid server", "I live in Singapore"): how they come to ask, not what they ask for."""
    return [(c, ASKER_FACT_RE.match(c) is not None) for c in CLAUSE_BREAK_RE.split(question)]


# Where the asker lives: "I live in Singapore", 家在成都. Said of themselves, it asks for no
# section of a site (their store's region aside: ``agent.routes.settings``).
RESIDENCE_RE = re.compile(
    r"\bi(?:'m|\s+am)?\s+(?:live|living|based|located)\s+in\b[^,.;:!?\u2014\u2013]*"
    r"|(?:家在|住在|人在|身在)[^\s\uff0c,\u3002\uff1b;\uff01!\uff1f?]{1,10}",
    re.I,
)
