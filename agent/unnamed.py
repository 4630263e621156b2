"""What says a subject is there but left unnamed: "some GitHub user", 某位 UP 主, a kind of
subject the asker's clause or possessive says which ("the channel *I follow*", "*our* project's
repository", "*我关注的*频道"). Such a question asks for the subject; it is never read as asking
for no one (``subject_unnamed``), and its words are never a name."""

import re

from agent.vocabulary import EN_KIND_NOUNS, KIND_EN, ZH_KIND_NOUNS
from catalog.segment import zh_ends_as_function

# Words that say a subject is there but left unnamed ("some GitHub user", "某位 UP 主"): such a
# question asks for one, it is not read as asking for no one. "Some", "certain", "particular"
# and "specific" are said of a thing that follows ("a specific country"), not of one before
# them ("nothing country specific", "country-specific", "in particular").
# Words that leave the one they lead unnamed: "some user", "a certain channel"
UNNAMING_EN = ("some", "certain", "particular", "specific")
UNNAMED_EN_RE = re.compile(
    r"(?<![\w-])(?:someone|somebody)(?![\w-])"
    # "what anime a friend is following": one of the asker's circle, unnamed
    r"|(?<![\w-])a\s+(?:friend|colleague|coworker|classmate)(?![\w-])"
    rf"|(?<![\w-])(?:{'|'.join(UNNAMING_EN)})\s+(?=[\w@])"
)
# "想订阅其中一种": one of things just said, none named
ONE_OF_THEM_ZH = ("其中一个", "其中一种", "其中之一")
# and Cantonese's 嗰个 ("that one"), as the simplifier writes it too
UNNAMED_ZH = (
    *str.split("某个 某位 某些 某一 某人 哪个 哪位 那位 这位 有个 有一个 嗰个 嗰位"),
    *ONE_OF_THEM_ZH,
    "我所在",  # where I am
    *str.split("某部 某本 某款 某篇 某首 某期"),  # some work: 某部动画
    *("\U00020bb6\u4e2a", "\U00020bb6\u4f4d"),
)

# A kind of subject the asker says which by a clause or a possessive, not by a name.
# Kinds a route's setting takes, said which by the asker's clause the same way ("the category my
# coworker recommends", "the operating system my NAS runs"); never a subject themselves.
SETTING_KINDS_EN = frozenset(
    str.split(
        "category categories section sections column columns series system systems list lists"
        " board boards forum forums subforum subforums"
    )
)
# What a search is for: "a keyword I keep searching", "a search I care about" name none
SEARCH_KINDS_EN = frozenset(
    str.split("keyword keywords term terms query queries hashtag hashtags search searches")
)
# What the asker listens to or watches: "that radio show I listen to"
SHOWS_EN = frozenset(
    str.split("show shows program programs programme programmes station stations anime animes")
)
# The people an asker has ("my thesis advisor"): someone unnamed, said so
ROLES_EN = frozenset(
    str.split(
        "advisor advisors adviser supervisor supervisors mentor mentors guy guys singer singers"
        " researcher researchers scientist scientists professor professors journalist journalists"
        " writer writers reporter reporters columnist columnists"
        # one of the asker's circle: "what's my coworker been doing on GitHub"
        " friend friends colleague colleagues coworker coworkers classmate classmates"
        " roommate roommates teammate teammates boss"
    )
)
# What the asker uses: "the tool we use at work"
WARES_EN = frozenset(str.split("tool tools app apps software framework frameworks"))
_KINDS = "|".join(
    sorted(
        EN_KIND_NOUNS
        | KIND_EN
        | SETTING_KINDS_EN
        | SEARCH_KINDS_EN
        | ROLES_EN
        | SHOWS_EN
        | WARES_EN,
        key=len,
        reverse=True,
    )
)
# "the channel (that) I follow", "the game my friend plays", "one author on Voronoi whose
# charts I love"
KIND_ASKERS_EN = re.compile(
    rf"\b(?:{_KINDS})\s+(?:that\s+|which\s+|who\s+)?(?:i|we|you|my|our|your)\b"
    rf"|\b(?:{_KINDS})\s+(?:[\w.'\u2019()-]+\s+){{0,3}}?whose\b"  # (a name glossed)
    # "a creator on bilibili I like": where it is, then the asker's clause
    rf"|\b(?:a|an|one)\s+(?:{_KINDS})\s+(?:on|in|at)\s+(?:[\w.'\u2019-]+\s+){{1,2}}?(?:i|we)\s"
)
# "our project's repository", "my favourite YouTube channel": a possessive, then within three
# words a kind of subject
ASKERS_KIND_EN = re.compile(rf"\b(?:my|our|your)\s+(?:[\w.'\u2019-]+\s+){{0,3}}?(?:{_KINDS})\b")
# "a YouTuber's uploads", "an org's models": one of a kind, owning, said which by no name;
# "one of the Supercell games", "one of my favourite channels": one of them, which unsaid
# "a few sections, I want one of them": one of things just said, none named
ONE_OF_THEM_EN = re.compile(
    r"\bone\s+of\s+(?:them|these|those|(?:the|its|their)\s+[a-z]+s)\b"
    r"|\bthe\s+one\s+(?:that\s+|which\s+)?(?:i|we|my|our)\b",  # "the one our office follows"
    re.I,
)
ONE_OF_KIND_EN = re.compile(
    rf"\b(?:a|an|one)\s+(?:{_KINDS})(?:'s|\u2019s)"
    rf"|\bone\s+of\s+(?:the|my|our|his|her|their)\s+(?:[\w.'\u2019-]+\s+){{0,2}}?(?:{_KINDS})\b"
)
# "how do I follow a public telegram channel": one of a kind to follow, which unsaid
FOLLOWED_KIND_EN = re.compile(
    rf"\b(?:follow|following|subscribe\s+to|subscribing\s+to|track|tracking|keep\s+up\s+with)"
    rf"\s+(?:a|an)\s+"
    rf"(?:[\w.'\u2019-]+\s+){{0,2}}?(?:{_KINDS})\b(?!\s+(?:called|named)\b|'s|\u2019s)"
)
_ZH_KINDS = "|".join(
    [
        *ZH_KIND_NOUNS,
        *str.split("游戏 博主 主播 账号 公众号 应用 作者 专栏 小组 帖子 贴吧 鱼吧 播客"),
        *str.split("up主 大V 大v"),
        *str.split("专辑 电台 漫画 课程 番剧 节目 书 小说 app 软件 答主 歌手 画师 剧 电影"),
        # the sections of a site, which one said by the asker alone: 我常逛的那个版块
        *str.split("版块 板块 栏目 专题 分区 论坛"),
        # what the asker follows or sits: 我一直在追的那本期刊, 我报名的那个考试
        *str.split("期刊 杂志 考试 比赛"),
        # a place of a forum's: 关注的 V2EX 节点
        *str.split("节点 扩展 插件"),
        # what a search is for: 一个我关心的检索条件, 我常搜的关键词
        *str.split("关键词 关键字 检索词 检索条件 检索式 搜索词 搜索条件"),
        "up 主",
    ]
)
# Kinds of subject that are people or their accounts.
_ZH_PEOPLE = "|".join(
    [*str.split("主播 博主 答主 作者 用户 up主 账号 画师 歌手 设计师 大佬 太太 大V 大v"), "up 主"]
)
# "我关注的频道", "朋友运营的 Telegram 频道", "我关注的那个 B 站 UP 主", "我昨天在 V2EX 发的那个
# 帖子": the asker's circle, a short clause (spaces only around Latin words), 的, then (after
# 那个 or a platform's name, at most) a kind of subject
# (not one told: 帮我, 给我; nor what the asker wants: "我想看 V2EX 最热的帖子" is no clause)
_TOLD_NOT = "(?<![给帮让跟叫替为诉])"
_WANTS_NOT = "(?!想|要|需要|希望|看)"
ASKERS_KIND_ZH = re.compile(
    rf"{_TOLD_NOT}(?:我们?|你们?|朋友|同事|团队|公司|自己|家人){_WANTS_NOT}"
    rf"(?:[^\s\uff0c\u3002\uff1f\uff01\u3001的]|\s(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])\s){{0,20}}的"
    rf"[^\uff0c\u3002\uff1f\uff01\u3001的]{{0,16}}?(?:{_ZH_KINDS})"
)
# or a kind in the asker's own list or place: 我愿望单里那个游戏, 我收藏夹里的视频
ASKERS_PLACE_ZH = re.compile(
    rf"{_TOLD_NOT}我们?{_WANTS_NOT}的?[\u4e00-\u9fff]{{1,6}}[里中]的?"
    rf"(?:那[个部款本位])?\s*(?:{_ZH_KINDS})"
)
# or the asker's own place or body, right after them: "我们区县的政府公开信息", "我们这边"
ASKERS_OWN_ZH = re.compile(
    r"(?:我们|咱们|我的|我们的)\s*(?:区县|县区|城市|学校|学院|单位|区|这边|这里|这儿|本地|当地)(?!域|别)"
    # or someone of the asker's circle: 我导师的新论文, 我同学的仓库
    rf"|{_TOLD_NOT}我的?\s*(?:导师|老师|老板|同学|同事|朋友|室友|男朋友|女朋友|老公|老婆)"
)

# "关注的一个UP主", "我装的一个 Chrome 扩展", "有个 app": one of a kind, said which by no name
# (a Latin word between them qualifies the kind: a Chrome extension)
ONE_OF_KIND_ZH = re.compile(
    rf"(?:一个|一位|有个|有一个|某个|某位|有部|一部|某部|有本|一本|某本|有款|一款|某款)"
    # (a word of two characters may say what sort: 一个 Telegram 公开频道, 一个好用的 Chrome 扩展)
    rf"\s*(?:[\u4e00-\u9fff]{{1,3}}的\s*)?(?:[A-Za-z][\w.\-]{{0,15}}\s*)?(?:[\u4e00-\u9fff]{{2}})?"
    rf"(?:{_ZH_KINDS})"
    # one of the people who post, a short Chinese word between (a platform's name, an
    # adjective): 一个斗鱼主播, 一位知乎答主, 一个有趣的博主, 那个雪球大V
    rf"|(?:一个|一位|有个|有一个|某个|某位|那个|那位)[\u4e00-\u9fff]{{0,4}}的?\s*(?:{_ZH_PEOPLE})"
    # an account on a platform, its name and 号: 一个搜狐号, 某个头条号, 有个百家号
    rf"|(?:一个|有个|有一个|某个)[\u4e00-\u9fff]{{1,3}}号"
    # "那个视频的评论区": that one of a kind, no name after it nor clause before (讲年画的那个栏目)
    rf"|(?<!的)那个\s*(?:{_ZH_KINDS}|视频)(?=的|[\s\uff0c\u3002\uff1f\uff01,.?!]|$)",
    re.I,
)


def subject_unnamed(text: str) -> bool:
    """``text`` says it has a subject in mind without naming it: some user, 某位 UP 主, a kind
    of subject the asker's clause or possessive says which ("the channel *I follow*", "*our*
    project's repository", "*我关注的*频道")."""
    folded = text.casefold()
    return (
        UNNAMED_EN_RE.search(folded) is not None
        or any(w in folded for w in UNNAMED_ZH)
        or ASKERS_KIND_EN.search(folded) is not None
        or ONE_OF_KIND_EN.search(folded) is not None
        or FOLLOWED_KIND_EN.search(folded) is not None
        or ONE_OF_THEM_EN.search(folded) is not None
        or KIND_ASKERS_EN.search(folded) is not None
        or ASKERS_KIND_ZH.search(folded) is not None
        or ASKERS_OWN_ZH.search(folded) is not None
        or ASKERS_PLACE_ZH.search(folded) is not None
        or any(not _named_before(folded, m) for m in ONE_OF_KIND_ZH.finditer(folded))
    )


def _named_before(text: str, match: re.Match[str]) -> bool:
    """ "美股那个分区": the kind's name comes before 那个, as no verb nor particle does (我常看
    那个分区)."""
    if not match.group(0).startswith("那个"):
        return False
    run = re.search(r"[\u4e00-\u9fff]{2,}$", text[: match.start()])
    return run is not None and not zh_ends_as_function(run.group(0))
