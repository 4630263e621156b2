"""A parameter written as a search's query ("district=wien-22-donaustadt&room=2"). A route
documents its filters that way when it reads a site's search; the example lists the values a
user would pick. The query asked for is, in order of trust:
- the query of a link on the platform's site the question gives (``wallhaven.cc/search?q=x``);
- the pairs the question writes out ("city=Wien", "idolId 7d8f48d4-…", "city Wien"), each of
  a key the example or the description names;
- the pairs of the example whose value the question says ("flats in Donaustadt", "postcode
  1100" for ``plz[]=1100``, "music show" for ``category=musicshow``)."""

import itertools
import json
import re
from collections import Counter
from urllib.parse import parse_qsl, unquote

from agent.routes.forms import CJK_RE
from agent.routes.slots import Slot, query_keys

# A part of a value the question must say: a word of five letters or more, or a number of
# three digits or more (a postcode, a year), said whole
WORD_PART_RE = re.compile(r"[^\W\d_]{5,}|\d{3,}")
# A link with a query: its host and its query
LINK_QUERY_RE = re.compile(
    r"(?:https?://)?((?:[\w-]+\.)+[a-z]{2,12})[^\s?#]*\?([^\s#\uff0c\u3002]+)", re.I
)
# A query written out: two pairs or more joined by "&"
WRITTEN_QUERY_RE = re.compile(
    r"(?<![\w=&?])[\w-]+=[^\s&=\uff0c\u3002)]+(?:&[\w-]+=[^\s&=\uff0c\u3002)]+)+"
)
# A key's value written after it: "=value", or a name or an id after a space
PAIR_VALUE_RE = (
    r"\s*=\s*([^\s&,;\uff0c\u3002\u3001)\uff09]+)|\s+((?=[\w-]*\d)[\w-]{2,}|[A-Z][\w-]+)"
)


def query_fill(
    slots: list[Slot], question: str, values: dict, sources: dict, hosts: tuple[str, ...] = ()
) -> None:
    """Fill each parameter whose example is a query with the query the question asks for, and
    one whose example is a JSON object (a search's body) with the object the question writes."""
    for slot in slots:
        if slot.name not in values and (body := _json_written(slot.example or "", question)):
            values[slot.name], sources[slot.name] = body, "option"
            continue
        pairs = _pairs(slot.example or "")
        if slot.name in values or not pairs:
            continue
        if _fielded_key(pairs):  # a search's term is a subject, formed once read (below)
            query = _linked_query(question, hosts) or _written_query(question, [pairs[0][0]])
            if query:
                values[slot.name], sources[slot.name] = query, "option"
            continue
        keys = list(dict.fromkeys([key for key, _v in pairs] + query_keys(slot.description)))
        query = (
            _linked_query(question, hosts)
            or _written_query(question, keys)
            or _chosen(pairs, keys, question)
        )
        if query:
            values[slot.name], sources[slot.name] = query, "option"
    _keyed_fill(slots, question, values, sources, hosts)


def _keyed_fill(
    slots: list[Slot], question: str, values: dict, sources: dict, hosts: tuple[str, ...]
) -> None:
    """A parameter named as a key of the query of the site's page the question links takes the
    page's value (lanqiao.cn/courses/?sort=latest&tag=all: ``:tag`` is ``all``)."""
    linked = dict(parse_qsl(_linked_query(question, hosts)))
    for slot in slots:
        value = linked.get(slot.name, "")
        if slot.name not in values and re.fullmatch(r"[\w.~-]+", value):
            values[slot.name], sources[slot.name] = value, "page"


def takes_query(slot: Slot) -> bool:
    """The parameter is written as a query or a JSON body, as its example shows."""
    example = slot.example or ""
    return bool(_pairs(example)) or example.startswith("{")


def _chosen(pairs: list[tuple[str, str]], keys: list[str], question: str) -> str:
    written = _written_pairs(question, keys)
    chosen = written + [
        pair for pair in _said_values(pairs, question) if pair[0] not in dict(written)
    ]
    if not written and len(pairs) < 2:
        return ""  # one pair's value said is the example's own filter, not a choice among pairs
    order = {key: n for n, key in enumerate(keys)}
    chosen.sort(key=lambda pair: order.get(pair[0], len(order)))
    return "&".join(dict.fromkeys(f"{key}={value}" for key, value in chosen))


def _linked_query(question: str, hosts: tuple[str, ...]) -> str:
    """The query of a link to one of the platform's sites, as the site writes it."""
    for match in LINK_QUERY_RE.finditer(question):
        host = match.group(1).casefold().removeprefix("www.")
        if any(host == h or host.endswith("." + h) for h in hosts):
            return unquote(match.group(2))
    return ""


def _written_query(question: str, keys: list[str]) -> str:
    """A query the question writes out whole, led by a key the route documents
    ("hl=en-GB&gl=GB&ceid=GB:en" for Google News's locale; arXiv's
    "search_query=au:hinton&sortBy=submittedDate", its other keys the site's own)."""
    for match in WRITTEN_QUERY_RE.finditer(question):
        if parse_qsl(match.group(0))[:1] and parse_qsl(match.group(0))[0][0] in keys:
            return match.group(0)
    return ""


def _written_pairs(question: str, keys: list[str]) -> list[tuple[str, str]]:
    found = []
    for key in keys:
        match = re.search(rf"(?<![\w=&?]){re.escape(key)}(?:{PAIR_VALUE_RE})", question)
        if match:
            found.append((key, match.group(1) or match.group(2)))
    return found


def _said_values(pairs: list[tuple[str, str]], question: str) -> list[tuple[str, str]]:
    """The example's pairs whose value has a part the question says and no other value has."""
    words = [w.casefold() for w in re.findall(r"\w+", question)]
    said = set(words) | {a + b for a, b in itertools.pairwise(words)}  # "music show"
    parts = {value: _parts(value) for _key, value in pairs}
    counts = Counter(p for value in dict.fromkeys(v for _k, v in pairs) for p in parts[value])
    return [
        (key, value)
        for key, value in pairs
        if any(counts[p] == 1 and p in said for p in parts[value])
    ]


def _pairs(example: str) -> list[tuple[str, str]]:
    if "=" not in example or "/" in example:
        return []
    pairs = [pair.partition("=") for pair in example.split("&")]
    return [(key, value) for key, sep, value in pairs if sep and key and value]


def _parts(value: str) -> set[str]:
    return {part.casefold() for part in WORD_PART_RE.findall(value)}


def _json_written(example: str, question: str) -> str:
    """The JSON object the question writes out, where the example is one."""
    if not example.startswith("{"):
        return ""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", question):
        try:
            found, end = decoder.raw_decode(question, match.start())
        except ValueError:
            continue
        if isinstance(found, dict) and found:
            return question[match.start() : end]
    return ""


# A search written in its site's query language, a field then the term: arXiv's
# ``search_query=all:electron`` (its API manual names the fields and the sort keys)
FIELDED_RE = re.compile(r"([a-z]{2,4}):\S+")
FIELD_WRITTEN_RE = re.compile(r"(?<![\w:])(ti|au|abs|co|jr|cat|rn|id|all):([^\s,;\uff0c\u3002]+)")
# arXiv's categories: cs.CL, math.AG, q-bio.NC; and the archives without one: hep-th, gr-qc
CATEGORY_RE = re.compile(
    r"(?<![\w.-])(?:[a-z]{2,7}(?:-[a-z]{2,3})?\.[A-Z]{2}|(?:hep|nucl)-(?:th|ph|ex|lat)"
    r"|quant-ph|gr-qc|math-ph|astro-ph|cond-mat)(?![\w-])"
)
FIELD_WORDS = (
    ("ti", re.compile(r"\btitles?\b|标题|题目|題目|標題", re.I)),
    ("au", re.compile(r"\bauthor(?:s|ed)?\b|\bwritten\s+by\b|作者", re.I)),
    ("abs", re.compile(r"\babstracts?\b|摘要", re.I)),
)
SORTS = (
    ("submittedDate", re.compile(r"\bsubmi(?:tted|ssion)\b|提交(?:时间|日期)", re.I)),
    ("lastUpdatedDate", re.compile(r"\b(?:last\s+)?updated?\b.*\bsort|更新时间", re.I)),
)
RESULTS_RE = re.compile(r"\b(\d{1,3})\s+results\b", re.I)
SORTED_RE = re.compile(r"\bsort(?:ed|ing)?\b|\border(?:ed)?\s+by\b|\bfirst\b|排序", re.I)


def _fielded_key(pairs: list[tuple[str, str]]) -> str:
    """The key of a search written field:term, as an example's first pair writes it
    (``search_query`` of ``search_query=all:electron&start=0``); "" for any other."""
    return pairs[0][0] if pairs and FIELDED_RE.fullmatch(pairs[0][1]) else ""


def fielded_fill(slots: list[Slot], text: str, values: dict, sources: dict) -> None:
    """A search's term read as a subject ("papers by author Hinton", "cs.CL papers", "'mamba'
    in the title") written in the site's query language: ``search_query=au:Hinton``, with the
    sort the question asks for."""
    for slot in slots:
        example = _pairs(slot.example or "")
        key = _fielded_key(example)
        value = values.get(slot.name, "")
        if not key or not value or "=" in value:
            continue
        keys = [k for k, _v in example[1:]]
        pairs = _written_pairs(text, keys)  # "start=0"; and "20 results" of ``max_results``
        if (counted := RESULTS_RE.search(text)) and "max_results" in keys:
            pairs = [p for p in pairs if p[0] != "max_results"] + [("max_results", counted[1])]
        told = {part.casefold() for pair in pairs for part in pair} | {"results"}
        term = _field_term([w for w in value.split() if w.casefold() not in told], text)
        values[slot.name] = "&".join(
            [f"{key}={term}", *_sort_said(text), *(f"{k}={v}" for k, v in pairs)]
        )


def _field_term(words: list[str], text: str) -> str:
    if written := FIELD_WRITTEN_RE.search(text):
        return written.group(0)
    if category := CATEGORY_RE.search(text):
        return f"cat:{category.group(0)}"
    field = next((name for name, said in FIELD_WORDS if said.search(text)), "all")
    words = [w for w in words if not any(said.search(w) for _f, said in FIELD_WORDS)]
    if any(not CJK_RE.search(w) for w in words):  # the site searches English: "transformer"
        words = [w for w in words if not CJK_RE.search(w)]  # of 标题里有 transformer 的论文
    return f"{field}:{' '.join(words)}"


def _sort_said(text: str) -> list[str]:
    if not SORTED_RE.search(text):
        return []
    by = next((key for key, words in SORTS if words.search(text)), "")
    return [f"sortBy={by}", "sortOrder=descending"] if by else []
