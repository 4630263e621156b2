"""What each catalog row gives the search index: its terms, each in its best field, and the names
a question may use for a platform (``catalog.search_index`` says how they are weighed).
"""

import re
from collections.abc import Collection, Iterable, Iterator
from typing import Any

from catalog import selectors
from catalog.aliases import CHINESE_ONLY_NAMES
from catalog.search_terms import text_terms

TEXT_CHARS = 1500  # of a description: enough for its first tables, bounds the index's size
# Field codes, best first; a posting stores ``position << 2 | code``.
NAME, PATH, META, TEXT = 0, 1, 2, 3
FIELD_WEIGHTS = (1.0, 0.6, 0.4, 0.25)
SECOND_LEVEL_DOMAINS = frozenset(("com", "net", "org", "gov", "edu", "ac", "co", "or", "ne", "go"))
HOST_PREFIXES = frozenset(("www", "m", "mobile"))
# " - ", " | ", " / ", and list separators: ASCII and full-width commas, 、, / | and semicolons.
NAME_SEPARATORS_RE = re.compile("\\s[-\u2013\u2014|/]\\s|[,\uff0c\u3001/|;\uff1b]")
ARTICLE_LED_RE = re.compile(r"the\s+(\S.{2,})$", re.I)  # The Guardian: Guardian


def _add_field(best: dict[str, int], code: int, texts: Iterable[str], *, numbers=True) -> None:
    for text in texts:
        for term in text_terms(text, numbers=numbers):
            if best.get(term, 9) > code:
                best[term] = code


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _translated(translations: Any, key: str) -> list[str]:
    if not isinstance(translations, dict):
        return []
    values = [t.get(key) for t in translations.values() if isinstance(t, dict)]
    return [v for v in values if isinstance(v, str)]


def _parameter_texts(parameters: Any) -> Iterator[str]:
    if not isinstance(parameters, dict):
        return
    for value in parameters.values():
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            yield str(value.get("description") or "")
            for option in value.get("options") or ():
                if isinstance(option, dict):
                    yield f"{option.get('label', '')} {option.get('value', '')}"


def _literal_path(key: str) -> str:
    return " ".join(s for s in key.split("/") if s and not s.startswith(":"))


def required_params(key: str) -> int:
    segments = key.split("/")
    return sum(s.startswith(":") and not s.endswith("?") for s in segments)


def registrable_domain(host: str) -> str:
    """The domain a site's host is registered as: www.zhihu.com -> zhihu.com,
    dongke.yangtzeu.edu.cn -> yangtzeu.edu.cn, bbc.co.uk -> bbc.co.uk."""
    labels = [x for x in host.lower().split(".") if x]
    keep = 3 if len(labels) > 2 and labels[-2] in SECOND_LEVEL_DOMAINS else 2
    return ".".join(labels[-keep:])


def domain_label(url: str) -> str:
    """The registrable name of a site's host: www.zhihu.com -> zhihu, bbc.co.uk -> bbc."""
    host = url.split("://")[-1].split("/")[0].split(":")[0]
    labels = registrable_domain(host).split(".")
    label = labels[0] if len(labels) > 1 else ""
    return label if len(label) >= 3 and label not in HOST_PREFIXES else ""


# A name given in two scripts, Latin then CJK or CJK then Latin ("The News Lens 關鍵評論",
# "Futubull 富途牛牛"): a part of four characters or more, not one word of Latin capitals alone
# (CRM) nor a common word ("中島みゆき Official"), is a name by itself
TWO_SCRIPTS_RE = re.compile(
    r"^([A-Za-z][A-Za-z0-9 .&'\-]{3,}?)\s+([\u3040-\u30ff\u3400-\u9fff]{4,})$"
    r"|^([\u3040-\u30ff\u3400-\u9fff]{4,})\s+([A-Za-z][A-Za-z0-9 .&'\-]{3,})$"
)
COMMON_NAME_WORDS = frozenset(str.split("official media news blog group team community"))


def script_parts(name: str) -> list[str]:
    """The parts of a name given in two scripts that are names by themselves (see
    ``TWO_SCRIPTS_RE``): "The News Lens 關鍵評論" is The News Lens and 關鍵評論."""
    found = TWO_SCRIPTS_RE.match(name)
    groups = found.groups() if found else ()
    return [part for part in groups if part and part.casefold() not in COMMON_NAME_WORDS]


def platform_names(row: selectors.PlatformRow, shared_domains: Collection[str] = ()) -> list[str]:
    """Every name a question may use for the platform, curated aliases included.

    The domain's name counts unless other platforms share it (blogs on github.io are not GitHub).
    """
    names = [row.namespace, row.name, *_translated(row.translations, "name")]
    names += _strings(row.aliases)
    # "today's Guardian editorials": a name led by an article is said without it too
    names += [m.group(1) for n in names if (m := ARTICLE_LED_RE.match(n or ""))]
    # "The News Lens 關鍵評論": a name in two scripts is said in either alone
    names += [part for name in names for part in script_parts(name or "")]
    label = domain_label(row.url)
    if label not in shared_domains:
        names.append(label)
    return [n for n in names if n and n.strip()]


def shared_domains(rows: list[selectors.PlatformRow]) -> set[str]:
    seen: dict[str, int] = {}
    for row in rows:
        label = domain_label(row.url)
        seen[label] = seen.get(label, 0) + 1
    return {label for label, count in seen.items() if count > 1}


def name_alternatives(name: str, platform_terms: frozenset[str], idf: dict[str, float]):
    alternatives = []
    for part in NAME_SEPARATORS_RE.split(name):
        own = frozenset(text_terms(part)) - platform_terms
        if own:
            alternatives.append((own, sum(idf.get(t, 0.0) for t in own)))
    return tuple(alternatives)


def route_fields(row: selectors.RouteRow, namespace: str) -> dict[str, int]:
    best: dict[str, int] = {}
    _add_field(best, NAME, [row.name, *_translated(row.translations, "name")])
    example = row.example.removeprefix(f"/{namespace}")
    _add_field(best, PATH, [_literal_path(row.key), example], numbers=False)
    _add_field(best, META, _strings(row.categories))
    texts = [row.description[:TEXT_CHARS], *_translated(row.translations, "description")]
    _add_field(best, TEXT, [*texts, *_parameter_texts(row.parameters)], numbers=False)
    return best


def platform_fields(row: selectors.PlatformRow, shared_domains: set[str]) -> dict[str, int]:
    best: dict[str, int] = {}
    # a name said only in Chinese ("ins") is found whole there (``catalog.search_question``),
    # never as a term of an English question's ("the ins and outs")
    names = [
        n for n in platform_names(row, shared_domains) if n.casefold() not in CHINESE_ONLY_NAMES
    ]
    _add_field(best, NAME, names)
    _add_field(best, META, _strings(row.categories))
    texts = [row.description[:TEXT_CHARS], *_translated(row.translations, "description")]
    _add_field(best, TEXT, texts, numbers=False)
    return best
