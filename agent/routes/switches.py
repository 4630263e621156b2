"""A switch the question turns: an optional parameter that is on or off ("whether only display
media content", "需要获取全文, 填写 true/yes 表示需要"). It is on when the question asks for only
what the switch names ("only the toots that have pictures") and off when the question refuses
it ("不要全文", "without the full text"). Said neither way, it keeps its default."""

import re
from typing import NamedTuple

from agent.question import CJK, EN_STOP
from agent.routes.slots import Slot
from agent.vocabulary import NEGATED_RE

# What a switch turns on, in both languages: the words its description names it by, and those
# a question says it with (a question's pictures are an instance's media).
SWITCH_TOPICS: list[tuple[str, ...]] = [
    ("全文", "full text", "fulltext", "full article", "full articles", "full content"),
    (
        "媒体",
        "media",
        "picture",
        "pictures",
        "pics",
        "photo",
        "photos",
        "image",
        "images",
        "video",
        "videos",
        "图片",
        "视频",
        "带图",
    ),
    ("转发", "forward", "forwarded", "forwards", "reposts", "reposted"),
    ("主题帖", "thread", "threads", "topic posts"),
    ("片源", "可播放", "能播放", "playable", "streamable", "watchable"),
]
# The words a switch's description says around what it names.
_FRAME_WORDS = frozenset(
    {"whether", "only", "display", "show", "content", "default", "defaults", "value", "any"}
)
_FRAME_ZH_RE = re.compile(
    r"是否|需要|获取|填写|表示|默认|设置为|设置|等值|携带|仅|只看|只|显示|内容"
)
_CJK_RUN_RE = re.compile(f"[{CJK}]{{2,}}")
_ON_VALUES = ("true", "yes", "1")
_OFF_VALUES = ("false", "no", "0")
# "skip the forwarded messages", "去掉转发": what follows is refused, as a negation's is
_LEFT_OUT_RE = re.compile(
    r"\b(?:skip(?:ping)?|hide|hiding|exclude|omit|drop|filter(?:ing)?\s+out|leave\s+out)\b"
    r"[^,.;!?]{1,40}|(?:去掉|屏蔽|过滤|别看|不显示|不包括|不包含)[^\uff0c\u3002\uff1b\uff01\uff1f]{1,12}"
)
# "only the toots that have pictures", 只看带图的 (只要, 只看, 只想看, 仅看, 只): what follows
# names all that is wanted; and what "only" follows ("media only pls")
_ONLY_RE = re.compile(
    r"(?<!not )\b(?:only|just)\b([^.;!?]{1,60})"  # "not only the photos" asks for more
    r"|(?:\u53ea\u8981|\u53ea\u770b|\u53ea\u60f3\u770b|\u4ec5\u770b|\u53ea)([^\u3002\uff1b\uff01\uff1f]{1,14})"
    r"|\b([a-z]+(?:\s+[a-z]+)?)\s+only\b(?=\s*(?:[,.;!?]|pls\b|please\b|plz\b|$))"
)


def switch_named(text: str) -> tuple[str, ...]:
    """The concept a switch's description names (media, 全文), all its words; none when
    the description names no concept a question could say."""
    text = text.casefold()
    latin = {w for w in re.findall(r"[a-z]{3,}", text) if w not in _FRAME_WORDS | EN_STOP}
    chinese = set(_CJK_RUN_RE.findall(_FRAME_ZH_RE.sub(" ", text)))
    for row in SWITCH_TOPICS:  # (a Chinese word anywhere in a run: 仅看有可播放片源的影片)
        if latin & set(row) or any(w in run for run in chinese for w in row if not w.isascii()):
            return row
    return ()


def _written(slot: Slot, values: tuple[str, ...]) -> str | None:
    """How the slot writes one side of it: its listed value, else the one its description
    names, else the first plain form (a description listing only how to turn it on)."""
    listed = {value.casefold(): value for value, _label in slot.choices}
    for value in values:
        if value in listed:
            return listed[value]
    if listed:
        return None
    described = slot.description.casefold()
    return next((v for v in values if re.search(rf"\b{v}\b", described)), values[0])


def _said(words: tuple[str, ...], text: str) -> bool:
    return any(
        word in text if re.match(f"[{CJK}]", word) else re.search(rf"\b{re.escape(word)}\b", text)
        for word in words
    )


def is_switch(slot: Slot) -> bool:
    listed = {value.casefold() for value, _label in slot.choices}
    if listed:
        return "true" in listed and listed <= {"true", "false"}
    return bool(re.search(r"\btrue\b", slot.description, re.I))


class SwitchSaid(NamedTuple):
    """A question read for the switches it turns: what it refuses, the rest, what it asks
    for only."""

    refused: str
    wanted: str
    only: str

    @classmethod
    def of(cls, question: str) -> "SwitchSaid":
        text = question.casefold()
        refusals = (*NEGATED_RE.finditer(text), *_LEFT_OUT_RE.finditer(text))
        wanted = _LEFT_OUT_RE.sub(" ", NEGATED_RE.sub(" ", text))
        only = " ".join(next(filter(None, m.groups())) for m in _ONLY_RE.finditer(wanted))
        return cls(" ".join(m.group(0) for m in refusals), wanted, only)

    def turned(self, words: tuple[str, ...]) -> bool | None:
        """Off when what the switch names is refused, on when asked for only; else None."""
        if _said(words, self.refused) and not _said(words, self.wanted):
            return False
        return True if _said(words, self.only) else None


def switch_fill(slots: list[Slot], question: str, values: dict, sources: dict) -> None:
    """Turn each switch the question names: off when what it names is refused, on when the
    question asks for only that; a value that is the default is left out."""
    said = SwitchSaid.of(question)
    for slot in slots:
        if slot.name in values or not slot.optional or slot.subject or not is_switch(slot):
            continue
        words = switch_named(slot.description)
        turned = said.turned(words) if words else None
        if turned is None:
            continue
        value = _written(slot, _ON_VALUES if turned else _OFF_VALUES)
        default = (slot.default or "").casefold()
        on_by_default = default in _ON_VALUES or default in ("需要", "是")
        if value is None or value.casefold() == default:
            continue
        if on_by_default and value.casefold() in _ON_VALUES:
            continue
        values[slot.name], sources[slot.name] = value, "switch"
