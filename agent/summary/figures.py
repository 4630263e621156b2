"""Figures: the numbers a text states, with their scale, unit and the range they stand for.

``$2 billion``, ``2,000,000,000 dollars``, ``2bn USD`` and ``20亿美元`` are one value; ``3.5%``
and ``3.5 percent`` too; ``6,800 mAh`` is ``6800mAh``. A figure written with a scale word or
decimals stands for what rounds to it (``2 billion`` is 1.95 to 2.05 billion); a bare figure is
exact. Only a rounding word widens it further: ``about 500`` is 450 to 550, ``over 500`` (or
``超过500``) is 500 to 600, by the place of the figure's last non-zero digit. Dates, clock times
and years are not figures here (``agent.summary.dates`` reads them), nor are the digits of a code
(``GPT-5``, ``A100``) or of a version (``7.3.0``): those are names (``agent.summary.facts``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from agent.summary.dates import (
    CLOCK,
    EN_DAY_MONTH,
    EN_MONTH_DAY,
    ISO_DATE,
    ZH_CLOCK,
    ZH_DATE,
)

# Invisible format characters, private-use and lone surrogate code points: they can hide
# inside a word ("Reu\u200bters") and would make two equal texts differ.
_INVISIBLE_RE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff\ue000-\uf8ff\U000f0000-\U0010ffff]"
)


def visible(text: str) -> str:
    return unicodedata.normalize("NFKC", _INVISIBLE_RE.sub("", text or ""))


SCALES = {
    "thousand": 10**3, "k": 10**3, "million": 10**6, "mn": 10**6, "m": 10**6,
    "billion": 10**9, "bn": 10**9, "b": 10**9, "trillion": 10**12, "tn": 10**12,
    "千": 10**3, "万": 10**4, "十万": 10**5, "百万": 10**6, "千万": 10**7, "亿": 10**8,
    "万亿": 10**12,
}  # fmt: skip
UNITS = {
    "usd": ("$", "us$", "usd", "dollar", "dollars", "us dollar", "us dollars", "美元"),
    "eur": ("€", "eur", "euro", "euros", "欧元"),
    "gbp": ("£", "gbp", "pound", "pounds", "英镑"),
    "cny": ("¥", "rmb", "cny", "yuan", "元", "人民币", "块"),
    "jpy": ("jpy", "yen", "日元"),
    "hkd": ("hk$", "hkd", "港元", "港币"),
    "%": ("%", "percent", "per cent", "percentage point", "percentage points", "个百分点"),
    # Measures: "6,800 mAh" is "6800mAh", and "200Wh/kg" is a figure, not a code.
    "wh": ("wh",), "kwh": ("kwh", "千瓦时"), "mah": ("mah",), "kw": ("kw", "千瓦"),
    "km": ("km", "kilometre", "kilometres", "kilometer", "kilometers", "公里", "千米"),
    "kg": ("kg", "kilogram", "kilograms", "公斤", "千克"), "gb": ("gb",), "tb": ("tb",),
    "ghz": ("ghz",), "hz": ("hz",), "nm": ("nm",), "mm": ("mm",), "°c": ("°c",),
}  # fmt: skip
MEASURES = ("wh", "kwh", "mah", "kw", "km", "kg", "gb", "tb", "ghz", "hz", "nm", "mm")
_UNIT_OF = {word: unit for unit, words in UNITS.items() for word in words}
UNIT_WORDS = frozenset(_UNIT_OF)  # "mAh" is a unit, never a name
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "dozen": 12, "twice": 2}  # fmt: skip
# Words that make a figure approximate ("about 500") or a floor ("over 500", "超过500万"):
# only these widen a figure beyond how its digits round.
ABOUT_RE = re.compile(
    r"(?:\b(?:about|around|roughly|approximately|nearly|almost|some)|约|近|大约|将近)\s*$", re.I
)
OVER_RE = re.compile(
    r"(?:\b(?:over|more than|above|exceeding|at least|upwards of)|超过|超|逾|多于|高于)\s*$",
    re.I,
)


def _alternation(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# Words that belong to a figure ("2 billion dollars"): the figure is compared, not the words.
NUMBER_TOKENS = frozenset(
    w
    for w in (*SCALES, *_UNIT_OF, *NUMBER_WORDS, "st", "nd", "rd", "th", "per", "cent")
    if w.isalpha()
)
_SCALE = _alternation(SCALES)
_UNIT_BEFORE = r"us\$|hk\$|\$|€|£|¥|usd|eur|gbp|rmb|cny|hkd|jpy"
_UNIT_AFTER = _alternation(w for w in _UNIT_OF if w not in ("$", "us$", "hk$"))
QUANTITY_RE = re.compile(
    rf"(?<![a-z0-9_.])(?<![a-z]-)(?P<before>{_UNIT_BEFORE})?\s?"
    rf"(?P<digits>\d+(?:,\d{{3}})*(?:\.\d+)?|(?<!\d)\.\d+|{_alternation(NUMBER_WORDS)})"
    rf"(?:\s?(?P<scale>{_SCALE})(?![a-z]))?(?:\s?(?P<after>{_UNIT_AFTER})(?![a-z]))?"
    r"(?P<ordinal>st|nd|rd|th)?(?![a-z0-9])",
    re.I,
)
# Tokens mixing letters and digits are names of things (models, chips, codes), not figures.
CODE_RE = re.compile(r"(?<![\w@#$])[a-z0-9]+(?:[-_.][a-z0-9]+)*", re.I)
_SCALE_OR_ORDINAL = re.compile(
    rf"\d+(?:\.\d+)?(?:{_SCALE}|{_alternation(MEASURES)}|st|nd|rd|th|s|x|am|pm)$|\d+(?:\.\d+)?$",
    re.I,
)
_DATES = (ISO_DATE, EN_MONTH_DAY, EN_DAY_MONTH, ZH_DATE, CLOCK, ZH_CLOCK)
_ZH_MONTH_OR_YEAR = re.compile(
    r"\d{1,4}\s*年|(?<!个)\d{1,2}\s*月|第?\s*\d\s*季度?|\bq[1-4]\b", re.I
)
_YEAR = re.compile(r"(?<![\d.,])(?:19|20)\d{2}s?(?![\d.,%])")


@dataclass(frozen=True)
class Quantity:
    """A figure: its value (scale applied), unit (``UNITS`` key or ``""``) and the range of
    values another figure may have and still be this one as written (``low`` to ``high``)."""

    value: Decimal
    unit: str
    low: Decimal
    high: Decimal
    text: str

    def matches(self, other: Quantity) -> bool:
        """Whether ``other`` (as an item states it) is this figure, as this one is written."""
        if self.unit and other.unit and self.unit != other.unit:
            return False
        return self.low <= other.value <= self.high


def quantities(text: str) -> list[Quantity]:
    """The figures of ``text`` (NFKC and case folded here), dates, years and codes left out."""
    text = visible(text)
    for pattern in (*_DATES, _ZH_MONTH_OR_YEAR):
        text = pattern.sub(" ", text)
    text = CODE_RE.sub(_unless_code, text)
    found = []
    for match in QUANTITY_RE.finditer(text):
        quantity = _quantity(match, text[max(0, match.start() - 16) : match.start()])
        if quantity is not None:
            found.append(quantity)
    return found


def _unless_code(match: re.Match[str]) -> str:
    token = match.group(0)
    mixed = any(c.isalpha() for c in token) and any(c.isdigit() for c in token)
    version = token.count(".") >= 2  # 7.3.0: a version, a code
    if version or (mixed and not _SCALE_OR_ORDINAL.match(token)):
        return " "
    return token


def _quantity(match: re.Match[str], before: str) -> Quantity | None:
    digits = match.group("digits").lower()
    scale_word = (match.group("scale") or "").lower()
    unit_word = (match.group("before") or match.group("after") or "").lower()
    if digits in NUMBER_WORDS:
        value, decimals = Decimal(NUMBER_WORDS[digits]), 0
    else:
        try:
            value = Decimal(digits.replace(",", ""))
        except InvalidOperation:
            return None
        decimals = len(digits.split(".", 1)[1]) if "." in digits else 0
    if not scale_word and not unit_word and _YEAR.fullmatch(digits):
        return None  # a bare year: a date, which agent.summary.dates reads
    scale = Decimal(SCALES.get(scale_word, 1))
    # Written with a scale word or decimals, a figure stands for what rounds to it.
    rounded = scale > 1 or decimals > 0
    tolerance = Decimal(5) * Decimal(10) ** (-decimals - 1) * scale if rounded else Decimal(0)
    # "about 500": anything that rounds to it at its last non-zero digit (450 to 550);
    # "over 500": from 500 up to the next step of that digit (500 to 600).
    step = Decimal(10) ** value.normalize().as_tuple().exponent * scale if value else Decimal(0)
    value *= scale
    low, high = value - tolerance, value + tolerance
    if ABOUT_RE.search(before):
        low, high = min(low, value - step / 2), max(high, value + step / 2)
    elif OVER_RE.search(before):
        low, high = value, max(high, value + step)
    unit = _UNIT_OF.get(unit_word, "")
    return Quantity(value, unit, low, high, match.group(0).strip())
