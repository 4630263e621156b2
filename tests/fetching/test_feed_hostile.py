"""Hostile feeds through the whole ingest: RSSHub stand-in -> client -> parse worker -> database.

Each feed tries to get an XML entity expanded or a DTD fetched, disguised so that a check on the
raw bytes would miss it (control bytes inside the keywords, UTF-16/32 served as UTF-8, an XML
declaration naming another encoding, parameter entities, external DTDs). Each must be refused
as ``parse_error``, or parsed with no entity expanded; and nothing may be fetched, from the
network (a DTD route on the same live server) or from disk (a DTD file whose entity would leak).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

import pytest

from fetching.models import Feed, FetchAttempt, Item, Outcome
from fetching.services import fetch_path_sync
from tests.httpserver import Reply

pytestmark = pytest.mark.django_db

EXPANDED = "EXPANDED-MARKER"  # what an entity would expand to
LEAKED = "LEAKED-MARKER"  # what the DTD on the server or on disk defines
EVIL_DTD = f'<!ENTITY a "{LEAKED}"><!ENTITY % p "<!ENTITY b \'{LEAKED}\'>">'.encode()
REFUSED, PARSED = "refused", "parsed"
# Markup characters in UTF-7's base64 form: ASCII bytes that a UTF-7 decoder turns into markup.
UTF7_SHIFTED = {"<": "+ADw-", ">": "+AD4-", "[": "+AFs-", "]": "+AF0-", '"': "+ACI-"}


def feed(head: str = "", *, decl: str = '<?xml version="1.0" encoding="utf-8"?>') -> str:
    """An RSS feed whose title and item title use entities ``a`` and ``b``."""
    return (
        f"{decl}{head}<rss version='2.0'><channel><title>Feed &a;</title>"
        "<link>https://example.com/</link><item><title>Item &a;&b;</title>"
        "<guid>hostile-1</guid><link>https://example.com/1</link></item></channel></rss>"
    )


ENTITY = f'<!DOCTYPE rss [<!ENTITY a "{EXPANDED}">]>'
BOMB = (
    "<!DOCTYPE rss [<!ENTITY l0 'ha'>"
    + "".join(f"<!ENTITY l{n} '{f'&l{n - 1};' * 10}'>" for n in range(1, 9))
    + "<!ENTITY a '&l8;'>]>"
)


@dataclass(frozen=True)
class Case:
    text: str
    content_type: str = "application/rss+xml; charset=utf-8"
    encoding: str = "utf-8"
    bom: bytes = b""
    expect: str = REFUSED

    def body(self, dtd_url: str, dtd_file: str) -> bytes:
        text = self.text.replace("{DTD}", dtd_url).replace("{FILE_DTD}", dtd_file)
        return self.bom + text.encode(self.encoding)


def wide(text: str, encoding: str) -> str:
    """``text`` declaring the UTF-16 or UTF-32 family of ``encoding`` (no byte order in it)."""
    family = encoding[:6]
    return text.replace('encoding="utf-8"', f'encoding="{family}"')


CONTROLS = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f"]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
WIDE = [
    ("utf-16-le", codecs.BOM_UTF16_LE, "utf-16"),
    ("utf-16-be", codecs.BOM_UTF16_BE, "utf-16"),
    ("utf-32-le", codecs.BOM_UTF32_LE, "utf-32"),
    ("utf-32-be", codecs.BOM_UTF32_BE, "utf-32"),
]


def cases() -> list:
    rows = []
    for char in CONTROLS + ZERO_WIDTH:
        name = f"U+{ord(char):04X}"
        # A control is removed before the check, so the keyword it split is seen whole; a
        # zero-width character stays, and the internal subset around it is refused anyway.
        rows += [
            pytest.param(
                Case(feed(ENTITY.replace("ENT", "ENT" + char))),
                id=f"{name}-in-ENTITY",
            ),
            pytest.param(Case(feed(ENTITY.replace("DOC", "DOC" + char))), id=f"{name}-in-DOCTYPE"),
            pytest.param(
                Case(feed(f'<!DOCTYPE rss SYS{char}TEM "{{DTD}}">'), expect=PARSED),
                id=f"{name}-in-SYSTEM",
            ),
        ]
    for encoding, bom, family in WIDE:
        for charset in ("utf-8", family, encoding):
            for mark in (bom, b""):
                label = f"{encoding}-{'bom' if mark else 'nobom'}-as-{charset}"
                case = Case(
                    wide(feed(ENTITY), encoding), f"text/xml; charset={charset}", encoding, mark
                )
                rows.append(pytest.param(case, id=label))
    rows += [
        pytest.param(
            Case(feed(ENTITY, decl='<?xml version="1.0" encoding="utf-16"?>'), "application/xml"),
            id="decl-utf16-on-ascii-bytes",
        ),
        pytest.param(
            Case(
                feed(
                    "".join(UTF7_SHIFTED.get(char, char) for char in ENTITY),
                    decl='<?xml version="1.0" encoding="utf-7"?>',
                ),
                "application/xml",
                expect=PARSED,
            ),
            id="decl-utf7",
        ),
        pytest.param(
            Case(
                feed(ENTITY, decl='<?xml version="1.0" encoding="iso-8859-1"?>'),
                "text/xml; charset=utf-16",
            ),
            id="decl-latin1-header-utf16",
        ),
        pytest.param(Case(feed(BOMB)), id="billion-laughs"),
        pytest.param(
            Case(feed('<!DOCTYPE rss [<!ENTITY % p SYSTEM "{DTD}"> %p;]>')),
            id="parameter-entity-external",
        ),
        pytest.param(
            Case(feed("<!DOCTYPE rss [<!ENTITY % p \"<!ENTITY a 'x'>\"> %p;]>")),
            id="parameter-entity-internal",
        ),
        pytest.param(Case(feed("<!DOCTYPE rss [%p;]>")), id="parameter-reference-only"),
        pytest.param(
            Case(feed('<!DOCTYPE rss [<!ATTLIST rss x CDATA "y">]>')), id="internal-subset"
        ),
        pytest.param(
            Case(feed('<!DOCTYPE rss SYSTEM "{DTD}">'), expect=PARSED), id="external-dtd-http"
        ),
        pytest.param(
            Case(feed('<!DOCTYPE rss PUBLIC "-//X//Y//EN" "{DTD}">'), expect=PARSED),
            id="external-dtd-public",
        ),
        pytest.param(
            Case(feed('<!DOCTYPE rss SYSTEM "{FILE_DTD}">'), expect=PARSED), id="external-dtd-file"
        ),
        pytest.param(
            Case(feed('<!-- <a --><!DOCTYPE rss SYSTEM "{DTD}">'), expect=PARSED),
            id="external-dtd-after-a-comment-that-looks-like-a-tag",
        ),
    ]
    return rows


@pytest.mark.parametrize("case", cases())
def test_a_hostile_feed_is_refused_or_parsed_without_expansion(rsshub_at_server, tmp_path, case):
    server = rsshub_at_server
    server.route("/evil.dtd", Reply(200, {"Content-Type": "application/xml-dtd"}, EVIL_DTD))
    dtd_file = tmp_path / "evil.dtd"
    dtd_file.write_bytes(EVIL_DTD)
    body = case.body(f"{server.url}/evil.dtd", dtd_file.as_uri())
    server.route("/test/hostile", Reply(200, {"Content-Type": case.content_type}, body))

    result = fetch_path_sync("/test/hostile")

    assert server.requests_to("/evil.dtd") == [], "the DTD was fetched"
    stored = list(Item.objects.values_list("title", "guid")) + list(
        Feed.objects.values_list("title", "path")
    )
    assert not any(EXPANDED in t or LEAKED in t or "haha" in t for t, _ in stored), stored
    if case.expect == REFUSED:
        assert result.outcome == Outcome.PARSE_ERROR, result
        assert "entities" in result.message or "encoding" in result.message, result.message
        assert not Item.objects.exists()
    else:
        assert result.outcome == Outcome.OK, result
        assert Item.objects.get().guid == "hostile-1"
    assert FetchAttempt.objects.get().outcome == result.outcome


@pytest.mark.parametrize(("encoding", "bom", "family"), WIDE)
@pytest.mark.parametrize("with_bom", [True, False])
@pytest.mark.parametrize("header", ["utf-8", "right", "none"])
def test_a_utf16_or_utf32_feed_is_read_in_its_own_encoding(
    rsshub_at_server, encoding, bom, family, with_bom, header
):
    charset = {"utf-8": "; charset=utf-8", "right": f"; charset={family}", "none": ""}[header]
    text = wide(feed().replace("&a;", "中文").replace("&b;", "é"), encoding)
    body = (bom if with_bom else b"") + text.encode(encoding)
    rsshub_at_server.route("/test/wide", Reply(200, {"Content-Type": "text/xml" + charset}, body))

    result = fetch_path_sync("/test/wide")

    assert result.outcome == Outcome.OK, result
    assert Item.objects.get().title == "Item 中文é"
    assert Feed.objects.get().title == "Feed 中文"


UNSETTLED = [
    pytest.param(
        codecs.BOM_UTF16_LE + feed().encode("utf-16-le") + b"\x00", id="utf16-bom-odd-length"
    ),
    pytest.param(codecs.BOM_UTF8 + feed().encode("utf-8") + b"\xff", id="utf8-bom-invalid-byte"),
    pytest.param(("\u4e2d\u6587" + feed()).encode("utf-16-le"), id="utf16-without-shape"),
    pytest.param(feed().replace("Item", "Caf\xe9").encode("latin-1"), id="latin1-declared-utf8"),
]


@pytest.mark.parametrize("body", UNSETTLED)
def test_a_body_whose_encoding_cannot_be_settled_is_refused(rsshub_at_server, body):
    rsshub_at_server.route("/test/unsettled", Reply(200, {"Content-Type": "text/xml"}, body))

    result = fetch_path_sync("/test/unsettled")

    assert result.outcome == Outcome.PARSE_ERROR, result
    assert result.message.startswith("encoding cannot be settled"), result.message
    assert not Item.objects.exists()


# A right-to-left override makes "invoice_[RLO]fdp.exe" read as "invoice_exe.pdf"; zero-width
# characters hide inside a word. Raw, as character references, and in the feed's own title.
INVISIBLE_TITLES = [
    pytest.param("Invoice \u202efdp.exe", "Invoice fdp.exe", id="raw-rlo"),
    pytest.param("Invoice &#x202E;fdp.exe", "Invoice fdp.exe", id="rlo-reference"),
    pytest.param("Pay\u200bPal \u2066login\u2069", "PayPal login", id="zero-width-and-isolates"),
    pytest.param("&#8203;&#xFEFF;&#x200F;Alert", "Alert", id="references-to-zero-width"),
]


@pytest.mark.parametrize(("title", "stored"), INVISIBLE_TITLES)
def test_invisible_and_bidi_characters_are_removed_from_fetched_titles(
    rsshub_at_server, title, stored
):
    body = (
        "<?xml version='1.0' encoding='utf-8'?><rss version='2.0'><channel>"
        f"<title>Feed {title}</title><link>https://example.com/</link><item><title>{title}</title>"
        "<guid>bidi-1</guid><link>https://example.com/1</link>"
        f"<description>{title}</description><author>{title}</author></item></channel></rss>"
    ).encode()
    rsshub_at_server.route("/test/bidi", Reply(200, {"Content-Type": "text/xml"}, body))

    assert fetch_path_sync("/test/bidi").outcome == Outcome.OK

    item = Item.objects.get()
    kept = (item.title, item.summary, item.author)
    assert kept == (stored, stored, stored), "the item kept an invisible character"
    assert Feed.objects.get().title == f"Feed {stored}", "the feed title kept one"
