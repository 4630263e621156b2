"""Countries and regions a question may name, by their two-letter codes (a store's region, a
site's edition)."""

import re

# Countries and regions a question may name, by their two-letter code: "the US store", 国区,
# 日服. English names are matched as words, in any case but the one-word codes (US, UK), which
# are matched in capitals only ("us" is a pronoun).
REGIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "us": (("US", "USA", "U.S.", "United States", "America"), ("美国", "美区", "美服", "美版")),
    "cn": (("China", "mainland China"), ("中国", "国区", "国服", "国行", "大陆", "内地")),
    "jp": (("Japan", "JP"), ("日本", "日区", "日服", "日版")),
    "hk": (("Hong Kong", "HK"), ("香港", "港区", "港服", "港版")),
    "tw": (("Taiwan", "TW"), ("台湾", "台区", "台服")),
    "kr": (("Korea", "South Korea", "KR"), ("韩国", "韩区", "韩服")),
    "gb": (("UK", "United Kingdom", "Britain", "GB"), ("英国", "英区")),
    "de": (("Germany",), ("德国",)),
    "fr": (("France",), ("法国",)),
    "ca": (("Canada",), ("加拿大",)),
    "au": (("Australia",), ("澳大利亚", "澳洲")),
    "in": (("India",), ("印度",)),
    "sg": (("Singapore",), ("新加坡",)),
}
# Codes that name a region under another code too (the United Kingdom is gb and uk).
REGION_ALIASES = {"gb": ("uk",)}


def regions_said(text: str) -> frozenset[str]:
    """The two-letter codes of the countries and regions ``text`` names."""
    said = set()
    for code, (english, chinese) in REGIONS.items():
        for name in english:
            flags = 0 if name.isupper() or "." in name else re.I
            if re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", text, flags):
                said.add(code)
        if any(name in text for name in chinese):
            said.add(code)
    # "the gb storefront", "jp region": a code in lower case before what it qualifies
    said |= {m.casefold() for m in REGION_CODE_RE.findall(text) if m.casefold() in REGIONS}
    return frozenset(said)


REGION_CODE_RE = re.compile(
    r"\b([A-Za-z]{2})\s+(?:store|storefront|region|server|app store)\b", re.I
)
