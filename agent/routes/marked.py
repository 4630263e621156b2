"""The word a marker introduces in a question: the name after 作者, UP 主, "by", "user" or
"package", the phrase after "about" or 搜索, the name before 标签, 话题 or 吧; and where none is
given ("UP 主的最新投稿", "the repo I care about", "by the lab I follow"). The markers are
``agent.routes.markers``'; ``agent.routes.entities`` reads a question's subjects with them."""

import itertools
import re
from collections.abc import Iterable

from agent.question import EN_STOP
from agent.routes.forms import (
    CJK_RE,
    LATIN,
    POSSESSIVE_RE,
    RUN_RE,
    TOKEN_RE,
    WORD_TOKEN_RE,
    ZH_SPAN_WORD_RE,
)
from agent.routes.markers import (
    EN_PHRASE_MARKERS,
    EN_WORD_MARKERS,
    PARTICIPLE_LEADS,
    SEARCH_NOUNS,
    THIS_RE,
    TOPIC_LEADS,
    ZH_BEFORE_MARKERS,
    ZH_TOPIC_MARKERS,
)
from agent.routes.words import GENERIC, PEOPLE, describes, feeds_named, usable
from agent.unnamed import UNNAMED_ZH, UNNAMING_EN
from agent.vocabulary import (
    CLAUSE_PRONOUNS,
    EN_KIND_NOUNS,
    FILLER_ZH,
    INDEFINITE_EN,
    INDEFINITE_ZH,
    LIGHT_VERBS,
    OWNERS,
    PAST_FORM_RE,
    PUT_EN,
    intent_word,
)
from catalog.segment import zh_ends_as_function, zh_leads_as_function, zh_placed_less

# Where a Chinese word ends: filler of two characters or more, and the particles. Single
# characters such as 上 or 在 start words too (上海), so they do not cut.
ZH_CUT = [w for w in FILLER_ZH if len(w) > 1] + ["的", "了", "吗", "呢", "吧", "啥"]
GLUED_RE = re.compile(rf"[{LATIN}]+(?![{LATIN}_.\-/@])", re.ASCII)
# Particles that lead a verb's object (把仓库, 被): what stands before them names no one
OBJECT_LEADS = ("\u628a", "\u88ab")  # 把, 被
# Where a clause ends: a comma, a semicolon, a question or exclamation mark, a full stop
CLAUSE_END_RE = re.compile(r"[,;!?\uff0c\u3002\uff1b\uff01\uff1f\u3001]|\.(?:\s|$)")
NAMING_EN = frozenset({"named", "called"})
# What leaves the one a marker names unnamed: "a certain user", "some user", "any user"
UNNAMING_BEFORE = frozenset((*UNNAMING_EN, "any"))
APPOSED_KINDS = EN_KIND_NOUNS | {"tag", "tags"}  # the name a kind follows: "the alpine tag"
LATIN_TAIL_RE = re.compile(r"(.*[^\x00-\x7f])([A-Za-z][\w.+#\-]*)")


def zh_word(run: str) -> str:
    """The first word of a CJK run: up to the first filler word (的, 最新, 文章...); a single
    character is no word."""
    while run:
        cuts = [run.find(f) for f in ZH_CUT if f in run]
        cut = min(cuts, default=len(run))
        if cut > 0:
            return run[:cut] if cut > 1 or run[:cut].isascii() else ""
        run = run[max(len(f) for f in ZH_CUT if run.startswith(f)) :]
    return ""


def zh_content(run: str) -> str:
    """A CJK run without its filler words (文章, 更新, 最新...)."""
    for filler in ZH_CUT:
        run = run.replace(filler, " ")
    return "".join(run.split())


CONJUNCTIONS = frozenset(str.split("so then but because"))
# One of a kind, which unsaid: 一个, 某个, 有个
ONE_OF_ZH = ("一个", "一位", "某个", "某位", "有个")


def _zh_last_word(run: str) -> str:
    """The last word of a CJK run (what stands right before a marker such as 标签)."""
    ends = [run.rfind(f) + len(f) for f in ZH_CUT if f in run]
    word = run[max(ends, default=0) :]
    return word if len(word) > 1 or word.isascii() else ""


ZH_COPULAS = frozenset({"\u662f", "\u4e3a", "\u70ba"})  # 是, 为, 為 alone


def _after(
    text: str, start: int, excluded: set[str], *, phrase: bool = False, topic: bool = False
) -> str:
    """The word (or, for ``phrase``, up to four words) at ``start``, skipping stop words;
    ``topic``: after a Chinese topic's marker (关于), where a verb may start the topic."""
    words: list[str] = []
    previous, end = "", start
    for match in TOKEN_RE.finditer(text, start):
        token = match.group(0)
        skipped, previous = previous, token.lower()
        # "articles from Huxiu, the main feed": the marker's clause ends unnamed, unless a name
        # stands apart with its kind ("the nginx image on Docker Hub, the alpine tag")
        if (
            not words
            and CLAUSE_END_RE.search(text, end, match.start())
            and not _apposed(text, match.start())
        ):
            break
        end = match.end()
        if CJK_RE.match(token) and not words and token in ZH_COPULAS:
            continue  # "剧集id是 qEzRyY3v": the name follows the copula
        if CJK_RE.match(token):
            # "UP 主的最新投稿", "用户某位": the marker is possessed or its name left open.
            # A name marker's name stands right after it ("用户最近的回答" names no one).
            if not words and token.startswith(("的", *INDEFINITE_ZH, *([] if phrase else ZH_CUT))):
                break
            if not words and zh_leads_as_function(token, verbs=not topic):
                break  # "有个作者写得挺好", "up主我挺喜欢的": a verb or pronoun, no name, follows
                # (关于具身智能: a topic may start as a verb does)
            word = zh_word(token)
            # a name that runs on into Latin letters or digits is one name: 小米14, 华为Mate60
            if word == token and (glued := GLUED_RE.match(text, match.end())):
                word += glued.group(0)
            # "UP 主点赞的视频": a kind of feed after the marker names no one
            # "UP 主这两天": a span of time after the marker names no one either
            if (
                word
                and not describes(word.lower(), excluded)
                and not intent_word(word)
                and not ZH_SPAN_WORD_RE.fullmatch(word)
            ):
                words.append(word)
            break
        token = POSSESSIVE_RE.sub("", token)
        low = token.lower()
        if not words and (low in INDEFINITE_EN or low in PEOPLE or low in CONJUNCTIONS):
            break  # "the repo I care about", "from somebody I follow": no name is given
            # (nor "a reporter on Reuters so I can read them": a clause begins)
        if not words and low in OWNERS:
            break  # "the model my lab fine-tuned": the asker's own, which unnamed
        if not phrase and low in TOPIC_LEADS:
            break  # "posts from Hacker News about Tesla": what follows is a topic
        if not words and (low in EN_STOP or low in EN_WORD_MARKERS or low in NAMING_EN):
            continue  # "a user named zhang-jia-wei": the name follows
        if not words and (low in SEARCH_NOUNS or (phrase and low in GENERIC)):
            continue  # "search results on frieren", "for the word X": what is searched follows
        if phrase and words and low in PUT_EN:
            break  # "tagged Obsidian pls": how the question is put ends the phrase
        fits = usable(token, excluded) if not phrase else low not in EN_STOP and low not in excluded
        if not fits or low in EN_WORD_MARKERS or (not words and feeds_named(low)):
            break
        if not phrase and _clause_head(text, match.end()):
            break  # "by the lab I follow": the asker's clause says which, no name does
        if not phrase and not words and token.islower() and skipped.endswith("ly"):
            break  # "a feed for recently active projects": what an adverb leads is no name
        if not phrase and (PAST_FORM_RE.fullmatch(token) or low in LIGHT_VERBS):
            break  # "the image on Docker Hub picked up": a verb, no name
        if token.islower() and low.endswith("ing") and skipped in PARTICIPLE_LEADS:
            break  # "the Qwen org been uploading": a verb in its -ing form, no name
        if not phrase and (
            _feed_kind(low, text, match.end()) or _modifies_owned_kind(text, match.end())
        ):
            break  # "a feed of *pull* requests", "for the *Chrome* extension our team publishes"
        words.append(token.rstrip(".'"))
        if not phrase or len(words) == 4 or text[match.end() : match.end() + 1] in ",.;?!":
            break
    return " ".join(words)


def _apposed(text: str, start: int) -> bool:
    """The words from ``start`` name a kind of subject after its name ("the alpine *tag*")."""
    words = [w.casefold() for w in WORD_TOKEN_RE.findall(text[start : start + 40])]
    words = list(itertools.dropwhile(lambda w: w in EN_STOP, words))
    return len(words) > 1 and words[1] in APPOSED_KINDS


def _owned(text: str, start: int) -> bool:
    """A possessive pronoun stands right before ``start``: "*our* app", "*my* repo"."""
    before = WORD_TOKEN_RE.findall(text[max(0, start - 12) : start])
    return bool(before) and before[-1].casefold() in OWNERS


def _feed_kind(word: str, text: str, end: int) -> bool:
    """``word`` begins a word for a kind of feed: "*pull* requests" (not the "bug" of
    "labelled bug in ...")."""
    following = WORD_TOKEN_RE.findall(text[end : end + 20])[:1]
    return intent_word(word) and bool(following) and following[0].casefold() in GENERIC


def _modifies_owned_kind(text: str, end: int) -> bool:
    """The word ending at ``end`` qualifies a kind noun that heads a clause about the asker
    ("the Chrome *extension our team* publishes"): the asker's clause says which, no name."""
    following = [w.casefold() for w in WORD_TOKEN_RE.findall(text[end : end + 40])[:2]]
    return (
        len(following) == 2
        and following[0] in EN_KIND_NOUNS
        and following[1] in (CLAUSE_PRONOUNS | OWNERS)
    )


def _clause_head(text: str, end: int) -> bool:
    """The word ending at ``end`` heads a clause about the asker or someone unnamed: a
    personal pronoun follows it ("the lab *I* follow", "the repo *we* maintain")."""
    following = WORD_TOKEN_RE.search(text, end)
    if following is None or text[end : following.start()].strip():
        return False
    return following.group(0).casefold() in CLAUSE_PRONOUNS


def marked_after(text: str, markers: Iterable[str], excluded: set[str]) -> list[str]:
    """Values that follow one of ``markers`` (English markers match whole words)."""
    values = []
    for marker in markers:
        phrase = marker in EN_PHRASE_MARKERS
        topic = marker in ZH_TOPIC_MARKERS  # (关于具身智能: a topic may start as a verb does)
        # "organization's events": a possessive marker introduces nothing.
        # "gitlab.gnome.org/explore": a marker ending a host is none
        bound = rf"(?<![{LATIN}.]){re.escape(marker)}(?![{LATIN}']|\s*'s)"
        pattern = re.compile(bound if marker.isascii() else re.escape(marker), re.I)
        for match in pattern.finditer(text):
            if marker.isascii() and _owned(text, match.start()):
                continue  # "the package our app depends on": the asker's own, unnamed
            if not marker.isascii() and text[: match.start()].rstrip().endswith(UNNAMED_ZH):
                continue  # "某个豆瓣用户日记下面的回应": some user, and no name after
            value = _after(text, match.end(), excluded, phrase=phrase, topic=topic)
            verb_like = value.islower() and text[match.end() :].lstrip().startswith(value)
            if verb_like and _indefinite_before(text, match.start(), excluded):
                continue  # "a certain Zhihu user writes": some user, and a verb after
            if value:
                values.append(value)
    return values


def _indefinite_before(text: str, start: int, excluded: set[str]) -> bool:
    """The marker at ``start`` is some one left unnamed: "*a certain* Zhihu user", "*some*
    twitter user" (a platform's name may stand between)."""
    words = WORD_TOKEN_RE.findall(text[max(0, start - 40) : start])
    for word in reversed(words[-4:]):
        low = word.casefold()
        if low in UNNAMING_BEFORE:
            return True
        if not (word[:1].isupper() or low in excluded):
            return False
    return False


def marked_before(
    text: str, excluded: set[str], markers: tuple[str, ...] = ZH_BEFORE_MARKERS
) -> list[str]:
    """The names said right before one of ``markers`` (原神吧, "可转债 这个话题"), without what
    leads them up to a preposition (只在显卡吧: 显卡)."""
    values = []
    for marker in markers:
        # 吧 before a question mark asks ("有中文版吧?"): no forum
        pattern = "吧(?![?\uff1f])" if marker == "吧" else re.escape(marker)
        for match in re.finditer(pattern, text):
            # "可转债 这个话题": a demonstrative may stand between the name and its marker
            before = THIS_RE.sub("", text[: match.start()].rstrip()).rstrip()
            runs = RUN_RE.findall(before)
            if not runs or not before.endswith(runs[-1]):
                continue
            run = _latin_tail(runs[-1].strip(".-_"))
            word = run if run.isascii() else zh_placed_less(_zh_last_word(run))
            if word.endswith(OBJECT_LEADS):  # "想把仓库动态推到群里": what 把 leads is the object
                continue
            # "一个 Telegram 公开频道": after one of a kind, the word says what sort, no name
            lead = before[: len(before) - len(word)].rstrip()
            lead = re.sub(r"[A-Za-z][\w.\-]*$", "", lead).rstrip()
            if lead.endswith(ONE_OF_ZH) or word.startswith(ONE_OF_ZH):
                continue
            if len(word) > 1 and usable(word, excluded) and not any(f == word for f in FILLER_ZH):
                values.append(word)
    return values


def _latin_tail(run: str) -> str:
    """A Latin name a Chinese function word leads: "上ChinaJoy" (on the site) is ChinaJoy; a
    name whose Chinese is its own (小米SU7) stays whole."""
    mixed = LATIN_TAIL_RE.fullmatch(run)
    if mixed and zh_ends_as_function(mixed.group(1)):
        return mixed.group(2)
    return run
