"""The short names Chinese speakers make of an organisation's name, from its words' first
characters: 北京林业大学 is 北林, 西安电子科技大学 西电, 中国新闻网 中新网, (国家)发展和改革委员会
发改委; and an English name's initials (Jones Lang LaSalle: JLL). The catalog lists the full
names only, and questions use the short ones.

A name is cut into words by the segmenter (``catalog.segment``), a word it knows whole
(北京林业大学) into the words it holds (北京, 林业, 大学: the fewest single characters left); the
state's prefix (中华人民共和国, 国家) and joining words (和, 与, 及, 的) are left out, and the name
without the prefix is a short name itself (海关总署). Its short
names are the first characters of all its words (中新网, 发改委, 哈工大), and for a university or
college those of its first two words, with 大 or without (北林, 北林大, 西电), and for a body
whose last word is its one-character kind, those of the others (经济观察网: 经观). A short name two
platforms would share names neither (西交: 西安交通大学 and 西交利物浦大学), nor does one that
is another platform's own name.
"""

import re
from collections.abc import Iterable

from catalog.segment import CJK_ONLY_RE, segmenter

STATE_PREFIXES = ("中华人民共和国", "国家")
JOINING_WORDS = frozenset("和与及的")
SCHOOL_SUFFIXES = ("大学", "学院")
# One character that says what kind of body a name is: 新闻网, 人民日报, 电视台, 通讯社, 统计局
KIND_CHARACTERS = frozenset("网报台社局部院所厅站")
PROPER_FLAGS = frozenset(("nr", "nz", "nt", "nrt", "nrfg"))
# A company's legal form and its trade, said after its name and left out when it is named
COMPANY_FORMS = ("股份有限公司", "有限责任公司", "有限公司", "集团公司", "公司")
COMPANY_TRADES = ("投资", "控股", "科技", "网络", "信息技术", "传媒", "文化", "实业", "集团")
# An English name: Latin words and spaces, no more; and the words its initials leave out
LATIN_NAME_RE = re.compile(r"[A-Za-z][A-Za-z'.&\- ]*[A-Za-z.]")
ENGLISH_JOINING = frozenset(str.split("of and the for & de di la le du der"))
MIN_BARE = 4  # 海关总署; what is left of 国家图书馆, 图书馆, is any library's name
MIN_WORDS = 3  # a name of two words (北京日报) is short already: 北日 says nothing
# Provinces whose schools go by the province's one character, not its name's first: 四川农业大学
# is 川农, 湖南农业大学 湘农 (elsewhere the first stays: 北京林业大学 is 北林, not 京林)
PROVINCE_CHARACTERS = {"四川": "川", "湖南": "湘"}


def short_names(name: str) -> set[str]:
    """The short names of one Chinese name, or the initials of an English name of three
    capitalised words or more (Jones Lang LaSalle is JLL)."""
    if LATIN_NAME_RE.fullmatch(name):
        return _english_initials(name)
    if not CJK_ONLY_RE.fullmatch(name):
        return set()
    full = name
    for prefix in STATE_PREFIXES:
        name = name.removeprefix(prefix)
    # the body said without the state's prefix: 中华人民共和国海关总署 is 海关总署
    bare = {name} if name != full and len(name) >= MIN_BARE else set()
    # a company without its legal form, and then its trade: 中央汇金投资有限责任公司 is
    # 中央汇金投资 and 中央汇金
    for form in COMPANY_FORMS:
        if name.endswith(form) and len(name) - len(form) >= MIN_BARE:
            name = name.removesuffix(form)
            bare.add(name)
            trade = next((t for t in COMPANY_TRADES if name.endswith(t)), "")
            if trade and len(name) - len(trade) >= MIN_BARE:
                bare.add(name.removesuffix(trade))
            break
    # a site by its name without 网, when that is a proper name: 拉勾网 is 拉勾 (人民网 no 人民)
    if name.endswith("网") and len(name) >= 3 and _proper_name(name[:-1]):
        bare.add(name[:-1])
    tokenizer = segmenter().tokenizer
    words = [
        part
        for word in tokenizer.cut(name, HMM=False)
        for part in _parts(word, set(tokenizer.cut_for_search(word, HMM=False)) - {word})
        if part not in JOINING_WORDS
    ]
    if len(words) == 2 and words[-1] == "大学" and len(words[0]) >= 2:
        return bare | {words[0][0] + "大"}  # a university of one name: 武汉大学 is 武大
    if len(words) < MIN_WORDS:
        return bare
    initials = "".join(w[0] for w in words)
    found = {initials}
    if words[-1] in SCHOOL_SUFFIXES:
        found |= {initials[:2], initials[:2] + words[-1][0]}
        if province := PROVINCE_CHARACTERS.get(words[0]):  # 川农 as well as 四农
            found |= {province + initials[1], province + initials[1] + words[-1][0]}
    elif words[-1] in KIND_CHARACTERS:
        found.add(initials[:-1])  # 经济观察网 is 经观 too
    return bare | {s for s in found if len(s) >= 2 and s != name}


def _english_initials(name: str) -> set[str]:
    words = [w for w in name.split() if w.casefold() not in ENGLISH_JOINING]
    # every word a capitalised word, no initial itself (Josh W Comeau makes no JWC)
    if len(words) < MIN_WORDS or not all(w[0].isupper() and len(w) > 1 for w in words):
        return set()
    return {"".join(w[0] for w in words)}


def _proper_name(text: str) -> bool:
    """``text`` is one word the segmenter tags as a name (a person's, an organisation's, any
    other proper noun): 拉勾, 新浪; not a common word (人民) or words (中国新闻)."""
    pairs = list(segmenter().cut(text, HMM=True))
    return len(pairs) == 1 and pairs[0].flag in PROPER_FLAGS


def _parts(word: str, parts: set[str]) -> list[str]:
    """The words a compound holds (北京林业大学), or a word and its one-character kind (新闻网:
    新闻, 网); any other word whole (委员会, 中国)."""
    if len(word) >= 4 and parts:
        return _tiled(word, parts)
    if len(word) == 3 and word[-1] in KIND_CHARACTERS and word[:2] in parts:
        return [word[:2], word[-1]]
    return [word]


def _tiled(word: str, parts: set[str]) -> list[str]:
    """``word`` as a row of ``parts`` and single characters, the fewest single characters first,
    then the fewest pieces (华中科技大学: 华中, 科技, 大学; not 华中科, 技, 大学)."""
    best: list[tuple[int, int, list[str]] | None] = [None] * (len(word) + 1)
    best[0] = (0, 0, [])
    for start in range(len(word)):
        if best[start] is None:
            continue
        singles, pieces, row = best[start]
        for end in range(start + 1, len(word) + 1):
            piece = word[start:end]
            if end - start > 1 and piece not in parts:
                continue
            cost = (singles + (end - start == 1), pieces + 1, [*row, piece])
            if best[end] is None or cost[:2] < best[end][:2]:
                best[end] = cost
    return best[-1][2]


def platform_short_names(names: Iterable[tuple[int, list[str]]]) -> dict[int, list[str]]:
    """Each platform's short names (``names``: its position and its names), those two
    platforms would share or that are any platform's own name left out."""
    names = list(names)
    own = {n for _position, labels in names for n in labels}
    made: dict[str, set[int]] = {}
    for position, labels in names:
        for label in labels:
            for short in short_names(label):
                made.setdefault(short, set()).add(position)
    found: dict[int, list[str]] = {}
    for short, positions in sorted(made.items()):
        if len(positions) == 1 and short not in own:
            found.setdefault(next(iter(positions)), []).append(short)
    return found


# Pinyin syllables (an initial, then a final), to part a romanised Chinese word: Zhejiang is
# zhe jiang, Jiaotong jiao tong. Finals longest first, so that the split takes the whole final.
PINYIN_SYLLABLE = (
    r"(?:zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw])?"
    r"(?:iang|iong|uang|ueng|ang|eng|ing|ong|ian|iao|uai|uan|ai|ei|ao|ou|an|en|er|in|un|ia|ie|"
    r"iu|ua|uo|ui|ue|ve|a|o|e|i|u|v)"
)
PINYIN_WORD_RE = re.compile(rf"(?:{PINYIN_SYLLABLE}){{2,4}}")
PINYIN_PART_RE = re.compile(PINYIN_SYLLABLE)
# Capitalised words in a row, small joining words between them: "Zhejiang University",
# "Harbin Institute of Technology", "Xi'an Jiaotong University"
CAPITALISED_RUN_RE = re.compile(
    r"\b[A-Z][a-z'\u2019]+(?:\s+(?:(?:of|and|for|the)\s+)*[A-Z][a-z'\u2019]+)+"
)
JOINING_EN = frozenset(("of", "and", "for", "the"))
# A compass word gives both its letters: Northwest Normal University is nwnu, Northeastern neu
COMPASS_RE = re.compile(r"(north|south)(east|west)(?:ern)?")


def said_initials(text: str) -> set[str]:
    """The initials of each run of capitalised words ``text`` says (``initial_runs``)."""
    return {s for _run, spellings in initial_runs(text) for s in spellings if s.isalpha()}


def initial_runs(text: str) -> list[tuple[re.Match, set[str]]]:
    """Each run of capitalised words ``text`` says, with the ways a site's address may
    abbreviate it, three letters or more: its initials, a romanised Chinese word giving its
    first letter or each syllable's ("Zhejiang University": zju; "Shanghai Jiao Tong
    University": sjtu; "Xi'an" xa), a compass word both letters ("Northwest": nw); and its
    first words run together, two or more ("Sin Chew Daily": sinchew-, sinchewdaily-, marked
    by a trailing hyphen)."""
    found = []
    for run in CAPITALISED_RUN_RE.finditer(text):
        words = [w for w in run.group(0).split() if w.lower() not in JOINING_EN]
        spellings = {""}
        for word in words:
            spellings = {done + way for done in spellings for way in _word_initials(word)}
        plain = [re.sub(r"['\u2019]s?$|['\u2019]", "", w).lower() for w in words]
        joined = {"".join(plain[:end]) + "-" for end in range(2, len(plain) + 1)}
        spellings = {s for s in spellings if len(s) >= 3} | joined
        found.append((run, spellings))
    return found


def _word_initials(word: str) -> set[str]:
    """The letters one capitalised word gives to its name's initials: its first, a
    romanised word's syllables' (Shanghai: s or sh; Xi'an: x or xa), a compass word's two."""
    low = word.lower()
    ways = {low[0]}
    if compass := COMPASS_RE.fullmatch(low):
        ways.add(compass.group(1)[0] + compass.group(2)[0])
    parts = re.split(r"['\u2019]", low)
    if len(parts) > 1 and all(PINYIN_PART_RE.fullmatch(part) for part in parts):
        ways.add("".join(part[0] for part in parts))  # Xi'an: two syllables
    elif PINYIN_WORD_RE.fullmatch("".join(parts)):
        ways.add("".join(s[0] for s in PINYIN_PART_RE.findall("".join(parts))))
    return ways
