"""Feed bytes -> the exact UTF-8 text the XML parser will see, checked for entity declarations.

Django-free: it runs inside the parse worker with ``fetching.feedparse``.

Why the check must run on the final text
----------------------------------------
A check on the raw bytes can be walked around: ``<!ENT\\x00ITY`` becomes ``<!ENTITY`` once NUL
is removed, and a UTF-16 body served as ``charset=utf-8`` is NUL-interleaved bytes that "decode"
as UTF-8 and turn into plain ``<!ENTITY`` when the NULs go. So the order here is fixed:

1. Settle the encoding (``text_decode``): a byte order mark decides; without one, the shape of
   the first four bytes (``<`` in UTF-16/32 or EBCDIC) decides; otherwise the header charset and
   the XML declaration are tried in feedparser's RFC 3023 order, then UTF-8, and only encodings
   that are ASCII-compatible (a document that starts ``<?xml`` in ASCII cannot be UTF-16 or
   UTF-7). A body none of these decodes strictly is refused as ``parse_error``: it is never parsed
   in a guessed form (no windows-1252 or charset-detector fallback).
2. Remove what XML forbids (controls, lone surrogates, U+FFFE/U+FFFF) and character references
   to such characters, then encode as UTF-8 behind a declaration that says so.
3. Check that text: no ``<!ENTITY`` (general or parameter) and no DOCTYPE internal subset, in
   any letter case. Nothing is changed after this point, so the parser sees what was checked.

A DOCTYPE that only names an external DTD is allowed (old Netscape RSS 0.91 feeds do) and the
DTD is never loaded: feedparser removes the DOCTYPE before its XML parser runs, and that parser
has external entity loading switched off. Tests show both with a live server and a file DTD.
"""

from __future__ import annotations

import codecs
import re

from feedparser.encodings import parse_content_type

PARSE_ERROR = "parse_error"

# The byte order marks, longest first: a UTF-32 LE mark starts with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
)
_EBCDIC_XML = b"\x4c\x6f\xa7\x94"  # "<?xm" in cp037
_XML_DECL = re.compile(r"<\?xml[^>]*?>")
_DECL_ENCODING = re.compile(rb"""<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]{1,40})["']""")
_UTF8_DECL = "<?xml version='1.0' encoding='utf-8'?>"
# Every printable ASCII character and two escapes: an ASCII-compatible encoding reads each byte
# as itself. (UTF-7 reads "+ADw-" and unicode_escape reads "\\u003c" as "<".)
_ASCII_PROBE = bytes(range(32, 127)) + b"\t\r\n+ADw-\\u003c"
_XML_TYPES = ("application/xml", "application/xml-dtd", "application/xml-external-parsed-entity")
_TEXT_XML_TYPES = ("text/xml", "text/xml-external-parsed-entity")

# What XML 1.0 never allows as a character; DEL is allowed but only ever noise in a feed.
UNSAFE_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
_CHARREF = re.compile(r"&#([xX][0-9a-fA-F]+|[0-9]+);")
# Declarations that make an XML parser expand text: entities (general and parameter) and any
# internal DTD subset (where parameter-entity references live). Case-blind on purpose.
_DTD_DANGER = re.compile(rb"<!ENTITY|<!DOCTYPE[^>\[]*\[", re.IGNORECASE)


class FeedRefused(Exception):
    """The body is not a feed we will store; ``outcome`` is a ``fetching.models.Outcome`` value."""

    def __init__(self, outcome: str, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.message = message


def feed_text(body: bytes, content_type: str = "") -> bytes:
    """The UTF-8 bytes to hand the parser, or ``FeedRefused`` (``parse_error``)."""
    text = text_decode(body, content_type)
    text = _CHARREF.sub(_charref_if_valid, UNSAFE_CHARS.sub("", text))
    data = _utf8_declared(text).encode("utf-8")
    if _DTD_DANGER.search(data):
        raise FeedRefused(
            PARSE_ERROR, "feed declares XML entities or a DTD subset (refused: expansion bombs)"
        )
    return data


def text_decode(body: bytes, content_type: str = "") -> str:
    """The body as text in its settled encoding (see the module docstring)."""
    for mark, encoding in _BOMS:
        if body.startswith(mark):
            return _strict_decode(body[len(mark) :], encoding, "its byte order mark")
    wide = _wide_encoding(body[:4])
    if wide:
        return _strict_decode(body, wide, "the shape of its first bytes")
    if _looks_wide(body[:1024]):
        raise FeedRefused(
            PARSE_ERROR,
            "encoding cannot be settled: NUL bytes suggest UTF-16 or UTF-32 without a byte order "
            "mark or an XML declaration",
        )
    tried = []
    for encoding in _declared_encodings(body, content_type):
        if not _ascii_compatible(encoding):
            continue  # the first bytes are ASCII-shaped, so a UTF-16/UTF-7/EBCDIC label is wrong
        tried.append(encoding)
        try:
            return body.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
    raise FeedRefused(
        PARSE_ERROR, f"encoding cannot be settled: the body does not decode as {', '.join(tried)}"
    )


def _strict_decode(data: bytes, encoding: str, evidence: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise FeedRefused(
            PARSE_ERROR,
            f"encoding cannot be settled: {evidence} says {encoding}, but the body does not "
            "decode as that",
        ) from None


def _wide_encoding(head: bytes) -> str:
    """UTF-16/32 or EBCDIC told by the first four bytes of an XML document (XML 1.0 F.1)."""
    if head == _EBCDIC_XML:
        return "cp037"
    if len(head) < 4 or not all(b < 0x80 for b in head):
        return ""
    zeros = tuple(b == 0 for b in head)
    return {
        (True, True, True, False): "utf-32-be",
        (False, True, True, True): "utf-32-le",
        (True, False, True, False): "utf-16-be",
        (False, True, False, True): "utf-16-le",
    }.get(zeros, "")


def _looks_wide(head: bytes) -> bool:
    """Many NULs near the start: a wide encoding whose first characters were not ASCII."""
    return head.count(0) * 4 > len(head)


def _declared_encodings(body: bytes, content_type: str) -> list[str]:
    """Candidate encodings in feedparser's RFC 3023 order, then UTF-8 (XML's default)."""
    declared = _DECL_ENCODING.match(body[:300].lstrip())
    xml_encoding = declared.group(1).decode("ascii").lower() if declared else ""
    mime, charset = parse_content_type(content_type)
    mime, charset = mime.lower(), charset.lower()
    if mime in _XML_TYPES or (mime.startswith("application/") and mime.endswith("+xml")):
        first = charset or xml_encoding
    elif mime.startswith("text/"):
        first = charset or "us-ascii"
    else:
        first = xml_encoding
    names = [("gb18030" if name == "gb2312" else name) for name in (first, xml_encoding)]
    return list(dict.fromkeys(name for name in [*names, "utf-8"] if name))


def _ascii_compatible(encoding: str) -> bool:
    try:
        return _ASCII_PROBE.decode(encoding) == _ASCII_PROBE.decode("ascii")
    except (LookupError, UnicodeError):
        return False


def _utf8_declared(text: str) -> str:
    """The text behind an XML declaration that names UTF-8, as feedparser itself writes it."""
    if _XML_DECL.match(text):
        return _XML_DECL.sub(_UTF8_DECL, text, count=1)
    return _UTF8_DECL + "\n" + text


def _charref_if_valid(match: re.Match[str]) -> str:
    """Keep a character reference only when it names a character XML allows."""
    ref = match.group(1)
    if len(ref) > 8:  # beyond U+10FFFF whatever the digits; also spares int() a huge string
        return ""
    code = int(ref[1:], 16) if ref[:1] in ("x", "X") else int(ref)
    if code < 32 and code not in (9, 10, 13):
        return ""
    if 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF) or code > 0x10FFFF:
        return ""
    return match.group(0)
