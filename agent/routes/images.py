"""An image and its tag as a question writes them ("postgres:16", "redis 7.2-alpine", "the
nginx image tagged 1.27"): Docker Hub's image, owner and tag parameters."""

import re

from agent.question import EN_STOP
from agent.routes.entities import Asked
from agent.routes.slots import Slot

# An image and its tag as Docker writes them (postgres:16, grafana/grafana:latest), or a version
# written after the image's name ("postgres 16-alpine", "nginx 1.27")
IMAGE_TAG_RE = re.compile(
    r"(?<![\w/.:@'\u2019-])((?:[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)"
    r"(?::([\w][\w.-]{0,127})|\s+(\d+(?:\.\d+)+(?:-[\w.]+)?|\d+-[a-z][\w.]*))(?![\w/:.-])",
    re.I,
)
# or its tag said after it: "the postgres image with tag 16-alpine", "nginx image tagged 1.27"
IMAGE_THEN_TAG_RE = re.compile(
    r"(?<![\w/.:@-])((?:[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)\s+images?\s*,?\s+"
    r"(?:with\s+(?:the\s+)?tag|tagged|tag)\s+([\w][\w.-]{0,127})()(?![\w/:.-])",
    re.I,
)
TAG_WORDS = frozenset(("tag", "tagged"))
IMAGE_WORDS = frozenset(str.split("image images tag tags version versions build builds"))


def image_tag_fill(slots: list[Slot], asked: Asked, values: dict, sources: dict) -> set[str]:
    """An image's tag written with it ("postgres:16") fills the image and its tag, the owner
    left to its convention (``library``) or given before a slash. Returned: the tags said that
    the route takes no value for, no owner nor image nor any subject of it ("the image with tag
    16-alpine" names no image)."""
    names = [s.name.casefold() for s in slots]
    at = names.index("image") if "image" in names else None
    image = slots[at] if at is not None else None
    owner = slots[at - 1] if at else None
    tag = slots[at + 1] if at is not None and names[at + 1 : at + 2] == ["tag"] else None
    told = set()
    # its tag after it first: "nginx image tagged 1.27" is no image called "tagged"
    for match in [*IMAGE_THEN_TAG_RE.finditer(asked.text), *IMAGE_TAG_RE.finditer(asked.text)]:
        name, version = match.group(1), match.group(2) or match.group(3)
        if name.casefold() in TAG_WORDS:  # "the image tagged 1.27": a tag, of no image said
            told.add(version.casefold())
            continue
        if image is None or name.casefold() in EN_STOP | IMAGE_WORDS:
            continue
        if tag is None:
            return told | {version.casefold()}
        if image.name in values or tag.name in values or (owner is None and "/" in name):
            continue
        if "/" in name and owner is not None:
            values[owner.name], sources[owner.name] = name.split("/")[0], "pair"
        elif owner is not None and owner.default:  # postgres:16 is library/postgres:16
            values[owner.name], sources[owner.name] = owner.default, "default"
        values[image.name], values[tag.name] = name.rsplit("/", 1)[-1], version
        sources[image.name], sources[tag.name] = "pair", "option"
        return set()
    return told
