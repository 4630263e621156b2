"""Filling a route's parameters from a question (the route node's offline method).

For each parameter of the template, in order of trust:

1. an enumerated option (upstream ``options`` of the parameter, or a markdown table of labels
   over values in the route description) whose label or value the question names;
2. a keyword parameter (``keyword``, ``query``, ``q``...) gets the question's topic keywords;
3. the value the route's own example path gives it (the example is known to work upstream);
4. nothing, for an optional parameter (RSSHub applies its default).

The result is only a proposal: ``fetching.paths.path_build`` validates it before any request.
"""

import re
from dataclasses import dataclass
from typing import Any

from fetching.paths import RoutePathRejected, path_build, template_parameters, template_values

KEYWORD_PARAMS = frozenset(
    {
        "keyword",
        "keywords",
        "query",
        "q",
        "kw",
        "word",
        "words",
        "search",
        "searchword",
        "tag",
        "topic",
        "term",
        "qw",
        "name",
        "key",
        "wd",
    }
)
TABLE_ROW_RE = re.compile(r"^\s*\|(.+)\|\s*$")
TABLE_RULE_RE = re.compile(r"^[\s|:\-]+$")
SLUG_RE = re.compile(r"[A-Za-z0-9_.\-]+")
MD_LINK_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)")


@dataclass(frozen=True)
class FilledPath:
    path: str
    params: dict[str, str]
    sources: dict[str, str]  # parameter -> option | table | keyword | example


def _options(spec: Any) -> list[tuple[str, str]]:
    if not isinstance(spec, dict) or not isinstance(spec.get("options"), list):
        return []
    found = []
    for option in spec["options"]:
        if isinstance(option, dict) and isinstance(option.get("value"), str):
            found.append((str(option.get("label") or option["value"]), option["value"]))
    return found


def description_table(description: str) -> list[tuple[str, str]]:
    """(label, value) pairs from the markdown tables of a route description.

    Upstream lays them out two ways. A table of two columns and more than two rows lists one
    pair a row under a header (label | value, or value | label when only the first column reads
    as values). Any other table alternates rows of labels and rows of values (or values over
    labels, when only the upper row reads as values). ``[text](url)`` cells count as their text.
    """
    pairs = []
    for rows in _table_blocks(description):
        if len(rows) > 2 and all(len(row) == 2 for row in rows):
            body = rows[1:]
            swap = _all_slugs([r[0] for r in body]) and not _all_slugs([r[1] for r in body])
            pairs.extend((b, a) if swap else (a, b) for a, b in body if a and b)
            continue
        for labels, values in zip(rows[0::2], rows[1::2], strict=False):
            if _all_slugs(labels) and not _all_slugs(values):
                labels, values = values, labels
            pairs.extend(
                (label, value) for label, value in zip(labels, values, strict=False) if value
            )
    return pairs


def _table_blocks(description: str) -> list[list[list[str]]]:
    """The tables of a description, each a list of rows of cleaned cells (rules left out)."""
    blocks: list[list[list[str]]] = [[]]
    for line in description.splitlines():
        match = TABLE_ROW_RE.match(line)
        if match is None:
            if blocks[-1]:
                blocks.append([])
        elif not TABLE_RULE_RE.match(line):
            cells = (MD_LINK_RE.sub(r"\1", cell).strip(" `") for cell in match.group(1).split("|"))
            blocks[-1].append(list(cells))
    return [block for block in blocks if block]


def _all_slugs(cells: list[str]) -> bool:
    """Cells that read as path values (``it``, ``hot-list``, ``24``) rather than labels."""
    return all(SLUG_RE.fullmatch(cell) for cell in cells if cell)


def _grams(text: str) -> set[str]:
    """Latin words, and CJK character pairs (single characters for a one-character run)."""
    grams: set[str] = set()
    for run in re.findall(r"[a-z0-9]+|[^\sa-z0-9\W]+", text.lower()):
        if run.isascii():
            grams.add(run)
        else:
            grams.update({run[i : i + 2] for i in range(max(1, len(run) - 1))})
    return grams


def _named_option(question: str, choices: list[tuple[str, str]]) -> str | None:
    """The value of the option whose label (or value) the question names best.

    A label counts when at least 60% of its words / character pairs appear in the question, so
    "最热的主题" names the option "最热主题" but not "最新主题"."""
    asked = _grams(question)
    best: tuple[float, int, str] | None = None
    for label, value in choices:
        for text in (label, value):
            grams = _grams(text)
            if not grams or len(text.strip()) < 2:
                continue
            overlap = len(grams & asked) / len(grams)
            candidate = (overlap, len(text), value)
            if overlap >= 0.6 and (best is None or candidate[:2] > best[:2]):
                best = candidate
    return best[2] if best else None


def _table_parameter(names: list[str], parameters: dict) -> str | None:
    """The parameter a description table lists values for: the one whose description points
    at a table, else the first."""
    for name in names:
        spec = parameters.get(name)
        text = spec if isinstance(spec, str) else (spec or {}).get("description", "")
        if isinstance(text, str) and re.search(r"下表|表格|table|below", text, re.I):
            return name
    return names[0] if names else None


def params_fill(
    *,
    template: str,
    parameters: dict,
    description: str,
    example: str,
    question: str,
    keywords: list[str],
) -> FilledPath:
    """Propose parameters for ``template`` and build the path; ``RoutePathRejected`` if invalid."""
    from_example = template_values(template, example)
    table = description_table(description or "")
    parameters = parameters if isinstance(parameters, dict) else {}
    names = [name for name, _regex, _optional in template_parameters(template)]
    table_for = _table_parameter(names, parameters)
    params: dict[str, str] = {}
    sources: dict[str, str] = {}
    gap = False  # Hono lets trailing optionals go, not one in the middle
    for name, _regex, optional in template_parameters(template):
        own_table = table if name == table_for else []
        value, source = _one_value(
            name, parameters.get(name), own_table, question, keywords, from_example
        )
        if source == "example" and optional and not _required_after(template, name):
            value = None
        if value is None or (gap and optional):
            if not optional:
                raise RoutePathRejected("missing_parameter", f":{name} could not be filled")
            gap = True
            continue
        params[name], sources[name] = value, source
    return FilledPath(path=path_build(template, params), params=params, sources=sources)


def _one_value(name, spec, table, question, keywords, from_example) -> tuple[str | None, str]:
    if (value := _named_option(question, _options(spec))) is not None:
        return value, "option"
    if (value := _named_option(question, table)) is not None:
        return value, "table"
    if name.lower() in KEYWORD_PARAMS and keywords:
        return " ".join(keywords[:4]), "keyword"
    return from_example.get(name), "example"


def _required_after(template: str, name: str) -> bool:
    """Optional values from the example are kept only while required ones follow (Hono allows
    trailing optionals to be skipped, not gaps)."""
    seen = False
    for other, _regex, optional in template_parameters(template):
        if seen and not optional:
            return True
        seen = seen or other == name
    return False
