"""The rewrite node's offline method (``agent.rewrite``): a question (and its thread) -> a
self-contained query.

Rules, not a model: the language from the script, the time window from time words in Chinese
and English, keywords from what is left after question words and time words are removed. The
``Rewrite`` and ``TimeWindow`` it yields, and its word lists, are what the later nodes read.
"""

import re
import zoneinfo
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.utils import timezone

from catalog.search import MAX_QUESTION_CHARS
from catalog.segment import zh_words

CARRIED_KEYWORDS = 6  # earlier topic words a follow-up carries
CARRIED_KEYWORD_CHARS = 40

CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RE = re.compile(f"[{CJK}]")
# An address's scheme and "www.": how it is written, not what it names (its host stays a word).
SCHEME_RE = re.compile(r"\bhttps?://(?:www\.)?", re.I)
# Latin letters with their accents (Wiadomości, Müller, café): one word, not three
LATIN = "A-Za-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
WORD_RE = re.compile(
    rf"[{LATIN}]*[{CJK}][{CJK}{LATIN}]*|[{LATIN}][{LATIN}+#.\-']*[{LATIN}+#]|[{LATIN}]"
)

ZH_NUMBERS = {
    "一": 1,
    "两": 2,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
}

# Question and filler words that say nothing about the topic.
ZH_STOP = [
    "最近",
    "最新",
    "近期",
    "目前",
    "现在",
    "当前",
    "刚刚",
    "有什么",
    "有哪些",
    "什么",
    "哪些",
    "怎么样",
    "如何",
    "是什么",
    "值得注意",
    "值得",
    "注意",
    "消息",
    "上面",
    "上的",
    "里面",
    "大家",
    "在讨论",
    "讨论",
    "在聊",
    "一下",
    "看看",
    "告诉我",
    "请问",
    "的",
    "了",
    "吗",
    "呢",
    "吧",
    "啊",
    "在",
    "是",
    "有",
    "和",
    "与",
    "及",
    "上",
    "里",
    "今天",
    "今日",
    "昨天",
    "本周",
    "这周",
    "本月",
    "这个月",
    "实时",
    "发了",
    "发布了",
    "发布",
]
EN_STOP = frozenset(
    str.split(
        """a an the of on in at to for from by with about under within among amongst across what
    whats what's which who who's whos is are was were be been do does did doing any some new newest
    latest recent recently today tonight yesterday now since until
    right current currently this that these those week month year there here me my i you your
    tell show give list please can could would should how happening happened going news update
    updates headlines top most just past last days hours ago and or on whats's front page"""
    )
)

ZH_STOP_SET = frozenset(ZH_STOP)
ZH_STOP_CUT_RE = re.compile(
    "|".join(map(re.escape, sorted((w for w in ZH_STOP if len(w) > 1), key=len, reverse=True)))
)

WINDOW_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"今天|今日|today|tonight|this morning", re.I), "today"),
    (re.compile(r"昨天|昨日|yesterday", re.I), "yesterday"),
    (re.compile(r"本周|这周|这一周|this week", re.I), "this_week"),
    (re.compile(r"本月|这个月|this month", re.I), "this_month"),
    (re.compile(r"刚刚|实时|此刻|right now|breaking|live", re.I), "last_24h"),
]
RELATIVE_RULES: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"(?:过去|最近|近)\s*(\d+|[一两二三四五六七八九十])\s*(?:个)?(小时|天|日|周|星期)"
        ),
        "zh",
    ),
    (re.compile(r"(?:past|last)\s+(\d+)\s+(hour|day|week)s?", re.I), "en"),
]
UNIT_HOURS = {
    "小时": 1,
    "hour": 1,
    "天": 24,
    "日": 24,
    "day": 24,
    "周": 168,
    "星期": 168,
    "week": 168,
}


@dataclass(frozen=True)
class TimeWindow:
    label: str  # "latest" when no time word: the newest items, whatever their age
    start: datetime | None = None
    end: datetime | None = None


@dataclass(frozen=True)
class Rewrite:
    query: str
    language: str
    keywords: list[str] = field(default_factory=list)
    window: TimeWindow = TimeWindow("latest")
    method: str = "rules"

    def as_payload(self) -> dict:
        """The ``query_rewritten`` step payload."""
        window = self.window
        return {
            "query": self.query,
            "language": self.language,
            "keywords": self.keywords,
            "method": self.method,
            "window": {
                "label": window.label,
                "start": window.start.isoformat() if window.start else None,
                "end": window.end.isoformat() if window.end else None,
            },
        }


def language_of(text: str) -> str:
    return "zh" if CJK_RE.search(text) else "en"


def _local_midnight(now: datetime) -> datetime:
    local = now.astimezone(zoneinfo.ZoneInfo(settings.TIME_ZONE))
    return local.replace(hour=0, minute=0, second=0, microsecond=0)


def time_window(text: str, *, now: datetime | None = None) -> TimeWindow:
    """The period a question asks about, from its time words; "latest" when it names none."""
    now = now or timezone.now()
    for pattern, _language in RELATIVE_RULES:
        if match := pattern.search(text):
            amount = match.group(1)
            count = int(amount) if amount.isdigit() else ZH_NUMBERS[amount]
            hours = min(count * UNIT_HOURS[match.group(2).lower()], 24 * 366)
            return TimeWindow(f"last_{hours}h", now - timedelta(hours=hours), now)
    for pattern, label in WINDOW_RULES:
        if pattern.search(text):
            return named_window(label, now=now)
    return TimeWindow("latest")


def named_window(label: str, *, now: datetime | None = None) -> TimeWindow:
    """The window of a label: today, yesterday, this_week, this_month or last_24h."""
    now = now or timezone.now()
    midnight = _local_midnight(now)
    starts = {
        "today": midnight,
        "yesterday": midnight - timedelta(days=1),
        "this_week": midnight - timedelta(days=midnight.weekday()),
        "this_month": midnight.replace(day=1),
        "last_24h": now - timedelta(hours=24),
    }
    end = midnight if label == "yesterday" else now
    return TimeWindow(label, starts[label].astimezone(UTC), end)


def keywords_of(text: str) -> list[str]:
    """Topic words: Latin words without stopwords, CJK runs without question and time words."""
    for pattern, _language in RELATIVE_RULES:
        text = pattern.sub(" ", text)
    text = SCHEME_RE.sub(" ", text)
    words: list[str] = []
    for token in WORD_RE.findall(text):
        if CJK_RE.search(token):
            words.extend(_cjk_keywords(token))
        elif token.lower() not in EN_STOP:
            words.append(token)
    return list(dict.fromkeys(w for w in words if w))[:12]


def _cjk_keywords(run: str) -> list[str]:
    """A run's topic phrases: its words (a real segmenter's, so 上海 keeps its 上) with the question
    and time words taken out; the words left next to each other stay one phrase (小米汽车交付量:
    a search takes it whole, the topic check reads its words, ``agent.summary.subject``)."""
    phrases: list[str] = [""]
    for word in zh_words(run):
        if word in ZH_STOP_SET:
            phrases.append("")
            continue
        pieces = ZH_STOP_CUT_RE.split(word)  # a stop word inside a word (最新消息)
        phrases[-1] += pieces[0]
        for piece in pieces[1:]:
            phrases.append(piece)
    return [p for p in phrases if len(p) >= 2 or (p in "书报" and p)]


def rewrite_offline(
    question: str, *, thread: list[str] = (), now: datetime | None = None
) -> Rewrite:
    """Rewrite by rules. ``thread`` holds the earlier questions of a follow-up, oldest first."""
    window = time_window(question, now=now)
    keywords = keywords_of(question)
    query = question
    if thread:
        # A follow-up leans on its thread: carry the earlier topic words the new question lacks,
        # and the earlier time window when it names none of its own.
        earlier = [k[:CARRIED_KEYWORD_CHARS] for q in thread for k in keywords_of(q)]
        earlier = list(dict.fromkeys(k for k in earlier if k not in keywords))[:CARRIED_KEYWORDS]
        if earlier:
            # The catalog search refuses a query over its limit: the question gives way.
            carried = f" ({' '.join(earlier)})"
            query = question[: MAX_QUESTION_CHARS - len(carried)] + carried
            keywords = keywords + earlier
        if window.label == "latest":
            window = time_window(" ".join(thread), now=now)
    return Rewrite(query=query, language=language_of(question), keywords=keywords, window=window)
