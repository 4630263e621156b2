"""Places a question names, for the parameters that take one: a province, a city, a district
("浙江省杭州市的黄色预警": 浙江省 for :province, 杭州市 for :city). The segmenter tells a place name
from other words; the parameter's description tells what it takes (省份, 城市名, 区县)."""

import re

from agent.routes.forms import CJK_RE
from agent.routes.slots import Slot
from catalog.segment import zh_places

# What a parameter taking a Chinese place says it is: "省份", "省/直辖市名", "城市名", "区县名"
PLACE_SAID_RE = re.compile(r"^(?:省|市|地区)|省份|省名|省/|城市|区县|地名")
PROVINCE_RE = re.compile(r"省份|省名|省/|^省")
PROVINCE_END = ("省", "自治区")
CITY_END = ("市", "区", "县", "州", "盟")
# What places are, no place: "支持哪些城市"
PLACE_KINDS = frozenset(str.split("城市 地区 省份 区县 国家 地方 全国 本地 当地 城市名"))


def _takes_place(slot: Slot) -> bool:
    """A subject parameter, no values listed, whose description says it takes a place, and
    whose example (if any) writes one in Chinese (sttcq's hb1 is a code, not a place)."""
    return (
        slot.subject
        and not slot.choices
        and PLACE_SAID_RE.search(slot.description) is not None
        and (slot.example is None or CJK_RE.search(slot.example) is not None)
    )


def place_fill(
    slots: list[Slot],
    text: str,
    excluded: set[str],
    values: dict,
    sources: dict,
    platform_words: tuple[str, ...] = (),
) -> None:
    """Give each place the question names to a parameter taking one: a province's to the one
    that says 省, a city's or a district's to another, any other to the first left, in order.
    The platform's own place (德阳 of 德阳市人民政府) is none of its parameters'."""
    open_slots = [s for s in slots if s.name not in values and _takes_place(s)]
    if not open_slots:
        return
    own = [w for w in platform_words if CJK_RE.search(w)]
    said = (
        p
        for p in zh_places(text)
        if p.casefold() not in excluded and p not in PLACE_KINDS and not any(p in w for w in own)
    )
    for place in dict.fromkeys(said):
        if not open_slots:
            return
        provinces = [s for s in open_slots if PROVINCE_RE.search(s.description)]
        others = [s for s in open_slots if s not in provinces]
        if place.endswith(PROVINCE_END):
            slot = next(iter(provinces + others))
        elif place.endswith(CITY_END):
            slot = next(iter(others + provinces))
        else:
            slot = open_slots[0]
        values[slot.name], sources[slot.name] = place, "place"
        open_slots.remove(slot)
