"""The words that mark a subject's value in a question, and what they mark: a name after "by"
or 用户 (``AUTHOR_MARKERS``), a topic after "about" or 搜索 (``EN_PHRASE_MARKERS``,
``ZH_TOPIC_MARKERS``), a name before 话题 or 吧 (``ZH_BEFORE_MARKERS``). Read by
``agent.routes.entities``.
"""

import re

# A demonstrative between a name and its marker: "可转债 这个话题".
THIS_RE = re.compile(r"(?:这个|那个|这位|那位|这一)$")
# Auxiliaries before a verb's -ing form ("has been uploading", "is streaming").
PARTICIPLE_LEADS = frozenset(str.split("been is are was were be am"))
EN_PHRASE_MARKERS = (
    *("about", "search for", "search", "searching for", "tagged", "called", "named"),
    *("mentioning", "mention", "mentions", "regarding", "concerning"),
)
# What a search is called before what it looks for ("the search term neutrino"): no part of it.
SEARCH_NOUNS = frozenset(
    str.split("term terms keyword keywords query queries phrase string word words")
)
TOPIC_LEADS = frozenset(("about", "regarding", "concerning", "mentioning", "mention", "mentions"))
EN_WORD_MARKERS = frozenset(
    str.split(
        """of from by for tag user package app repo repository channel account author org
    organization image project subreddit group creator uploader member id reporter journalist
    columnist"""
    )
)
# What follows these is a topic to search for, not an account or a name.
ZH_TOPIC_MARKERS = ("关于", "搜索", "搜一下", "搜搜", "关键词", "关键字", "提到", "提及", "涉及")
ZH_AFTER_MARKERS = (
    "作者",
    "UP 主",
    "UP主",
    "up 主",
    "up主",
    "用户",
    "博主",
    "频道",
    "话题",
    "账号",
    "仓库",
    "标签",
    "房间",
    "直播间",
    "条目",
    "小组",
)
# What follows these names someone (an account), not a topic or a tag.
AUTHOR_MARKERS = (
    *str.split("from by user author account creator uploader member"),
    *("作者", "UP 主", "UP主", "up 主", "up主", "用户", "博主", "账号"),
)
ZH_BEFORE_MARKERS = (
    *("标签", "话题", "频道", "专栏", "仓库", "圈子", "吧", "用户", "博主", "房间", "直播间"),
)
PERSON_BEFORE_MARKERS = ("用户", "博主")  # of those, the ones after a person's name
