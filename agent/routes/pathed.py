"""A parameter taking the rest of a site's address (``:category{.+}``), filled with a path the
question writes out ("the page at publish/Models/GRAPES_EPS/index.html", "path index/ksap"):
what the agent asks for when such a parameter is left open is "a path as it appears in the
site's address", so a question giving one is read the same way."""

import re

from agent.routes.slots import Slot

# A path of two segments or more written on its own: not a link's (no host, no scheme before)
PATH_WRITTEN_RE = re.compile(r"(?<![\w./:-])((?:[\w.%=&-]+/)+[\w.%=&-]+)/?(?![\w/])", re.UNICODE)
# Words that say a path follows: "path index/ksap", "路径 index/ksap"
PATH_WORD_RE = re.compile(r"(?:path|\u8def\u5f84)\s*(?:is|at|=|:|\u662f|\u4e3a)?\s*$", re.I)
PAGE_SUFFIX_RE = re.compile(r"\.(?:s?html?|aspx?|php|jsp)$", re.I)


def path_fill(slots: list[Slot], template: str, question: str, values: dict, sources: dict) -> None:
    """Fill the parameter taking the rest of the address with the one path the question
    writes that reads as its value: after the route's own segment before it (``publish/``),
    sharing its example's or default's first segment, ending in a page, or said to be a path."""
    rest = [s for s in slots if ".+" in s.regex and s.name not in values]
    if len(rest) != 1:
        return
    slot = rest[0]
    segments = template.strip("/").split("/")
    at = next((i for i, s in enumerate(segments) if s.lstrip(":").startswith(slot.name)), 0)
    before = segments[at - 1] if at > 1 and not segments[at - 1].startswith(":") else ""
    shape = (slot.example or slot.default or "").split("/")[0]
    found = []
    for match in PATH_WRITTEN_RE.finditer(question):
        path = match.group(1)
        if re.fullmatch(r"[\d/.-]+", path):  # a date or a fraction: 2024/05/01, 3/7
            continue
        led = bool(before) and path.startswith(f"{before}/")
        path = path.removeprefix(f"{before}/") if led else path
        said = PATH_WORD_RE.search(question[: match.start()]) is not None
        if led or said or PAGE_SUFFIX_RE.search(path) or (shape and path.split("/")[0] == shape):
            found.append(path)
    if len(found) == 1:
        values[slot.name], sources[slot.name] = found[0], "marked"
